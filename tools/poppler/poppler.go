// Package poppler provides the tools that run poppler's command-line
// programs (Tools): pdf-to-jpg and pdf-to-png (pdftoppm, with pdfinfo for
// the page count and sizes), pdf-to-text (pdftotext), remove-blank-pages
// (pdftoppm, then a page selection in the PDF helper), extract-images
// (pdfimages), pdf-to-svg (pdftocairo), edit-bookmarks (pdftotext finds
// the headings, the PDF helper writes the outline), pdf-to-word and
// pdf-to-odt (pdftotext's layout reflowed here), pdf-to-markdown (the
// same reflow, with tables found from its words' spans), pdf-to-csv and
// pdf-to-xlsx (the same tables, as CSV or a workbook), compare-pdf (pdftotext's
// words, pdftoppm's pixels, a report made in the PDF helper), pdf-info
// (pdfinfo, pdffonts, pdfimages and qpdf, with the PDF helper's
// structure step), verify-pdf-signatures (pdfsig) and redact-pdf
// (pdftotext's word boxes, pdftoppm, then a page replacement in the PDF
// helper). The steps in the PDF helper, and tesseract's text layer, are
// injected by the caller (Steps).
//
// Every program runs through the sandbox, so each run is confined, bounded
// in time and killed with its process group on cancel. This package adds
// what only it can judge: caps on what a rendering may make, checked from
// pdfinfo's page sizes before any page is drawn, and the mapping of
// poppler's exit statuses to docmill's error codes with messages that are
// safe to show (never a path or a line of the engine's standard error).
package poppler

import (
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

// Tools returns the package's tools: pdf-to-jpg, pdf-to-png, pdf-to-text,
// edit-bookmarks, remove-blank-pages, extract-images, pdf-to-svg,
// pdf-to-word, pdf-to-odt, pdf-to-markdown, pdf-to-csv, pdf-to-xlsx,
// compare-pdf, pdf-info, verify-pdf-signatures and redact-pdf. A missing engine or step leaves its tools in the
// catalogue, not available, failing with engine_unavailable. limits
// bound what the tools render and write (RenderPages, RenderPagePixels,
// RenderPixelsTotal; a zero field takes its default).
func Tools(e Engines, steps Steps, limits docmill.Limits) []*docmill.Tool {
	tools := pageTools(e.PDFToPPM, e.PDFToText, e.PDFInfo, limits)
	tools = append(tools, editBookmarksTool(e.PDFToText, steps.WriteBookmarks, limits.WithDefaults().LayoutBytes))
	tools = append(tools, moreTools(e, limits, steps)...)
	tools = append(tools, wordTools(e, limits)...)
	tools = append(tools, markdownTool(e, limits))
	tools = append(tools, tablesTools(e, limits)...)
	tools = append(tools,
		compareTool(e, limits, steps.CompareReport),
		infoTool(e, steps.Inspect),
		verifySignaturesTool(e),
		redactTool(e, limits, steps))
	for _, t := range tools {
		t.CheckPDFs = true // every PDF passes the stream check before poppler sees it
	}
	return tools
}

// pageTools returns pdf-to-jpg, pdf-to-png and pdf-to-text.
func pageTools(pdftoppm, pdftotext, pdfinfo *sandbox.Engine, limits docmill.Limits) []*docmill.Tool {
	limits = limits.WithDefaults()
	return []*docmill.Tool{
		renderTool(jpegFormat, pdftoppm, pdfinfo, limits),
		renderTool(pngFormat, pdftoppm, pdfinfo, limits),
		textTool(pdftotext, limits.TextBytes),
	}
}

// Exit statuses that poppler's utilities share (see their man pages).
const (
	exitOpenPDF     = 1 // error opening the PDF: damaged, not a PDF, or a wrong password
	exitOpenOutput  = 2 // error opening an output file
	exitPermissions = 3 // the document's permissions forbid the operation
)

// engineError classifies a poppler run's error (sandbox.Classify): exit
// status 1 (exitOpenPDF) with "Incorrect password" on standard error is
// an encrypted file, exit status 3 (exitPermissions) a document whose
// permissions forbid doing (pdftotext honours the no-copy flag), and any
// other refusal a damaged file or not a PDF. Standard error stays in the
// wrapped error, for logs.
func engineError(err error, doing string) error {
	return sandbox.Classify(err, sandbox.Causes{
		Engine:  "The " + engineName + " engine",
		Refused: "The file could not be read as a PDF: it is damaged, truncated or not a PDF.",
		Exit: func(x *sandbox.ExitError) *docmill.Error {
			switch {
			case x.Code == exitOpenPDF && strings.Contains(x.Stderr, "Incorrect password"):
				return docmill.Errorf(docmill.CodeInvalidDocument, "The file is password-protected; unlock it first.")
			case x.Code == exitPermissions:
				return docmill.Errorf(docmill.CodeInvalidDocument, "The document's permissions do not allow %s.", doing)
			}
			return nil
		},
	})
}

// engineTool completes the declaration of a tool of this package that
// runs engines: unless t says otherwise, it takes exactly one PDF; it is
// poppler's, queued in the render lane (poppler's), bounded by timeout,
// available when every engine is (and t.Available, when set, holds too:
// a step injected by the caller), and lists the engines' statuses.
func engineTool(t docmill.Tool, engines ...*sandbox.Engine) *docmill.Tool {
	if t.Accepts == nil {
		t.Accepts = []string{pdfContentType}
	}
	if t.MinFiles == 0 && t.MaxFiles == 0 {
		t.MinFiles, t.MaxFiles = 1, 1
	}
	// Unsized (the budget is the timeout): renders and text extraction
	// work by pages, which a file's bytes do not tell.
	t.Engine, t.Timeout, t.Rates = engineName, timeout, docmill.Unsized
	t.Lane = docmill.LaneRender
	all := sandbox.AllAvailable(engines...)
	if ready := t.Available; ready != nil {
		t.Available = func() bool { return ready() && all() }
	} else {
		t.Available = all
	}
	t.Engines = sandbox.Statuses(engines...)
	return &t
}
