package ghostscript

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// pointsPerMM converts crop-pdf's millimetres to PDF points.
const pointsPerMM = 72 / 25.4

// Bounds of crop-pdf's lengths, in millimetres: a margin or a corner
// beyond 5 m is a typing error, not a page.
const (
	maxCropMM    = 5000
	maxPaddingMM = 100
)

// bboxResolution is the resolution, in dpi, Ghostscript's bbox device
// draws at: fine enough that the box is within a point of the drawing,
// coarse enough that a long document is measured in seconds (its default
// of 4000 dpi took GeoTopo-komprimiert.pdf, 117 pages, 4x as long).
const bboxResolution = "-r144"

// cropTool declares crop-pdf: it sets the crop box of a PDF's pages from
// margins, a box, or the drawn area found by Ghostscript's bbox device
// (auto), written by the SetCropBox step.
func (e *engines) cropTool() *docmill.Tool {
	return e.tool(docmill.Tool{
		Slug:  "crop-pdf",
		Lane:  docmill.LaneRender,
		Title: "Crop PDF",
		Description: "Crop the pages of a PDF: cut margins off each page, keep a box, or trim the white margins " +
			"around what the page draws (auto). The pages' content is kept; only the visible area (the crop box) changes.",
		Params: []docmill.Param{
			{Name: paramMargins, Type: docmill.TypeString, Max: docmill.Bound(100), Check: checkLengths(paramMargins, 1, 4), Example: "10",
				Description: `Millimetres to cut from each page as shown: "top,right,bottom,left", or one number for all four, such as "10".`},
			{Name: paramBox, Type: docmill.TypeString, Max: docmill.Bound(100), Check: checkBox,
				Description: `The area to keep, "x1,y1,x2,y2" in millimetres from the bottom-left corner of the page as shown, such as "20,20,190,277".`},
			{Name: paramAuto, Type: docmill.TypeBoolean, Default: "false",
				Description: "Trim the white margins: keep what the page draws, with padding around it. Blank pages are left as they are."},
			{Name: paramPadding, Type: docmill.TypeNumber, Min: docmill.Bound(0), Max: docmill.Bound(maxPaddingMM),
				Description: "With auto, millimetres of margin kept around what the page draws; 2 by default."},
			{Name: paramPages, Type: docmill.TypePages, Default: "all", Description: `Pages to crop, such as "1-3,5,8-"; all pages by default.`},
		},
		CheckParams: checkCropParams,
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."},
			{Name: "cropped_pages", Type: docmill.MetaInteger, Description: "Pages whose crop box was set."},
		},
		Engine:    "ghostscript",
		Available: func() bool { return e.steps.SetCropBox != nil && e.available() },
		Run:       e.runCrop,
	})
}

// defaultPaddingMM is auto's padding when none is given.
const defaultPaddingMM = 2

// checkCropParams holds crop-pdf to exactly one way of cropping, and
// padding to auto.
func checkCropParams(p docmill.Params) error {
	n := 0
	for _, given := range []bool{p.Has(paramMargins), p.Has(paramBox), p.Bool(paramAuto)} {
		if given {
			n++
		}
	}
	switch {
	case n == 0:
		return docmill.ParamError(paramMargins, "or box, or auto=true, is required")
	case n > 1:
		return docmill.ParamError(paramAuto, "margins, box and auto=true exclude each other: give one")
	case p.Has(paramPadding) && !p.Bool(paramAuto):
		return docmill.ParamError(paramPadding, "applies only with auto=true")
	}
	return nil
}

// parseLengths reads 1 or 4 (or exactly n) comma-separated millimetre
// values within 0 and maxCropMM.
func parseLengths(s string, counts ...int) ([]float64, error) {
	parts := strings.Split(s, ",")
	ok := false
	for _, c := range counts {
		ok = ok || len(parts) == c
	}
	if !ok {
		return nil, fmt.Errorf("needs %s numbers (millimetres) separated by commas", strings.Trim(strings.ReplaceAll(fmt.Sprint(counts), " ", " or "), "[]"))
	}
	out := make([]float64, len(parts))
	for i, part := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > maxCropMM {
			return nil, fmt.Errorf("has %q: each value is a number of millimetres from 0 to %d", strings.TrimSpace(part), maxCropMM)
		}
		out[i] = v
	}
	return out, nil
}

func checkLengths(field string, counts ...int) func(string) error {
	return func(v string) error {
		if _, err := parseLengths(v, counts...); err != nil {
			return docmill.ParamError(field, "%s", err)
		}
		return nil
	}
}

func checkBox(v string) error {
	b, err := parseLengths(v, 4)
	if err != nil {
		return docmill.ParamError(paramBox, "%s", err)
	}
	if b[2] <= b[0] || b[3] <= b[1] {
		return docmill.ParamError(paramBox, "needs x2 > x1 and y2 > y1 (x1,y1 the bottom-left corner, x2,y2 the top-right)")
	}
	return nil
}

