// Package ghostscript provides the tools that run on Ghostscript and qpdf:
// compress-pdf, repair-pdf, pdf-to-pdfa, linearize-pdf, grayscale-pdf,
// and crop-pdf, flatten-pdf, fill-pdf-form and einvoice-pdf, whose pdfcpu
// parts run in the PDF helper as steps the caller injects (Steps).
//
// Every program runs through the sandbox package, Ghostscript always with
// -dSAFER. Ghostscript interprets any input that is not a PDF as
// PostScript, so inputs are checked for a PDF header before it sees them.
// Ghostscript 10.0 also "succeeds" (exit 0, a blank one-page output) on
// files its new PDF interpreter cannot open; runGS recognises that and
// retries with the legacy interpreter where it still exists. An engine
// that dies by a signal is never retried that way: it is an engine
// failure (docmill.EngineFailure), internal, for the job runner's crash
// rule (jobs: a crash is run once more, and the same crash again is the
// file's, unprocessable_document; a kill is retried).
package ghostscript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// DataPaths are the read-only system paths this package's engines need
// beyond the sandbox jail's base view (programs, libraries, fonts): their
// own data files. Paths missing on a machine are skipped.
// /usr/share/poppler is there for its CMaps: Debian's Ghostscript links its
// CMap resources (Identity-H among them) into it, and without them every
// embedded CID font (Google Docs, Word) is replaced by a substitute whose
// glyphs come out garbled.
var DataPaths = []string{"/usr/share/ghostscript", "/var/lib/ghostscript", "/etc/ghostscript", "/usr/share/color", "/usr/share/poppler"}

// pdfContentType is what every tool here accepts and produces.
const pdfContentType = "application/pdf"

// pdfResult is the output of a run of in: the PDF at out, named after the
// input with suffix in place of ".pdf".
func pdfResult(in *docmill.RunInput, out, suffix string, meta map[string]any) *docmill.RunOutput {
	return &docmill.RunOutput{
		Path:        out,
		Filename:    docmill.ResultName(in.Files[0].Filename, ".pdf", suffix),
		ContentType: pdfContentType,
		Meta:        meta,
	}
}

// timeout bounds one run of compress-pdf or pdf-to-pdfa; repair-pdf uses
// the same bound.
const timeout = 5 * time.Minute

// rates size a run's time to its input (docmill.WorkBudget): about 5 times
// what honest files took on a loaded 2-core node (see the commit), so
// that a few KB that hang Ghostscript are cut short in seconds, not
// minutes. Pages count once something counts them before the run.
var rates = docmill.WorkRates{Base: 30 * time.Second, PerMB: 150 * time.Second, PerPage: 250 * time.Millisecond}

// engines holds the programs the tools run, found by the caller, and the
// steps it runs in the PDF helper.
type engines struct {
	gs, qpdf *sandbox.Engine
	steps    Steps
	// spares are compress-pdf's runs started ahead of its jobs (nil:
	// every run starts when its job comes).
	spares *Spares
}

