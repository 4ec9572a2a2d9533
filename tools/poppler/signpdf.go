package poppler

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// PKCS12ContentType is a PKCS#12 certificate and key file (.p12, .pfx) as
// the HTTP edge sniffs it: sign-pdf's second file.
const PKCS12ContentType = "application/x-pkcs12"

// SignEngines are the programs sign-pdf runs: NSS's certutil and pk12util
// make a throw-away key database in the job's directory and import the
// client's PKCS#12 file into it, poppler's pdfsig signs with it and
// pdfinfo counts the result's pages.
type SignEngines struct {
	PDFSig, CertUtil, PK12Util, PDFInfo *sandbox.Engine
}

// Params of sign-pdf.
const (
	certPasswordParam = "certificate_password"
	reasonParam       = "reason"
)

// signFailure is what sign-pdf's engines' refusals mean.
const (
	badPKCS12 = "The second file could not be read as a PKCS#12 certificate file (.p12, .pfx)."
	noKey     = "The certificate file holds no private key to sign with."
	// badPassword is pk12util's error for a password that does not open
	// the file's MAC or its encrypted bags.
	badPassword = "SEC_ERROR_BAD_PASSWORD"
)

// SignTool returns sign-pdf: the PDF signed, in an incremental update,
// with the key and certificate of a PKCS#12 file (the second input) as an
// invisible adbe.pkcs7.detached signature with a SHA-256 digest.
//
// The key material never leaves the job's directory: a fresh NSS
// database is made there for the one run (and removed with it, and at
// once after signing), and the password reaches pk12util in a file of
// the job's directory, never on a command line, in a log or in an error.
// poppler 22's pdfsig signs invisibly only, with a reason but no
// location or contact, and only as adbe.pkcs7.detached (-etsi is not
// supported with -add-signature): the tool declares no more than that.
func SignTool(e SignEngines) *docmill.Tool {
	engines := []*sandbox.Engine{e.PDFSig, e.CertUtil, e.PK12Util, e.PDFInfo}
	return engineTool(docmill.Tool{
		Slug:  "sign-pdf",
		Title: "Sign PDF",
		Description: "Sign a PDF digitally with the certificate and private key of a PKCS#12 file (.p12, .pfx), sent as the second file: " +
			"an invisible signature (adbe.pkcs7.detached, SHA-256) added as an incremental update, so the document itself is unchanged. " +
			"The certificate file and its password are used for this job only and deleted with it.",
		Params: []docmill.Param{
			{Name: certPasswordParam, Type: docmill.TypeString, Max: docmill.Bound(256), Secret: true, Check: checkOneLine(certPasswordParam),
				Description: "Password of the PKCS#12 file; leave empty for a file without one."},
			{Name: reasonParam, Type: docmill.TypeString, Max: docmill.Bound(200), Check: checkOneLine(reasonParam),
				Description: "Reason for signing, stored in the signature (\"I approve this document\")."},
		},
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the signed document."},
			{Name: "signer", Type: docmill.MetaString, Description: "Name (nickname) of the certificate the document was signed with."},
		},
		Accepts:  []string{pdfContentType, PKCS12ContentType},
		Outputs:  []string{pdfContentType},
		MinFiles: 2,
		MaxFiles: 2,
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return runSign(ctx, e, in)
		},
	}, engines...)
}

// checkOneLine refuses line breaks and other control characters: a
// password file holds one line, and a command-line argument no NUL.
func checkOneLine(name string) func(string) error {
	return func(v string) error {
		if strings.IndexFunc(v, unicode.IsControl) >= 0 {
			return docmill.ParamError(name, "must not contain line breaks or other control characters")
		}
		return nil
	}
}

