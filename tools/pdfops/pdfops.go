// Package pdfops provides the PDF tools built on pdfcpu: merge, split,
// rotate, extract, remove and organize pages, watermark, page numbers,
// protect, unlock, and images to PDF; form fields, metadata, bookmarks
// and attachments, and the invoice XML of an e-invoice; resize, n-up,
// booklet, insert pages and image watermarks; removing annotations and
// sanitizing. It also provides the steps other tools take on PDFs in the
// PDF helper (Steps: selecting pages, the stream check, and the pdfcpu
// parts of crop-pdf, fill-pdf-form, flatten-pdf, edit-bookmarks,
// pdf-info, redact-pdf, compare-pdf and einvoice-pdf, which reads its
// invoice XML here too).
//
// pdfcpu is a library: the server never calls it itself. Its tools run in
// docmill's PDF helper processes (sandbox.Helpers), jailed like every
// engine. Within a helper this package still bounds what a document may
// cost: inputs are size- and page-capped before and while they are
// parsed, streams are inflated into a counter against the run's decode
// limits before pdfcpu decodes any (checkDecodedSize), panics raised by
// hostile input are recovered and reported as invalid_document, and
// pdfcpu's configuration directory is disabled so nothing is written
// outside the job's work directory.
package pdfops

import (
	"context"
	"sync"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// What one job may cost is docmill.Limits', handed to every run in its
// RunInput (guarded): pdfcpu loads every object of a document into memory
// (and merge holds the growing result as well), so its memory grows with
// the input. The max* constants of this package are not such costs but
// facts of the PDF format or bounds on a hostile structure's nesting and
// counts (an outline's depth, a name tree's nodes), and the bounds of
// params, declared once for the catalogue whatever the node: they are
// not the operator's to change.
const (
	// MaxInputBytes is the default of docmill.Limits.PDFBytes, which bounds
	// each input file and, for merge-pdf, the inputs together. Larger inputs
	// fail with file_too_large before any parsing.
	MaxInputBytes int64 = 512 << 20
	// MaxPages is the default of docmill.Limits.PDFPages, which bounds the
	// pages of a document, checked on its declared page count before
	// validation walks the page tree and again on the validated count, and
	// of a merge's, an organize's or a split's result. Larger documents
	// fail with invalid_document. The page numbers params may name are
	// bounded by this default, since a declaration is the same on every
	// node.
	MaxPages = 10_000
)

// timeout bounds one run. pdfcpu honours cancellation only while reading,
// so the stages in between check the context too.
const timeout = 2 * time.Minute

// pdfContentType is the type of the PDFs these tools read and write.
const pdfContentType = "application/pdf"

// Names of the params the tools declare, by which they declare and read
// them (and name them in errors); a declaration and its reads cannot
// drift apart.
const (
	// pagesName is the page selection a tool acts on (pagesParam).
	pagesName = "pages"
	// split-pdf's ways of cutting.
	rangesParam      = "ranges"
	everyParam       = "every"
	byBookmarksParam = "by_bookmarks"
	maxSizeParam     = "max_size_mb"
	// The others, each declared and read by one tool or two.
	afterParam         = "after"
	angleParam         = "angle"
	blankParam         = "blank"
	bookmarksParam     = "bookmarks"
	borderParam        = "border"
	boxParam           = "box"
	clearParam         = "clear"
	colorParam         = "color"
	descriptionParam   = "description"
	drawnParam         = "drawn"
	fontSizeParam      = "font_size"
	formatParam        = "format"
	keepFormsParam     = "keep_forms"
	keepLinksParam     = "keep_links"
	languageParam      = "language"
	layerParam         = "layer"
	marginParam        = "margin"
	marginsParam       = "margins"
	opacityParam       = "opacity"
	orderParam         = "order"
	orientationParam   = "orientation"
	ownerPasswordParam = "owner_password"
	paddingParam       = "padding"
	pageSizeName       = "page_size"
	passwordParam      = "password"
	perSheetParam      = "per_sheet"
	permissionsParam   = "permissions"
	positionParam      = "position"
	producerParam      = "producer"
	rotationParam      = "rotation"
	scaleParam         = "scale"
	startParam         = "start"
	textParam          = "text"
	textLayerParam     = "text_layer"
	textsParam         = "texts"
)

// pagesParam declares the optional "pages" of a tool that acts on some
// pages of a document, every page by default; what says which pages the
// tool acts on, with an example of a selection.
func pagesParam(what string) docmill.Param {
	return docmill.Param{
		Name:        pagesName,
		Type:        docmill.TypePages,
		Description: what + "; all pages by default.",
		Default:     "all",
	}
}

// runFunc is the Run of a pdfcpu tool or step, given the budget its run
// reads documents within.
type runFunc func(ctx context.Context, in *docmill.RunInput, b *budget) (*docmill.RunOutput, error)

// docRunFunc is the Run of a tool that takes one PDF, given the document
// read within b.
type docRunFunc func(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (*docmill.RunOutput, error)

// guarded is the prologue of every pdfcpu run: it recovers a panic that
// hostile input raised in pdfcpu (recoverPanic) and gives run a fresh
// budget of in's Limits, the only place a run's limits come from.
func guarded(run runFunc) docmill.RunFunc {
	return func(ctx context.Context, in *docmill.RunInput) (out *docmill.RunOutput, err error) {
		defer recoverPanic(&err)
		return run(ctx, in, newBudget(in.Limits))
	}
}

// pdfTool completes the declaration of a pdfcpu tool: unless t says
// otherwise, it accepts PDFs only and exactly one file; it queues in the
// PDF lane (pdfcpu's is quick work in the PDF helper), runs within
// timeout, and runs run guarded.
func pdfTool(t docmill.Tool, run runFunc) *docmill.Tool {
	if t.Accepts == nil {
		t.Accepts = []string{pdfContentType}
	}
	if t.MinFiles == 0 && t.MaxFiles == 0 {
		t.MinFiles, t.MaxFiles = 1, 1
	}
	t.Engine = "pdfcpu"
	t.Lane = docmill.LanePDF
	t.Timeout = timeout
	t.Run = guarded(run)
	return &t
}

// onePDFTool completes the declaration of a pdfcpu tool that takes one
// PDF (pdfTool): its run refuses a file over the limits (checkSize),
// reads and validates it for cmd, and hands it to run (readingOne).
func onePDFTool(t docmill.Tool, cmd model.CommandMode, run docRunFunc) *docmill.Tool {
	return pdfTool(t, readingOne(cmd, run))
}

// pagesTool completes the declaration of a tool that does action to the
// pages of one PDF that its "pages" param selects (onePDFTool): its meta
// is action's (pageAction.meta), and its last param is "pages", which
// says which pages the tool acts on (pagesParam).
func pagesTool(t docmill.Tool, action pageAction, which string, cmd model.CommandMode, run docRunFunc) *docmill.Tool {
	t.Meta = action.meta()
	t.Params = append(t.Params, pagesParam(which))
	return onePDFTool(t, cmd, run)
}

// readingOne is the prologue of a run that takes one PDF: it refuses a
// file over the limits (checkSize), reads and validates it for cmd, and
// hands it to run.
func readingOne(cmd model.CommandMode, run docRunFunc) runFunc {
	return func(ctx context.Context, in *docmill.RunInput, b *budget) (*docmill.RunOutput, error) {
		if err := checkSize(b, in.Files); err != nil {
			return nil, err
		}
		doc, err := readDocument(ctx, b, in.Files[0], newConfig(cmd), theFile)
		if err != nil {
			return nil, err
		}
		return run(ctx, in, b, doc)
	}
}

// pdfStep declares a step of the PDF helper named name that takes min to
// max files, its first a PDF, run guarded as the tools are: within the
// limits of its RunInput.
func pdfStep(name string, min, max int, run runFunc) *docmill.EngineStep {
	disableConfigDir()
	return &docmill.EngineStep{Name: name, MinFiles: min, MaxFiles: max, Run: guarded(run)}
}

// onePDFStep is pdfStep of a step that takes one PDF, read for cmd
// (readingOne).
func onePDFStep(name string, cmd model.CommandMode, run docRunFunc) *docmill.EngineStep {
	return pdfStep(name, 1, 1, readingOne(cmd, run))
}

// Steps returns the steps other tools take in the PDF helper: the
// helper serves them beside Tools and SignTool.
func Steps() []*docmill.EngineStep {
	return []*docmill.EngineStep{SelectPagesStep(), StreamCheckStep(), SetCropBoxStep(), FillFormStep(),
		RestoreLinksStep(), FlattenStep(), WriteBookmarksStep(), CompareReportStep(), InspectStep(), RedactPagesStep(),
		ReadInvoiceStep(), EmbedInvoiceStep(), MarkPDFUAStep()}
}

// disableConfigDir stops pdfcpu from creating and reading a configuration
// directory under $HOME: a server must not write there, and the built-in
// defaults are what the tools want. model.ConfigPath is a global that
// pdfcpu reads without a lock, so it is set once, before any use.
var disableConfigDir = sync.OnceFunc(api.DisableConfigDir)

// Tools returns the pdfcpu-backed tools.
func Tools() []*docmill.Tool {
	disableConfigDir()
	tools := []*docmill.Tool{
		mergeTool(), splitTool(), rotateTool(),
		extractPagesTool(), removePagesTool(), organizeTool(),
		watermarkTool(), pageNumbersTool(),
		protectTool(), unlockTool(),
		imagesToPDFTool(),
		formFieldsTool(),
		// Document metadata and embedded data (issue 19).
		editMetadataTool(), extractAttachmentsTool(), addAttachmentsTool(), bookmarksTool(),
		extractInvoiceTool(),
		// Page layout (issue 19).
		resizeTool(), nupTool(), bookletTool(), insertPagesTool(), imageWatermarkTool(),
		// Clean-up (issue 19).
		removeAnnotationsTool(), sanitizeTool(),
	}
	for _, t := range tools {
		t.Repairs = true // a damaged PDF is repaired and read again
		if t.Outputs == nil {
			t.Outputs = []string{pdfContentType} // split-pdf's several files: MayZip
		}
	}
	return tools
}

// newConfig returns the pdfcpu configuration for one run of cmd: relaxed
// validation, because real-world PDFs rarely pass strict ISO 32000
// validation, and no network access.
func newConfig(cmd model.CommandMode) *model.Configuration {
	disableConfigDir()
	conf := model.NewDefaultConfiguration()
	conf.Cmd = cmd
	conf.ValidationMode = model.ValidationRelaxed
	conf.Offline = true
	return conf
}