// Steps are the parts of the tools that read a user's document in Go;
// the server runs them in the PDF helper (sandbox.Helpers), out of its
// own process. A nil step makes the tools that need it unavailable.
type Steps struct {
	// SetCropBox writes crop-pdf's boxes (pdfops.SetCropBoxStep): it
	// takes the PDF, the "pages" param and, in points, "margins", "box"
	// or "drawn" with "padding".
	SetCropBox docmill.RunFunc
	// Fill sets the fields' values (pdfops.FillFormStep), taking
	// fill-pdf-form's input and params.
	Fill docmill.RunFunc
	// RestoreLinks puts back the links flattening dropped
	// (pdfops.RestoreLinksStep), taking the document before
	// flattening and the flattened one; nil leaves them dropped (and
	// flatten-pdf available).
	RestoreLinks docmill.RunFunc
	// CountPages counts the pages of a PDF an engine wrote
	// (pdfops.SelectPagesStep, meta "pages"); nil, or a PDF it cannot
	// read, leaves the count to a qpdf run.
	CountPages docmill.RunFunc
	// Flatten draws the annotations' appearances into the pages
	// without an engine (pdfops.FlattenStep), taking the document; its
	// meta "undrawn" above 0 sends flatten-pdf down qpdf's route. nil
	// leaves that route first.
	Flatten docmill.RunFunc
	// ReadInvoice reads einvoice-pdf's invoice XML
	// (pdfops.ReadInvoiceStep): it takes the XML and the "level" param,
	// and gives the level in its meta.
	ReadInvoice docmill.RunFunc
	// EmbedInvoice embeds it in the PDF/A-3 made of the PDF
	// (pdfops.EmbedInvoiceStep), taking the PDF/A-3 and the XML.
	EmbedInvoice docmill.RunFunc
}

// Tools returns compress-pdf, repair-pdf, pdf-to-pdfa, linearize-pdf,
// grayscale-pdf, crop-pdf, flatten-pdf, fill-pdf-form and einvoice-pdf, run with gs
// and qpdf as found by the caller (missing engines make the tools
// unavailable, never a crash) and steps. spares (NewSpares, of the same
// gs and qpdf) are the runs compress-pdf finds started ahead of its jobs
// (nil: it starts each itself); the caller closes them.
func Tools(gs, qpdf *sandbox.Engine, steps Steps, spares *Spares) []*docmill.Tool {
	e := &engines{gs: gs, qpdf: qpdf, steps: steps, spares: spares}
	tools := []*docmill.Tool{e.compressTool(), e.repairTool(), e.pdfaTool(),
		e.linearizeTool(), e.grayscaleTool(), e.cropTool(),
		e.flattenTool(), e.fillTool(), e.einvoiceTool(),
	}
	for _, t := range tools {
		t.Outputs = []string{pdfContentType}
	}
	return tools
}

// available reports whether both engines were found.
func (e *engines) available() bool { return e.gs.Available() && e.qpdf.Available() }

// status lists both engines for /readyz and the catalogue.
func (e *engines) status() []docmill.EngineStatus {
	return []docmill.EngineStatus{e.gs.Status(), e.qpdf.Status()}
}

// tool completes the declaration of a tool of e: it takes one PDF, which
// passes the stream check first (CheckPDFs), runs within timeout, reports
// both engines, and is available when both are found unless t says
// otherwise.
func (e *engines) tool(t docmill.Tool) *docmill.Tool {
	t.Accepts, t.CheckPDFs = []string{pdfContentType}, true
	t.MinFiles, t.MaxFiles = 1, 1
	t.Timeout, t.Rates = timeout, rates
	t.Engines = e.status
	if t.Available == nil {
		t.Available = e.available
	}
	return &t
}

// Public messages; they never name paths or quote engine output.
const (
	msgDamaged   = "The file could not be read as a PDF: it is damaged or not a PDF."
	msgEncrypted = "The file is password-protected; unlock it first (unlock-pdf) and try again."
	msgNotPDF    = "The file is not a PDF."
)

// failure classifies an engine error (sandbox.Classify): a refused input
// is invalid_document with public.
func failure(err error, public string) error {
	return sandbox.Classify(err, sandbox.Causes{Engine: "The PDF engine", Refused: public})
}

// checkInput refuses what Ghostscript must not see: a file without a PDF
// header (checkHeader) and an encrypted file that needs a password
// (checkEncryption). It returns the absolute path of the input, since
// engines run in a scratch directory of their own.
func (e *engines) checkInput(ctx context.Context, f docmill.LocalFile, dir string) (string, error) {
	path, err := checkHeader(f)
	if err != nil {
		return "", err
	}
	if err := e.checkEncryption(ctx, path, dir); err != nil {
		return "", err
	}
	return path, nil
}

