package pdfops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// readDocument parses and validates the PDF in f within b's limits (its
// streams counted against b's decoding allowance). label names the file in
// public messages ("The file", "File 2 (\"b.pdf\")").
//
// Failures caused by the input (not a PDF, damaged, encrypted, over
// Limits.PDFPages) are invalid_document; failures to open the file are internal;
// cancellation is returned as the context's error.
func readDocument(ctx context.Context, b *budget, f docmill.LocalFile, conf *model.Configuration, label string) (*model.Context, error) {
	file, err := os.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("pdfops: open input: %w", err)
	}
	defer file.Close()

	conf.Limits.MaxDecodeBytes = b.l.StreamDecodedBytes
	// pdfcpu refuses every encrypted file when merging. Read as an edit,
	// an encrypted file must grant the permission to assemble or modify
	// it, which is what merging needs; validation then runs as a merge,
	// which gathers the named destinations that merging renames.
	cmd := conf.Cmd
	if cmd == model.MERGECREATE {
		conf.Cmd = model.ADDWATERMARKS
	}
	doc, err := pdfcpu.ReadWithContext(ctx, file, conf)
	conf.Cmd = cmd
	if err != nil {
		if errors.Is(err, filter.ErrDecodeLimitExceeded) {
			return nil, docmill.LimitExceeded(fmt.Sprintf("%s holds a stream that expands to more than %d MB", label, b.l.StreamDecodedBytes>>20))
		}
		return nil, documentError(ctx, label, err)
	}
	// The declared count is cheap to read and refuses an oversized document
	// before validation walks its whole page tree; a document whose
	// declaration is wrong is caught by the check after validation.
	if doc.EnsurePageCount() == nil && doc.PageCount > b.l.PDFPages {
		return nil, tooManyPages(label, doc.PageCount, b.l.PDFPages)
	}
	if err := checkDecodedSize(ctx, b, doc, label); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if key, loops := loopingNameTree(doc); loops {
		return nil, docmill.InvalidDocument(nil, "%s is damaged: its %s name tree loops back on itself.", label, key)
	}
	if err := api.ValidateContext(doc); err != nil {
		return nil, documentError(ctx, label, err)
	}
	if doc.PageCount > b.l.PDFPages {
		return nil, tooManyPages(label, doc.PageCount, b.l.PDFPages)
	}
	if doc.PageCount < 1 {
		return nil, docmill.InvalidDocument(nil, "%s has no pages.", label)
	}
	dropMisplacedInfo(doc)
	return doc, nil
}

// dropMisplacedInfo forgets a trailer /Info that is not a document
// information dictionary but the catalog or a page tree node, as some
// producers write it. pdfcpu would otherwise stamp its metadata into that
// node and, when merging, free it as the source's info and break the page
// tree. pdfcpu makes a fresh information dictionary when writing.
func dropMisplacedInfo(doc *model.Context) {
	if doc.Info == nil {
		return
	}
	d, err := doc.DereferenceDict(*doc.Info)
	if err != nil || d == nil {
		doc.Info = nil
		return
	}
	if t := d.Type(); t != nil && (*t == "Catalog" || *t == "Pages" || *t == "Page") {
		doc.Info = nil
	}
}

// documentError turns a pdfcpu failure to read or validate an input into
// an invalid_document error with a public message that reveals nothing of
// pdfcpu's internals. Cancellation stays the context's error.
func documentError(ctx context.Context, label string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, pdfcpu.ErrWrongPassword) || errors.Is(err, pdfcpu.ErrEncrypted) {
		return docmill.InvalidDocument(err, "%s is password-protected. Remove the password (unlock-pdf) and try again.", label)
	}
	return docmill.InvalidDocument(fmt.Errorf("%w: %w", docmill.ErrUnreadable, err), "%s could not be read as a PDF: it is damaged, truncated or not a PDF.", label)
}

func tooManyPages(label string, pages, limit int) error {
	return docmill.InvalidDocument(nil, "%s has %d pages; this tool handles documents of up to %d pages.", label, pages, limit)
}

// theFile names the input of a one-file tool in messages.
const theFile = "The file"

// checkSize is checkSizes for a one-file tool.
func checkSize(b *budget, files []docmill.LocalFile) error {
	return checkSizes(b, files, "PDFs", func(int) string { return theFile })
}