// points writes millimetre values as the step's comma-separated points.
func points(mm []float64) string {
	parts := make([]string, len(mm))
	for i, v := range mm {
		parts[i] = strconv.FormatFloat(v*pointsPerMM, 'f', 3, 64)
	}
	return strings.Join(parts, ",")
}

// runCrop turns crop-pdf's params into the step's, measuring the drawn
// area of every page with Ghostscript for auto.
func (e *engines) runCrop(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	if e.steps.SetCropBox == nil {
		return nil, failure(sandbox.ErrUnavailable, msgDamaged)
	}
	step := docmill.Params{"pages": in.Params.String(paramPages)}
	switch {
	case in.Params.Has(paramMargins):
		m, _ := parseLengths(in.Params.String(paramMargins), 1, 4) // checked by the param
		if len(m) == 1 {
			m = []float64{m[0], m[0], m[0], m[0]}
		}
		step["margins"] = points(m)
	case in.Params.Has(paramBox):
		b, _ := parseLengths(in.Params.String(paramBox), 4)
		step["box"] = points(b)
	default:
		path, err := e.checkInput(ctx, in.Files[0], in.WorkDir)
		if err != nil {
			return nil, err
		}
		drawn, err := e.drawnBoxes(ctx, path, in.WorkDir, in.Params.PageRanges(paramPages))
		if err != nil {
			return nil, err
		}
		padding := float64(defaultPaddingMM)
		if in.Params.Has(paramPadding) {
			padding = in.Params.Float(paramPadding)
		}
		step["drawn"] = drawn
		step["padding"] = strconv.FormatFloat(padding*pointsPerMM, 'f', 3, 64)
	}
	return e.steps.SetCropBox(ctx, &docmill.RunInput{Files: in.Files, WorkDir: in.WorkDir, Limits: in.Limits, Params: step})
}

// bboxRunPages bounds the pages one bbox run measures. Ghostscript
// writes the boxes to standard error, of which the sandbox keeps only the
// last 16 KiB; 64 pages' boxes take about 8 KiB, leaving room for
// warnings.
const bboxRunPages = 64

// drawnBoxes measures, with Ghostscript's bbox device, the box of what
// each selected page draws and returns them as the step's "drawn" param:
// "page:x1,y1,x2,y2;..." in points, in the page as shown (Ghostscript
// applies /Rotate), from the bottom-left corner of its media box. A blank
// page reports an empty box; a page whose box could not be read is left
// out, and so left as it is.
func (e *engines) drawnBoxes(ctx context.Context, path, dir string, ranges []docmill.PageRange) (string, error) {
	n, err := e.pageCount(ctx, path, dir)
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", failure(err, msgDamaged)
	}
	pages, err := docmill.Pages(ranges, n)
	if err != nil {
		return "", docmill.ParamError(paramPages, "%s", err)
	}
	slices.Sort(pages)
	pages = slices.Compact(pages)
	var b strings.Builder
	for len(pages) > 0 {
		// A run of consecutive pages, at most bboxRunPages.
		k := 1
		for k < len(pages) && k < bboxRunPages && pages[k] == pages[k-1]+1 {
			k++
		}
		first, last := pages[0], pages[k-1]
		pages = pages[k:]
		boxes, err := e.bbox(ctx, path, dir, first, last)
		if err != nil {
			return "", err
		}
		if len(boxes) == 0 {
			// Not even the last page's box: Ghostscript drew nothing.
			return "", docmill.Errorf(docmill.CodeInvalidDocument, "%s", msgDamaged)
		}
		if len(boxes) != last-first+1 {
			// Warnings pushed boxes out of what the sandbox keeps of
			// standard error: measure those pages one at a time.
			for p := first; p <= last; p++ {
				one, err := e.bbox(ctx, path, dir, p, p)
				if err != nil {
					return "", err
				}
				if len(one) == 1 {
					fmt.Fprintf(&b, "%d:%s;", p, one[0])
				}
			}
			continue
		}
		for i, box := range boxes {
			fmt.Fprintf(&b, "%d:%s;", first+i, box)
		}
	}
	return b.String(), nil
}

// bbox runs the bbox device on pages first to last and returns the boxes
// it reported, "x1,y1,x2,y2" each, in order.
func (e *engines) bbox(ctx context.Context, path, dir string, first, last int) ([]string, error) {
	args := []string{"-dSAFER", "-dBATCH", "-dNOPAUSE", "-dQUIET", "-sDEVICE=bbox", bboxResolution,
		"-dFirstPage=" + strconv.Itoa(first), "-dLastPage=" + strconv.Itoa(last), path}
	res, err := e.gs.Run(ctx, sandbox.Cmd{Args: args, Dir: dir})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, failure(err, msgDamaged)
	}
	if noPages(res) {
		return nil, gsFailure(errNoPages, msgDamaged)
	}
	var boxes []string
	for _, line := range bytes.Split(res.Stderr, []byte("\n")) {
		rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("%%HiResBoundingBox:"))
		if !ok {
			continue
		}
		v := strings.Fields(string(rest))
		if len(v) != 4 {
			continue // a line cut by the start of what was kept
		}
		boxes = append(boxes, strings.Join(v, ","))
	}
	return boxes, nil
}