// checkHeader refuses a file without a PDF header in its first KiB, which
// Ghostscript would run as PostScript, and returns the file's absolute
// path.
func checkHeader(f docmill.LocalFile) (string, error) {
	path, err := filepath.Abs(f.Path)
	if err != nil {
		return "", docmill.Internal(err)
	}
	fh, err := os.Open(path)
	if err != nil {
		return "", docmill.Internal(err)
	}
	head := make([]byte, 1024)
	n, _ := io.ReadFull(fh, head)
	fh.Close()
	if !bytes.Contains(head[:n], []byte("%PDF-")) {
		return "", docmill.Errorf(docmill.CodeInvalidDocument, msgNotPDF)
	}
	return path, nil
}

// checkEncryption refuses, as invalid_document, a PDF that needs a
// password to open; a file encrypted with an empty user password passes.
func (e *engines) checkEncryption(ctx context.Context, path, dir string) error {
	// qpdf --requires-password exits 0 when a password is needed, 2 when
	// the file is not encrypted (or unreadable), 3 when it is encrypted
	// with an empty user password.
	_, err := e.qpdf.Run(ctx, sandbox.Cmd{Args: []string{"--requires-password", path}, Dir: dir, Timeout: time.Minute})
	var ee *sandbox.ExitError
	switch {
	case err == nil:
		return docmill.Errorf(docmill.CodeInvalidDocument, msgEncrypted)
	case errors.As(err, &ee) && ee.Signal == "":
		return nil
	default:
		return failure(err, msgDamaged)
	}
}

// pageCount returns the pages of the PDF at path as qpdf counts them,
// accepting qpdf's "warnings" exit status 3.
func (e *engines) pageCount(ctx context.Context, path, dir string) (int, error) {
	res, err := e.qpdf.Run(ctx, sandbox.Cmd{Args: []string{"--show-npages", path}, Dir: dir, Timeout: time.Minute})
	if err = qpdfOK(err); err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	if err != nil {
		return 0, fmt.Errorf("ghostscript: page count: %w", err)
	}
	return n, nil
}

