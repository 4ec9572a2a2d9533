// Package poppler provides the tools that run poppler's command-line
// programs: pdf-to-jpg and pdf-to-png (pdftoppm, with pdfinfo for the page
// count and sizes) and pdf-to-text (pdftotext).
//
// Every program runs through the sandbox, so each run is confined, bounded
// in time and killed with its process group on cancel. This package adds
// what only it can judge: caps on what a rendering may make, checked from
// pdfinfo's page sizes before any page is drawn, and the mapping of
// poppler's exit statuses to docmill's error codes with messages that are
// safe to show (never a path or a line of the engine's standard error).
package poppler

import (
	"context"
	"errors"
	"strings"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// DataPaths are the read-only system paths this package's engines need
// beyond the sandbox jail's base view (programs, libraries, fonts): their
// own data files. Paths missing on a machine are skipped.
var DataPaths = []string{"/usr/share/poppler"}

const (
	// engineName is the Tool.Engine of every tool of the package.
	engineName = "poppler"
	// timeout bounds one run of a tool, all its engine runs together. The
	// default render caps (see render.go) are sized so that a capped job
	// fits in it on a two-core worker.
	timeout = 5 * time.Minute
	// pdfContentType is what every tool accepts.
	pdfContentType = "application/pdf"
)

// Tools returns the poppler-backed tools. The engines are found once by the
// caller (sandbox.Find); a missing one leaves its tools in the catalogue,
// not available, failing with engine_unavailable. limits bound what
// pdf-to-jpg and pdf-to-png render (RenderPages, RenderPagePixels,
// RenderPixelsTotal); a zero field takes its default.
func Tools(pdftoppm, pdftotext, pdfinfo *sandbox.Engine, limits docmill.Limits) []*docmill.Tool {
	limits = limits.WithDefaults()
	return []*docmill.Tool{
		renderTool(jpegFormat, pdftoppm, pdfinfo, limits),
		renderTool(pngFormat, pdftoppm, pdfinfo, limits),
		textTool(pdftotext),
	}
}

// Exit statuses that poppler's utilities share (see their man pages).
const (
	exitOpenPDF     = 1 // error opening the PDF: damaged, not a PDF, or a wrong password
	exitOpenOutput  = 2 // error opening an output file
	exitPermissions = 3 // the document's permissions forbid the operation
)

// engineError maps the error of an engine run to docmill's vocabulary:
//   - a context error is passed on as it is, so cancel and timeout stay
//     recognisable to the job runner;
//   - sandbox.ErrUnavailable -> engine_unavailable;
//   - exit status 1 -> invalid_document: "Incorrect password" on standard
//     error means the file is encrypted, anything else that it is damaged
//     or not a PDF;
//   - exit status 3 -> invalid_document: the document's permissions forbid
//     the operation (pdftotext honours the no-copy flag);
//   - anything else (output errors, crashes, signals, sandbox failures) is
//     internal, so the job is retried and then fails as internal.
//
// The engine's standard error is kept only in the wrapped error, for logs.
func engineError(err error, doing string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, sandbox.ErrUnavailable) {
		e := docmill.Errorf(docmill.CodeEngineUnavailable, "The %s engine is not available on this server; please retry later.", engineName)
		e.Err = err
		return e
	}
	var x *sandbox.ExitError
	if !errors.As(err, &x) || x.Signal != "" {
		return err
	}
	var e *docmill.Error
	switch {
	case x.Code == exitOpenPDF && strings.Contains(x.Stderr, "Incorrect password"):
		e = docmill.Errorf(docmill.CodeInvalidDocument, "The file is password-protected; unlock it first.")
	case x.Code == exitOpenPDF:
		e = docmill.Errorf(docmill.CodeInvalidDocument, "The file could not be read as a PDF: it is damaged, truncated or not a PDF.")
	case x.Code == exitPermissions:
		e = docmill.Errorf(docmill.CodeInvalidDocument, "The document's permissions do not allow %s.", doing)
	default:
		return err
	}
	e.Err = err
	return e
}

// outputName names the result after the client's file (docmill.ResultName).
func outputName(filename, suffix string) string {
	return docmill.ResultName(filename, ".pdf", suffix)
}

// oneFile returns the single input of a run.
func oneFile(in *docmill.RunInput) (docmill.LocalFile, error) {
	if len(in.Files) != 1 {
		return docmill.LocalFile{}, docmill.Errorf(docmill.CodeMissingFile, "This tool takes exactly one PDF file.")
	}
	return in.Files[0], nil
}
