package pdfops

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/filecopy"
)

// maxUnlockPasswordChars bounds the unlock password. Readers use at most
// 127 bytes of a password (32 for RC4 and AES-128), but a client may paste
// the longer password another program truncated, so more is accepted.
const maxUnlockPasswordChars = 1024

func unlockTool() *docmill.Tool {
	return pdfTool(docmill.Tool{
		Slug:  "unlock-pdf",
		Meta:  []docmill.MetaField{documentPages, {Name: "encrypted", Type: docmill.MetaBoolean, Description: "Whether the input was encrypted."}, {Name: "encryption", Type: docmill.MetaString, Description: "The input's encryption (AES-256, AES-128, RC4-40, ...), when it had one."}},
		Title: "Unlock PDF",
		Description: "Remove the password and the permission restrictions from a PDF. Give the password " +
			"that opens it or its owner password; a file that opens without a password but restricts " +
			"printing, copying or editing needs none. A file that is not encrypted is returned unchanged.",
		Params: []docmill.Param{
			{
				Name: passwordParam,
				Type: docmill.TypeString,
				Description: "The password that opens the document, or its owner password. " +
					"Not needed for a document that opens without one.",
				Max:    docmill.Bound(maxUnlockPasswordChars),
				Secret: true,
			},
		},
	}, runUnlock)
}

// runUnlock decrypts the input. Either password removes everything: the
// user password opens the document and pdfcpu then decrypts it whatever
// its permissions say, as qpdf does. An input that is not encrypted is
// copied unchanged, with meta encrypted: false, so that "make sure this
// is unlocked" succeeds on any valid PDF.
func runUnlock(ctx context.Context, in *docmill.RunInput, b *budget) (out *docmill.RunOutput, err error) {
	if err := checkSize(b, in.Files); err != nil {
		return nil, err
	}
	doc, err := readLocked(ctx, b, in.Files[0], in.Params.String(passwordParam), theFile)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	path := filepath.Join(in.WorkDir, "unlocked.pdf")
	meta := map[string]any{"pages": doc.PageCount, "encrypted": doc.Encrypt != nil}
	if doc.Encrypt == nil {
		if err := filecopy.Copy(in.Files[0].Path, path); err != nil {
			return nil, err
		}
	} else {
		meta["encryption"] = encryptionName(doc)
		// DECRYPT makes the writer drop the key and the Encrypt entry.
		doc.Cmd = model.DECRYPT
		if err := writeDocument(doc, path); err != nil {
			return nil, err
		}
	}
	return &docmill.RunOutput{
		Path:        path,
		Filename:    docmill.ResultName(in.Files[0].Filename, ".pdf", "-unlocked.pdf"),
		ContentType: pdfContentType,
		Meta:        meta,
	}, nil
}

// readLocked reads f, encrypted or not, with pw as both its user and owner
// password (pdfcpu tries the owner password first, then the user
// password). A missing or wrong password is invalid_parameter naming
// password; every other failure is readDocument's.
//
// VALIDATE, unlike DECRYPT, also reads an unencrypted file, and, like it,
// needs no permission once the document is open.
func readLocked(ctx context.Context, b *budget, f docmill.LocalFile, pw, label string) (*model.Context, error) {
	conf := newConfig(model.VALIDATE)
	conf.UserPW, conf.OwnerPW = pw, pw
	doc, err := readDocument(ctx, b, f, conf, label)
	switch {
	case err == nil:
		return doc, nil
	case errors.Is(err, pdfcpu.ErrWrongPassword) && pw == "":
		return nil, docmill.ParamError(passwordParam, "is required for this file: it is password-protected")
	case errors.Is(err, pdfcpu.ErrWrongPassword):
		return nil, docmill.ParamError(passwordParam, "is wrong")
	case errors.Is(err, pdfcpu.ErrUnsupportedEncryptionFeature):
		return nil, docmill.InvalidDocument(err, "%s uses an encryption method this tool does not support.", label)
	case pw != "" && !checkablePassword(pw) && docmill.ErrorCode(err) == docmill.CodeInvalidDocument:
		return retryWithoutPassword(ctx, b, f, label, err)
	}
	return nil, err
}

// retryWithoutPassword handles a password pdfcpu cannot check against an
// AES-256 file: its normalization (see passwordProfile) fails on spaces
// and some symbols instead of reporting a wrong password. Reading again
// without the password tells such a file from a damaged one, and still
// unlocks a file that needs no password to open. firstErr is the first
// read's failure, returned when the file is damaged.
func retryWithoutPassword(ctx context.Context, b *budget, f docmill.LocalFile, label string, firstErr error) (*model.Context, error) {
	doc, err := readDocument(ctx, b, f, newConfig(model.VALIDATE), label)
	switch {
	case err == nil:
		return doc, nil
	case errors.Is(err, pdfcpu.ErrWrongPassword):
		return nil, docmill.ParamError(passwordParam,
			"contains spaces or characters that this tool cannot check against the file's AES-256 encryption")
	}
	return nil, firstErr
}

// encryptionName names the encryption a read document used, for the
// job's meta: "RC4-40", "RC4-128", "AES-128" or "AES-256".
func encryptionName(doc *model.Context) string {
	if doc.E == nil {
		return "unknown"
	}
	switch {
	case doc.E.R >= 5:
		return "AES-256"
	case doc.E.R == 2:
		return "RC4-40"
	case doc.AES4Streams || doc.AES4Strings:
		return fmt.Sprintf("AES-%d", doc.E.L)
	}
	return fmt.Sprintf("RC4-%d", doc.E.L)
}