// outputPages returns the pages of out, a PDF an engine wrote from the
// user's document, counted by the PDF helper within l (Steps.CountPages:
// a warm process, where a qpdf run is a jail and a program started), or
// by qpdf (pageCount) without the step or when it cannot read out.
func (e *engines) outputPages(ctx context.Context, out, dir string, l docmill.Limits) (int, error) {
	if e.steps.CountPages != nil {
		res, err := e.steps.CountPages(ctx, &docmill.RunInput{WorkDir: dir, Limits: l,
			Files: []docmill.LocalFile{{Path: out, Filename: filepath.Base(out), ContentType: pdfContentType}}})
		if err == nil {
			if n := metaInt(res.Meta, "pages"); n >= 1 {
				return n, nil
			}
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
	return e.pageCount(ctx, out, dir)
}

// qpdfOK treats qpdf's exit status 3 (warnings, output written) as
// success.
func qpdfOK(err error) error {
	var ee *sandbox.ExitError
	if errors.As(err, &ee) && ee.Code == 3 {
		return nil
	}
	return err
}

// gsBase are the options of every Ghostscript run: -dSAFER above all.
var gsBase = []string{"-dSAFER", "-dBATCH", "-dNOPAUSE", "-dQUIET", "-sDEVICE=pdfwrite"}

// errNoPages marks a Ghostscript run that opened nothing: Ghostscript 10.0
// then exits 0 and writes a blank page, saying so only on its output.
var errNoPages = errors.New("ghostscript: no pages processed")

// legacyFloor and legacyFactor bound the legacy retry: at least
// legacyFloor, or legacyFactor times the run of the new interpreter that
// refused the input. The legacy interpreter is a fallback for files the new one of
// Ghostscript 10.0 refuses at once (a damaged xref, a broken header);
// on some hostile inputs it spins instead (dictionaries nested 10^4
// deep: quadratic, past the tool's whole timeout at 10^5), so it gets a
// budget of its own rather than the rest of the job's. A variable so
// that a test can lower the floor.
var (
	legacyFloor  = 30 * time.Second
	legacyFactor = 4
)

// runGS runs Ghostscript's pdfwrite with args (options, then files, the
// input last) writing to out. When the new PDF interpreter refuses the
// input (see legacyMayOpen), the run is repeated with the legacy one
// (-dNEWPDF=false), which opens files the new one of Ghostscript 10.0
// refuses, within legacyBudget. A run in which neither processed a page
// fails with errNoPages; a legacy run out of its budget leaves the new
// interpreter's refusal as the answer.
func (e *engines) runGS(ctx context.Context, dir, out string, args ...string) error {
	return e.runGSFrom(ctx, dir, out, args, func() error { return e.runPDFWrite(ctx, dir, out, 0, args) })
}

// runGSFrom is runGS with first as the run of the new interpreter: one
// that gives runPDFWrite's result for args by other means (a spare, see
// runSpare). The legacy retry runs args.
func (e *engines) runGSFrom(ctx context.Context, dir, out string, args []string, first func() error) error {
	start := time.Now()
	err := first()
	if err == nil || ctx.Err() != nil || !legacyMayOpen(err) {
		return err
	}
	budget := max(legacyFloor, time.Duration(legacyFactor)*time.Since(start))
	legacyErr := e.runPDFWrite(ctx, dir, out, budget, append([]string{"-dNEWPDF=false"}, args...))
	if errors.Is(legacyErr, context.DeadlineExceeded) && ctx.Err() == nil {
		return err // out of its budget: the new interpreter's refusal stands
	}
	return legacyErr
}

// runPDFWrite is one Ghostscript pdfwrite run (timeout 0: ctx's only),
// errNoPages when it processed no page.
func (e *engines) runPDFWrite(ctx context.Context, dir, out string, timeout time.Duration, args []string) error {
	argv := append([]string(nil), gsBase...)
	// pdfwrite reads "%d" in an output name as a page number.
	argv = append(argv, "-sOutputFile="+strings.ReplaceAll(out, "%", "%%"))
	argv = append(argv, args...)
	res, err := e.gs.Run(ctx, sandbox.Cmd{Args: argv, Dir: dir, Timeout: timeout})
	if err == nil && noPages(res) {
		err = errNoPages
	}
	return err
}

// legacyMayOpen reports whether a failed run of the new interpreter is
// one the legacy interpreter may succeed on: a clean refusal of this
// input, namely no pages processed (Ghostscript 10.0's exit 0 on files it
// cannot open) or a plain non-zero exit that Classify puts on the input.
// Nothing else is: an engine that died by a signal (killed, crashed) is an
// engine failure, reported as such and retried by the job runner, never
// answered with a second, slower route that gives a different result; a
// jail that failed or a missing engine would fail the same way again.
func legacyMayOpen(err error) bool {
	if errors.Is(err, errNoPages) {
		return true
	}
	var x *sandbox.ExitError
	if !errors.As(err, &x) || x.KilledBy() != "" {
		return false
	}
	return docmill.ErrorCode(failure(err, msgDamaged)) == docmill.CodeInvalidDocument
}

// noPages reports whether Ghostscript said it processed no page.
func noPages(res *sandbox.Result) bool {
	for _, b := range [][]byte{res.Stdout, res.Stderr} {
		if bytes.Contains(b, []byte("No pages will be processed")) {
			return true
		}
	}
	return false
}

// gsFailure maps a runGS error: an empty run is a damaged input.
func gsFailure(err error, public string) error {
	if errors.Is(err, errNoPages) {
		return docmill.InvalidDocument(err, "%s", public)
	}
	return failure(err, public)
}

// fileSize returns the size of the file at path.
func fileSize(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