// runSign imports the PKCS#12 file into a fresh key database and signs
// the PDF with its key.
func runSign(ctx context.Context, e SignEngines, in *docmill.RunInput) (*docmill.RunOutput, error) {
	pdf, p12 := in.Files[0], in.Files[1]
	if pdf.ContentType != pdfContentType || p12.ContentType != PKCS12ContentType {
		return nil, docmill.Errorf(docmill.CodeUnsupportedFileType,
			"sign-pdf takes the PDF first, then the PKCS#12 certificate file (.p12, .pfx); got %s, then %s.", pdf.ContentType, p12.ContentType)
	}
	src, err := filepath.Abs(pdf.Path)
	if err != nil {
		return nil, fmt.Errorf("poppler: input path: %w", err)
	}
	db, err := newKeyDB(ctx, e.CertUtil, in.WorkDir)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(db.dir) // the private key: gone as soon as it signed
	if err := db.importPKCS12(ctx, e.PK12Util, p12.Path, in.Params.String(certPasswordParam)); err != nil {
		return nil, err
	}
	nick, err := db.signingNick(ctx, e.PDFSig)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(in.WorkDir, "signed.pdf")
	args := []string{"-nssdir", db.spec(), "-nick", nick, "-add-signature", "-digest", "SHA256"}
	if r := in.Params.String(reasonParam); r != "" {
		args = append(args, "-reason", r)
	}
	args = append(args, src, out)
	if _, err := e.PDFSig.Run(ctx, sandbox.Cmd{Args: args, Dir: in.WorkDir}); err != nil {
		return nil, engineError(err, "signing it")
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		// pdfsig exits 0 after some refusals it only prints.
		return nil, docmill.InvalidDocument(err, "The PDF could not be signed: it is damaged or its structure is not supported.")
	}
	pages, _, err := pageInfo(ctx, e.PDFInfo, out, in.WorkDir, 1)
	if err != nil {
		return nil, err
	}
	return &docmill.RunOutput{
		Path:        out,
		Filename:    docmill.ResultName(pdf.Filename, ".pdf", "-signed.pdf"),
		ContentType: pdfContentType,
		Meta:        map[string]any{"pages": pages, "signer": nick},
	}, nil
}

// keyDB is a throw-away NSS database in a job's directory, with an empty
// database password.
type keyDB struct{ dir string }

// spec names the database as NSS programs take it (the SQLite format).
func (k keyDB) spec() string { return "sql:" + k.dir }

// newKeyDB makes an empty NSS database in workDir.
func newKeyDB(ctx context.Context, certutil *sandbox.Engine, workDir string) (keyDB, error) {
	db := keyDB{dir: filepath.Join(workDir, "nssdb")}
	if err := os.Mkdir(db.dir, 0o700); err != nil {
		return db, fmt.Errorf("poppler: key database: %w", err)
	}
	if _, err := certutil.Run(ctx, sandbox.Cmd{Args: []string{"-N", "--empty-password", "-d", db.spec()}, Dir: workDir}); err != nil {
		return db, docmill.Internal(fmt.Errorf("poppler: certutil -N: %w", err))
	}
	return db, nil
}

// importPKCS12 imports the key and certificates of the PKCS#12 file at
// p12 with password. The password is written to a file of the database's
// directory for pk12util to read (removed once it did), so that no
// process listing shows it; an empty one is given as the empty argument,
// since NSS refuses an empty password file.
func (k keyDB) importPKCS12(ctx context.Context, pk12util *sandbox.Engine, p12, password string) error {
	args := []string{"-i", p12, "-d", k.spec()}
	if password == "" {
		args = append(args, "-W", "")
	} else {
		pwFile := filepath.Join(k.dir, "p12-password")
		if err := os.WriteFile(pwFile, []byte(password), 0o600); err != nil {
			return fmt.Errorf("poppler: password file: %w", err)
		}
		defer os.Remove(pwFile)
		args = append(args, "-w", pwFile)
	}
	_, err := pk12util.Run(ctx, sandbox.Cmd{Args: args, Dir: filepath.Dir(k.dir)})
	var x *sandbox.ExitError
	if errors.As(err, &x) && x.Signal == "" && strings.Contains(x.Stderr, badPassword) {
		e := docmill.ParamError(certPasswordParam, "does not open the certificate file")
		e.Err = err
		return e
	}
	return sandbox.Classify(err, sandbox.Causes{Engine: "The certificate engine", Refused: badPKCS12})
}

// maxNickOutput bounds what pdfsig -list-nicks may print.
const maxNickOutput = 1 << 20

// signingNick returns the nickname of the first certificate of the
// database that has its private key, as pdfsig lists them.
func (k keyDB) signingNick(ctx context.Context, pdfsig *sandbox.Engine) (string, error) {
	res, err := pdfsig.Run(ctx, sandbox.Cmd{Args: []string{"-nssdir", k.spec(), "-list-nicks"}, Dir: filepath.Dir(k.dir), MaxOutput: maxNickOutput})
	if err != nil {
		return "", sandbox.Classify(err, sandbox.Causes{Engine: "The " + engineName + " engine", Refused: noKey})
	}
	nick, ok := parseNicks(res.Stdout)
	if !ok {
		return "", docmill.Errorf(docmill.CodeInvalidDocument, "%s", noKey)
	}
	return nick, nil
}

// parseNicks reads pdfsig -list-nicks: a heading line, then one nickname
// a line; it returns the first. With no certificate it prints "There are
// no certificates available."
func parseNicks(out []byte) (string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, maxNickOutput)
	if !sc.Scan() || sc.Text() != "Certificate nicknames available:" {
		return "", false
	}
	for sc.Scan() {
		if nick := sc.Text(); strings.TrimSpace(nick) != "" {
			return nick, true
		}
	}
	return "", false
}
