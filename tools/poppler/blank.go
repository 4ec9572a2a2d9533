package poppler

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/filecopy"
)

// How remove-blank-pages looks at a page: rendered in grey at blankDPI
// (an A4 page is 166 x 234 pixels, so even a 2,000-page document is
// quick to draw), a pixel is ink when it is darker than inkLevel (of
// 255: a 22% grey). At that resolution a glyph of 24-point text leaves a
// few such pixels and a word of it dozens, while the tone of scanned
// paper (usually lighter than 220) and its specks of dust, averaged over
// a pixel 1.3 mm wide, stay lighter; so does a lone 8-point digit.
const (
	blankDPI = 20
	inkLevel = 200
	// defaultThreshold is the share of ink, in percent, up to which a
	// page is blank: 0.01% is 4 pixels of an A4 page, fewer than a
	// single small letter leaves (a 24-point "i" leaves 5, a full stop
	// 1).
	defaultThreshold = "0.01"
	// maxThreshold bounds the threshold param: a page with more ink than
	// 10% is text, not blank; a bound on a param, not a cost.
	maxThreshold = 10
)

func removeBlankTool(e Engines, limits docmill.Limits, steps Steps) *docmill.Tool {
	return engineTool(docmill.Tool{
		Slug:  "remove-blank-pages",
		Title: "Remove blank pages",
		Description: "Remove the pages that hold (almost) nothing: each page is drawn in grey at 20 dpi, and it is " +
			"blank when at most `threshold` percent of its pixels are darker than a 22% grey. " +
			"A document whose every page is blank is refused, since a PDF needs a page. " +
			fmt.Sprintf("At most %d pages.", limits.RenderPages),
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the result."},
			{Name: "input_pages", Type: docmill.MetaInteger, Description: "Pages of the input."},
			{Name: "removed", Type: docmill.MetaInteger, Description: "Blank pages removed."},
			{Name: "removed_pages", Type: docmill.MetaIntegers, Description: "The numbers of the removed pages, in the input, in order."},
		},
		Params: []docmill.Param{{
			Name: paramThreshold, Type: docmill.TypeNumber, Default: defaultThreshold,
			Min: docmill.Bound(0), Max: docmill.Bound(maxThreshold),
			Description: "The share of a page's pixels, in percent, that may be ink (darker than a 22% grey, the page " +
				"drawn in grey at 20 dpi, where an A4 page is 166 x 234 pixels) for the page to count as blank: " +
				"0 removes only pages without any ink; 0.01 (the default, 4 pixels of A4) also pages with a speck " +
				"or a stray dot; 1 (390 pixels of A4) also pages with a short line of text, such as a page number. " +
				"At 20 dpi a lone mark smaller than 10-point text may leave no ink at all.",
		}},
		Outputs:   []string{pdfContentType},
		Available: func() bool { return steps.SelectPages != nil },
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return runRemoveBlank(ctx, e, limits, steps, in)
		},
	}, e.PDFToPPM, e.PDFInfo)
}

// runRemoveBlank finds the blank pages (findBlank) and keeps the others
// with the SelectPages step. A document without blank pages comes back
// as it was, byte for byte. When every page is blank nothing can be
// returned: a document without any ink is invalid_document, and one whose
// pages all fall under the threshold only because it is high is
// invalid_parameter naming threshold.
func runRemoveBlank(ctx context.Context, e Engines, limits docmill.Limits, steps Steps, in *docmill.RunInput) (*docmill.RunOutput, error) {
	if !e.PDFToPPM.Available() || steps.SelectPages == nil {
		return nil, engineError(sandbox.ErrUnavailable, "")
	}
	f := in.Files[0]
	src, dir, err := absPaths(in)
	if err != nil {
		return nil, err
	}
	threshold := in.Params.Float(paramThreshold)
	ink, err := inkShares(ctx, e, limits, src, dir)
	if err != nil {
		return nil, err
	}
	var keep []int
	removed := []int{} // a list in the job's meta even when empty
	anyInk := false
	for i, share := range ink {
		anyInk = anyInk || share > 0
		if share*100 <= threshold {
			removed = append(removed, i+1)
		} else {
			keep = append(keep, i+1)
		}
	}
	switch {
	case len(keep) == 0 && !anyInk:
		return nil, docmill.Errorf(docmill.CodeInvalidDocument, "Every page is blank; a PDF needs at least one page.")
	case len(keep) == 0:
		return nil, docmill.ParamError(paramThreshold, "counts every page as blank, so none would be left; lower it")
	}
	meta := map[string]any{"pages": len(keep), "input_pages": len(ink), "removed": len(removed), "removed_pages": removed}
	out := &docmill.RunOutput{Filename: docmill.ResultName(f.Filename, ".pdf", "-no-blank.pdf"), ContentType: pdfContentType, Meta: meta}
	if len(removed) == 0 {
		out.Path = filepath.Join(dir, "no-blank.pdf")
		if err := filecopy.Copy(src, out.Path); err != nil {
			return nil, docmill.Internal(err)
		}
		return out, nil
	}
	sel, err := steps.SelectPages(ctx, &docmill.RunInput{Files: []docmill.LocalFile{f}, WorkDir: in.WorkDir,
		Limits: in.Limits, Params: docmill.Params{"pages": docmill.FormatPages(keep)}})
	if err != nil {
		return nil, err
	}
	out.Path = sel.Path
	return out, nil
}

// inkShares renders every page of the PDF at src in grey at blankDPI and
// returns the share of ink pixels of each, by page index. A document of
// more pages than limits.RenderPages is refused before anything is drawn.
func inkShares(ctx context.Context, e Engines, limits docmill.Limits, src, dir string) ([]float64, error) {
	count, sizes, err := pageInfo(ctx, e.PDFInfo, src, dir, limits.RenderPages)
	if err != nil {
		return nil, err
	}
	if count > limits.RenderPages {
		return nil, docmill.LimitExceeded(fmt.Sprintf("The document has %d pages; blank pages are looked for in at most %d", count, limits.RenderPages))
	}
	pages := make([]int, count)
	for i := range pages {
		pages[i] = i + 1
	}
	if err := checkPixels(limits, pages, sizes, blankDPI); err != nil {
		return nil, err
	}
	r := renderer{engine: e.PDFToPPM, src: src, dir: dir, args: []string{"-r", strconv.Itoa(blankDPI), "-cropbox", "-gray"}}
	images, err := r.renderAll(ctx, splitRuns(pages, e.PDFToPPM.Slots()), e.PDFToPPM.Slots())
	if err != nil {
		return nil, err
	}
	shares := make([]float64, count)
	for i, p := range pages {
		w, h := sizes[p].pixels(blankDPI)
		if shares[i], err = inkShare(images[p], int(w), int(h)); err != nil {
			return nil, err
		}
	}
	return shares, nil
}
