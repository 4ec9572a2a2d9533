package poppler

import (
	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// Engines are the poppler programs of MoreTools, found once by the caller
// (sandbox.Find); a missing one leaves its tools in the catalogue, not
// available.
type Engines struct {
	PDFToPPM, PDFInfo, PDFImages, PDFToCairo *sandbox.Engine
}

// Steps are the parts of MoreTools' tools that read a PDF in Go; the
// server runs them in the PDF helper (sandbox.Helpers), out of its own
// process.
type Steps struct {
	// SelectPages keeps the pages its "pages" param selects
	// (pdfops.SelectPagesTool); remove-blank-pages is unavailable
	// without it.
	SelectPages docmill.RunFunc
}

// MoreTools returns remove-blank-pages, extract-images and pdf-to-svg,
// the poppler tools that run engines or steps beyond those of Tools.
// limits bound what they render and write (RenderPages,
// RenderPagePixels, RenderPixelsTotal; a zero field takes its default).
func MoreTools(e Engines, limits docmill.Limits, steps Steps) []*docmill.Tool {
	limits = limits.WithDefaults()
	return []*docmill.Tool{
		removeBlankTool(e, limits, steps),
		extractImagesTool(e, limits),
		svgTool(e, limits),
	}
}