// checkSizes refuses inputs over b's Limits.PDFBytes, each and together,
// before anything is parsed: pdfcpu holds a whole document, and jpg-to-pdf
// every embedded image, in memory until the output is written. Sizes are taken
// from the files themselves; kind names the inputs in messages ("PDFs").
func checkSizes(b *budget, files []docmill.LocalFile, kind string, label func(int) string) error {
	maxBytes := b.l.PDFBytes
	var total int64
	for i, f := range files {
		st, err := os.Stat(f.Path)
		if err != nil {
			return fmt.Errorf("pdfops: stat input: %w", err)
		}
		if st.Size() > maxBytes {
			return docmill.Errorf(docmill.CodeFileTooLarge, "%s is %s; this tool handles %s of up to %s.",
				label(i), megabytes(st.Size()), kind, megabytes(maxBytes))
		}
		total += st.Size()
	}
	if total > maxBytes {
		return docmill.Errorf(docmill.CodeFileTooLarge, "The files total %s; this tool handles up to %s in total.",
			megabytes(total), megabytes(maxBytes))
	}
	return nil
}

func megabytes(n int64) string {
	return fmt.Sprintf("%d MB", (n+(1<<20)-1)>>20)
}

// writeOutput writes doc to workName in workDir and returns it as a run's
// PDF output, offered to the client as filename, with meta.
func writeOutput(doc *model.Context, workDir, workName, filename string, meta map[string]any) (*docmill.RunOutput, error) {
	path := filepath.Join(workDir, workName)
	if err := writeDocument(doc, path); err != nil {
		return nil, err
	}
	return &docmill.RunOutput{Path: path, Filename: filename, ContentType: pdfContentType, Meta: meta}, nil
}

// documentPages declares the meta "pages" of the tools that report the
// page count of the document they were given.
var documentPages = docmill.MetaField{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."}

// pageAction is what a tool does to the pages of one PDF, said as a past
// participle ("rotated"): the tool's result is written as "rotated.pdf"
// and offered under the input's name with "-rotated.pdf" (write). A tool
// that acts on the pages it selects counts them in meta "rotated_pages"
// beside the document's "pages" (meta, output).
type pageAction string

// The actions of the tools and steps that act on selected pages (output),
// and of the page tools (write).
const (
	cropped     pageAction = "cropped"
	numbered    pageAction = "numbered"
	resized     pageAction = "resized"
	rotated     pageAction = "rotated"
	watermarked pageAction = "watermarked"
	extracted   pageAction = "extracted"
	removed     pageAction = "removed"
	organized   pageAction = "organized"
)

// meta declares the meta of a tool of the action.
func (a pageAction) meta() []docmill.MetaField {
	return []docmill.MetaField{
		documentPages,
		{Name: a.countName(), Type: docmill.MetaInteger, Description: "Pages " + string(a) + "."},
	}
}

// countName is the meta figure counting the pages acted on.
func (a pageAction) countName() string { return string(a) + "_pages" }

// output writes doc, the input once the action was done to n of its
// pages, as the run's result.
func (a pageAction) output(doc *model.Context, in *docmill.RunInput, n int) (*docmill.RunOutput, error) {
	return a.write(doc, in, map[string]any{"pages": doc.PageCount, a.countName(): n})
}

// write writes doc, made by the action from in's first file, as the run's
// result with meta.
func (a pageAction) write(doc *model.Context, in *docmill.RunInput, meta map[string]any) (*docmill.RunOutput, error) {
	name := string(a) + ".pdf"
	return writeOutput(doc, in.WorkDir, name, docmill.ResultName(in.Files[0].Filename, ".pdf", "-"+name), meta)
}

// writeDocument writes doc to path. Its failures are internal: the
// document was valid, so what fails here is the disk.
func writeDocument(doc *model.Context, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("pdfops: create output: %w", err)
	}
	if err := api.WriteContext(doc, f); err != nil {
		f.Close()
		return fmt.Errorf("pdfops: write output: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("pdfops: close output: %w", err)
	}
	return nil
}

// recoverPanic turns a panic in pdfcpu into an invalid_document error in
// *err. pdfcpu panics on some malformed input, and a job must fail rather
// than take the worker down. guarded defers it for every run.
func recoverPanic(err *error) {
	if r := recover(); r != nil {
		*err = docmill.InvalidDocument(fmt.Errorf("%w: pdfcpu panic: %v\n%s", docmill.ErrUnreadable, r, debug.Stack()),
			"The document could not be processed: it is damaged or uses a structure this tool does not support.")
	}
}
