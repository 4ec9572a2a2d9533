// Package pdfops provides the PDF tools built on pdfcpu: merge, split,
// rotate, extract, remove and organize pages, watermark, page numbers,
// protect, unlock, and images to PDF; form fields, metadata, bookmarks
// and attachments; resize, n-up, booklet, insert pages and image
// watermarks; removing annotations and sanitizing. It also provides the
// steps other tools take on PDFs in the PDF helper (Steps: selecting
// pages, the stream check, and the pdfcpu parts of crop-pdf,
// fill-pdf-form, flatten-pdf, edit-bookmarks, pdf-info, redact-pdf and
// compare-pdf).
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
	"sync"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// Caps on what pdfcpu is asked to parse. pdfcpu loads every object of a
// document into memory (and merge holds the growing result as well), so its
// memory use grows with the input rather than being bounded by a buffer.
// These caps keep one job well inside a worker's memory whatever the plan's
// upload limit is; plans only ever lower what a client may send.
const (
	// MaxInputBytes is the default of docmill.Limits.PDFBytes, which bounds
	// each input file and, for merge-pdf, the inputs together. Larger inputs
	// fail with file_too_large before any parsing.
	MaxInputBytes int64 = 512 << 20
	// MaxPages is the default of docmill.Limits.PDFPages, which bounds the
	// pages of a document, checked on its declared page count before
	// validation walks the page tree and again on the validated count.
	// Larger documents fail with invalid_document. The bounds of the
	// params and of a merge's or an organize's result use this default.
	MaxPages = 10_000
)

// timeout bounds one run. pdfcpu honours cancellation only while reading,
// so the stages in between check the context too.
const timeout = 2 * time.Minute

// pdfContentType is the type of the PDFs these tools read and write.
const pdfContentType = "application/pdf"

// pagesParam declares the optional "pages" of a tool that acts on some
// pages of a document, every page by default; what says which pages the
// tool acts on, with an example of a selection.
func pagesParam(what string) docmill.Param {
	return docmill.Param{
		Name:        "pages",
		Type:        docmill.TypePages,
		Description: what + "; all pages by default.",
		Default:     "all",
	}
}

// onePDFTool completes the declaration of a pdfcpu tool that takes one
// PDF: it accepts PDFs only, exactly one file, and runs within timeout.
func onePDFTool(t docmill.Tool) *docmill.Tool {
	t.Accepts = []string{pdfContentType}
	t.MinFiles, t.MaxFiles = 1, 1
	t.Engine = "pdfcpu"
	t.Timeout = timeout
	return &t
}

// budgetedStep declares a step of the PDF helper named name that takes
// min to max files, run with the run's decode budget as the tools are
// (withBudgets).
func budgetedStep(name string, min, max int, run docmill.RunFunc) *docmill.EngineStep {
	disableConfigDir()
	t := withBudgets([]*docmill.Tool{{Run: run}})[0]
	return &docmill.EngineStep{Name: name, MinFiles: min, MaxFiles: max, Run: t.Run}
}

// Steps returns the steps other tools take in the PDF helper: the
// helper serves them beside Tools and SignTool.
func Steps() []*docmill.EngineStep {
	return []*docmill.EngineStep{SelectPagesStep(), StreamCheckStep(), SetCropBoxStep(), FillFormStep(),
		RestoreLinksStep(), WriteBookmarksStep(), CompareReportStep(), InspectStep(), RedactPagesStep()}
}

// disableConfigDir stops pdfcpu from creating and reading a configuration
// directory under $HOME: a server must not write there, and the built-in
// defaults are what the tools want. model.ConfigPath is a global that
// pdfcpu reads without a lock, so it is set once, before any use.
var disableConfigDir = sync.OnceFunc(api.DisableConfigDir)

// Tools returns the pdfcpu-backed tools.
func Tools() []*docmill.Tool {
	disableConfigDir()
	tools := withBudgets([]*docmill.Tool{
		mergeTool(), splitTool(), rotateTool(),
		extractPagesTool(), removePagesTool(), organizeTool(),
		watermarkTool(), pageNumbersTool(),
		protectTool(), unlockTool(),
		imagesToPDFTool(),
		formFieldsTool(),
		// Document metadata and embedded data (issue 19).
		editMetadataTool(), extractAttachmentsTool(), addAttachmentsTool(), bookmarksTool(),
		// Page layout (issue 19).
		resizeTool(), nupTool(), bookletTool(), insertPagesTool(), imageWatermarkTool(),
		// Clean-up (issue 19).
		removeAnnotationsTool(), sanitizeTool(),
	})
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
