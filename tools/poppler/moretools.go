package poppler

import (
	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// Engines are the programs the package's tools run, found once by the
// caller (sandbox.Find); a missing one leaves its tools in the
// catalogue, not available. Every field must be set (sandbox.Find never
// returns nil).
type Engines struct {
	PDFToPPM, PDFToText, PDFInfo, PDFImages, PDFToCairo, PDFFonts, PDFSig *sandbox.Engine
	// QPDF checks a file's syntax and reads its encryption for pdf-info
	// (qpdf --check, qpdf --json).
	QPDF *sandbox.Engine
	// CertUtil makes verify-pdf-signatures' empty NSS database: no trust
	// anchors, the check is offline and trusts no one by default.
	CertUtil *sandbox.Engine
}

// Steps are the parts of the tools that read a PDF in Go, or that
// another package provides, each run as a docmill.RunFunc; the server
// runs the pdfcpu ones in the PDF helper (sandbox.Helpers), out of its
// own process. A nil step makes the tool that needs it unavailable
// (TextLayer: refuses redact-pdf's ocr=true only).
type Steps struct {
	// SelectPages keeps the pages its "pages" param selects
	// (pdfops.SelectPagesStep), for remove-blank-pages.
	SelectPages docmill.RunFunc
	// WriteBookmarks writes edit-bookmarks' outline
	// (pdfops.WriteBookmarksStep): it takes the PDF and a "bookmarks"
	// param, the JSON docmill.ParseBookmarks reads, and refuses a page
	// past the last.
	WriteBookmarks docmill.RunFunc
	// CompareReport builds compare-pdf's report PDF
	// (pdfops.CompareReportStep).
	CompareReport docmill.RunFunc
	// Inspect reads what pdf-info reports of a PDF's structure: tagging,
	// forms, signatures, XMP claims and scripts (pdfops.InspectStep).
	Inspect docmill.RunFunc
	// RedactPages puts redact-pdf's page images in place of the pages
	// (pdfops.RedactPagesStep).
	RedactPages docmill.RunFunc
	// TextLayer is ocr.TextLayerStep: the invisible text tesseract
	// recognizes in page images, as a text-only PDF with a page per
	// image. nil, or an engine it lacks, refuses redact-pdf's ocr=true
	// with engine_unavailable; the tool stays available without OCR.
	TextLayer docmill.RunFunc
}

// moreTools returns remove-blank-pages, extract-images and pdf-to-svg.
// limits bound what they render and write (RenderPages,
// RenderPagePixels, RenderPixelsTotal; a zero field takes its default).
func moreTools(e Engines, limits docmill.Limits, steps Steps) []*docmill.Tool {
	limits = limits.WithDefaults()
	return []*docmill.Tool{
		removeBlankTool(e, limits, steps),
		extractImagesTool(e, limits),
		svgTool(e, limits),
	}
}
