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
		Title: "Grayscale PDF",
		Description: "Convert every colour of a PDF (text, drawings, images) to shades of grey, for printing " +
			"in black and white. Pages are rewritten by Ghostscript: text stays text, images are re-encoded in grey.",
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
// every colour to grey (grayArgs). The input is checked first
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
	pages, err := e.pageCount(ctx, out, in.WorkDir)
	if err != nil {
		return nil, docmill.Internal(fmt.Errorf("ghostscript: grayscale output: %w", err))
	}
	return pdfResult(in, out, "-grayscale.pdf", map[string]any{"pages": pages}), nil
}
