package ghostscript

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	docmill "github.com/docmill/docmill"
)

func (e *engines) grayscaleTool() *docmill.Tool {
	return e.tool(docmill.Tool{
		Slug:  "grayscale-pdf",
		Lane:  docmill.LaneRender,
		Title: "Grayscale PDF",
		Description: "Convert the colours of a PDF's pages (text, drawings, images) to shades of grey, for printing " +
			"in black and white. Pages are rewritten by Ghostscript: text stays text, images are re-encoded in grey. " +
			"Annotations (comments, highlights, form fields, links) are kept as they are, in their own colours, and so " +
			"is the colour of hatching drawn with an uncoloured pattern, which Ghostscript does not convert.",
		Meta:   []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."}},
		Engine: "ghostscript",
		Run:    e.runGrayscale,
	})
}

// grayArgs are the pdfwrite options of grayscale-pdf: every colour space
// converted to DeviceGray (images re-encoded, since a JPEG in colour
// cannot pass through), and pages kept as they are turned
// (pdfwrite's default would rotate each page so that most of its text
// reads upright).
var grayArgs = []string{
	"-sColorConversionStrategy=Gray", "-sProcessColorModel=DeviceGray",
	"-dAutoRotatePages=/None",
}

// runGrayscale rewrites the input with Ghostscript's pdfwrite converting
// the colours of the pages' content to grey (grayArgs). Two things keep
// their colour, and the description says so: annotations, which pdfwrite
// carries over unchanged (flattening them into the page would lose
// comments, links and form fields), and the colour an uncoloured tiling
// pattern (hatching) is painted in, whose base colour space Ghostscript
// 10.0 leaves as it is (GeoTopo-komprimiert.pdf's page 23). The input is checked first
// (checkInput): a file without a PDF header, which Ghostscript would run
// as PostScript, and one that needs a password are invalid_document.
func (e *engines) runGrayscale(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	src, err := e.checkInput(ctx, in.Files[0], in.WorkDir)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(in.WorkDir, "grayscale.pdf")
	if err := e.runGS(ctx, in.WorkDir, out, slices.Concat(grayArgs, []string{src})...); err != nil {
		return nil, gsFailure(err, msgDamaged)
	}
	pages, err := e.outputPages(ctx, out, in.WorkDir, in.Limits)
	if err != nil {
		return nil, docmill.Internal(fmt.Errorf("ghostscript: grayscale output: %w", err))
	}
	return pdfResult(in, out, "-grayscale.pdf", map[string]any{"pages": pages}), nil
}
