package poppler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// Bounds of the boxes param. A side of maxBoxSide points is 200 inches,
// the largest page PDF readers draw at a user unit of 1.
const (
	maxRedactBoxParams = 1000
	maxBoxesParamLen   = 200_000
	maxBoxSide         = 14_400
)

// redactBox is one area the client gives, as the boxes param reads.
type redactBox struct {
	Page   int      `json:"page"`
	X      *float64 `json:"x"`
	Y      *float64 `json:"y"`
	Width  float64  `json:"width"`
	Height float64  `json:"height"`
}

// parseRedactBoxes reads the boxes param: a JSON list of areas, each on a
// page from 1, with a corner within maxBoxSide and a positive size.
func parseRedactBoxes(v string) ([]redactBox, error) {
	var boxes []redactBox
	if err := json.Unmarshal([]byte(v), &boxes); err != nil {
		return nil, docmill.ParamError(paramBoxes, `is not a JSON list of {"page", "x", "y", "width", "height"}`)
	}
	if len(boxes) > maxRedactBoxParams {
		return nil, docmill.ParamError(paramBoxes, "holds %d boxes; at most %d", len(boxes), maxRedactBoxParams)
	}
	inside := func(f float64) bool { return f >= 0 && f <= maxBoxSide }
	for i, b := range boxes {
		switch {
		case b.Page < 1 || b.Page > docmill.MaxPageNumber:
			return nil, docmill.ParamError(paramBoxes, "box %d: page must be a page number from 1", i+1)
		case b.X == nil || b.Y == nil || !inside(*b.X) || !inside(*b.Y):
			return nil, docmill.ParamError(paramBoxes, "box %d: x and y are required, from 0 to %d points", i+1, maxBoxSide)
		case !(b.Width > 0) || !(b.Height > 0) || !inside(b.Width) || !inside(b.Height):
			return nil, docmill.ParamError(paramBoxes, "box %d: width and height must be above 0 and at most %d points", i+1, maxBoxSide)
		}
	}
	return boxes, nil
}

func checkRedactBoxes(v string) error {
	_, err := parseRedactBoxes(v)
	return err
}

// findRedactions returns, by page (layoutScan.pages), what to black out
// in the document of count pages at src, and the texts matched: the words that match the text params on the pages
// the "pages" param selects, and the boxes param's areas. A box on a page
// past the last is invalid_parameter.
func findRedactions(ctx context.Context, pdftotext *sandbox.Engine, src, dir string, count int, p docmill.Params, maxLayout int64) (*layoutScan, error) {
	s := &layoutScan{match: newTextMatcher(p), pages: map[int]*pageRedactions{}, texts: map[string]bool{}}
	if !s.match.empty() {
		sel, err := docmill.Pages(p.PageRanges(paramPages), count)
		if err != nil {
			return nil, docmill.ParamError(paramPages, "%s", err)
		}
		s.search = map[int]bool{}
		for _, n := range sel {
			s.search[n] = true
		}
		first, last := slices.Min(sel), slices.Max(sel)
		path, err := writeLayout(ctx, pdftotext, src, dir, first, last, maxLayout)
		if err != nil {
			return nil, err
		}
		err = s.scan(path, first)
		os.Remove(path)
		if err != nil {
			var de *docmill.Error
			if errors.As(err, &de) {
				return nil, err
			}
			return nil, docmill.InvalidDocument(err, "The text of the document could not be read.")
		}
	}
	if p.Has(paramBoxes) {
		boxes, _ := parseRedactBoxes(p.String(paramBoxes)) // validated by ParseParams
		for _, b := range boxes {
			if b.Page > count {
				return nil, docmill.ParamError(paramBoxes, "names page %d; the document has %d", b.Page, count)
			}
			pr := s.pages[b.Page]
			if pr == nil {
				pr = &pageRedactions{}
				s.pages[b.Page] = pr
			}
			pr.boxes = append(pr.boxes, rect{*b.X, *b.Y, *b.X + b.Width, *b.Y + b.Height})
			pr.count++
		}
	}
	return s, ctx.Err()
}

// writeLayout runs pdftotext -bbox-layout on pages first to last of the
// PDF at src, with boxes relative to each page's crop box as shown, into
// a file of dir, capped at maxBytes (Limits.LayoutBytes), and returns its
// path.
func writeLayout(ctx context.Context, pdftotext *sandbox.Engine, src, dir string, first, last int, maxBytes int64) (string, error) {
	path := filepath.Join(dir, "redact-layout.xhtml")
	args := layoutArgs(src, "-cropbox", "-f", strconv.Itoa(first), "-l", strconv.Itoa(last))
	tooLarge := docmill.Errorf(docmill.CodeFileTooLarge, "The text of the document is too large to search (over %d MB of layout).", maxBytes>>20)
	return path, runPDFToText(ctx, pdftotext, dir, path, args, maxBytes, tooLarge, "reading its text")
}

// redactResolution returns the dpi to draw pages at: redactDPI, or lower
// when a page would pass the per-page caps of limits at it. More pages
// than limits.RenderPages, a page too large even at minDPI, or pages
// together over limits.RenderPixelsTotal are refused. sizes holds the
// first pages' sizes; those of pages further in are asked for.
func redactResolution(ctx context.Context, pdfinfo *sandbox.Engine, src, dir string, limits docmill.Limits, pages []int, sizes map[int]pageSize) (int, error) {
	if len(pages) > limits.RenderPages {
		return 0, docmill.LimitExceeded(fmt.Sprintf("%d pages have something to black out; at most %d pages can be redacted", len(pages), limits.RenderPages))
	}
	if last := pages[len(pages)-1]; last > limits.RenderPages {
		more, err := pageSizes(ctx, pdfinfo, src, dir, pages[0], last)
		if err != nil {
			return 0, err
		}
		for p, s := range more {
			sizes[p] = s
		}
	}
	dpi := redactDPI
	for _, p := range pages {
		s, ok := sizes[p]
		if !ok || s.w == 0 || s.h == 0 {
			return 0, docmill.Errorf(docmill.CodeInvalidDocument, "Page %d has no usable size; the document is damaged.", p)
		}
		dpi = min(dpi, fittingDPI(limits, s))
	}
	if dpi < minDPI {
		return 0, docmill.Errorf(docmill.CodeInvalidDocument, "A page to redact is too large to draw within this server's limits.")
	}
	var total int64
	for _, p := range pages {
		w, h := sizes[p].pixels(dpi)
		total += w * h
	}
	if total > limits.RenderPixelsTotal {
		return 0, docmill.LimitExceeded(fmt.Sprintf("The %d pages to redact would be %s at %d dpi, above the limit of %s", len(pages), pixelCount(total), dpi, pixelCount(limits.RenderPixelsTotal)))
	}
	return dpi, nil
}

// drawRedacted renders pages with pdftoppm at dpi and paints each one's
// boxes black, and returns the PNGs, in the order of pages.
func drawRedacted(ctx context.Context, pdftoppm *sandbox.Engine, src, dir string, dpi int, pages []int, sizes map[int]pageSize, found map[int]*pageRedactions) ([]docmill.LocalFile, error) {
	r := renderer{engine: pdftoppm, src: src, dir: dir, args: []string{"-r", strconv.Itoa(dpi), "-cropbox"}}
	ppms, err := r.renderAll(ctx, splitRuns(pages, pdftoppm.Slots()), pdftoppm.Slots())
	if err != nil {
		return nil, err
	}
	files := make([]docmill.LocalFile, len(pages))
	for i, p := range pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		w, h := sizes[p].pixels(dpi)
		path := filepath.Join(dir, fmt.Sprintf("redacted-page-%d.png", p))
		if err := blackOut(ppms[p], path, w, h, dpi, found[p].boxes); err != nil {
			return nil, err
		}
		st, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("poppler: page image: %w", err)
		}
		files[i] = docmill.LocalFile{Path: path, Filename: filepath.Base(path), ContentType: "image/png", Size: st.Size()}
	}
	return files, nil
}
