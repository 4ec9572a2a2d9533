package pdfops

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// minCropPoints is the smallest width or height a crop may leave.
const minCropPoints = 1.0

// SetCropBoxStep is crop-pdf's step that sets the
// /CropBox of the chosen pages ("pages", every page by default), run in
// the PDF helper. Its params are in points, as crop-pdf converted them,
// and say the box one of three ways:
//   - "margins": "top,right,bottom,left", cut from each page's visible
//     box (its crop box within its media box) as the page is shown, its
//     /Rotate applied; margins that leave nothing are an invalid_parameter
//     error naming "margins";
//   - "box": "x1,y1,x2,y2", from the bottom-left corner of the page as
//     shown; a box outside the media box is an invalid_parameter error
//     naming "box";
//   - "drawn": "page:x1,y1,x2,y2;..." the box of what a page draws, as a
//     renderer that applies /Rotate reports it (Ghostscript's bbox
//     device) with "padding" added on each side and the result kept
//     within the visible box; pages not listed (blank ones) are left.
//
// Its output is the PDF, named after the input with "-cropped.pdf", with
// meta "pages" and "cropped_pages".
func SetCropBoxStep() *docmill.EngineStep {
	return onePDFStep("set-crop-box", model.CROP, runSetCropBox)
}

// cropSpec is a parsed request of SetCropBoxStep.
type cropSpec struct {
	margins, box []float64    // top,right,bottom,left; x1,y1,x2,y2
	drawn        map[int]rect // page → drawn box, as shown
	padding      float64
}

// rect is a rectangle llx, lly, urx, ury.
type rect struct{ llx, lly, urx, ury float64 }

func (r rect) width() float64  { return r.urx - r.llx }
func (r rect) height() float64 { return r.ury - r.lly }

func (r rect) intersect(o rect) rect {
	return rect{max(r.llx, o.llx), max(r.lly, o.lly), min(r.urx, o.urx), min(r.ury, o.ury)}
}

func runSetCropBox(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	spec, err := parseCropSpec(in.Params)
	if err != nil {
		return nil, err
	}
	pages, err := docmill.Pages(in.Params.PageRanges(pagesName), doc.PageCount)
	if err != nil {
		return nil, docmill.ParamError(pagesName, "%s", err)
	}
	n := 0
	for _, p := range pages {
		d, _, inh, err := doc.PageDict(p, false)
		if err != nil || d == nil || inh == nil || inh.MediaBox == nil {
			return nil, docmill.InvalidDocument(err, "Page %d of the file could not be read: it is damaged.", p)
		}
		box, ok, err := spec.cropBox(p, inh)
		if err != nil {
			return nil, err
		}
		if ok {
			d["CropBox"] = types.Array{types.Float(box.llx), types.Float(box.lly), types.Float(box.urx), types.Float(box.ury)}
			n++
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return cropped.output(doc, in, n)
}

// parseCropSpec reads the step's params; exactly one way is given.
func parseCropSpec(p docmill.Params) (*cropSpec, error) {
	s := &cropSpec{padding: p.Float(paddingParam)}
	var err error
	given := 0
	if p.Has(marginsParam) {
		given++
		if s.margins, err = parseNumbers(p.String(marginsParam), 4); err != nil {
			return nil, docmill.ParamError(marginsParam, "%s", err)
		}
	}
	if p.Has(boxParam) {
		given++
		if s.box, err = parseNumbers(p.String(boxParam), 4); err != nil {
			return nil, docmill.ParamError(boxParam, "%s", err)
		}
	}
	if p.Has(drawnParam) {
		given++
		if s.drawn, err = parseDrawn(p.String(drawnParam)); err != nil {
			return nil, fmt.Errorf("pdfops: crop: drawn boxes: %w", err)
		}
	}
	if given != 1 {
		return nil, fmt.Errorf("pdfops: crop: %d of margins, box and drawn given, want one", given)
	}
	return s, nil
}

// parseNumbers reads n comma-separated finite numbers.
func parseNumbers(s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("needs %d numbers separated by commas", n)
	}
	out := make([]float64, n)
	for i, part := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("has %q, which is not a number", strings.TrimSpace(part))
		}
		out[i] = v
	}
	return out, nil
}

// parseDrawn reads "page:x1,y1,x2,y2;...".
func parseDrawn(s string) (map[int]rect, error) {
	out := map[int]rect{}
	for _, entry := range strings.Split(s, ";") {
		if entry == "" {
			continue
		}
		page, box, ok := strings.Cut(entry, ":")
		p, err := strconv.Atoi(page)
		if !ok || err != nil || p < 1 {
			return nil, fmt.Errorf("entry %q", entry)
		}
		v, err := parseNumbers(box, 4)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", entry, err)
		}
		out[p] = rect{v[0], v[1], v[2], v[3]}
	}
	return out, nil
}

// cropBox returns the crop box of page p, whose inherited attributes are
// inh, and whether it is to be set.
func (s *cropSpec) cropBox(p int, inh *model.InheritedPageAttrs) (rect, bool, error) {
	media := normalized(inh.MediaBox)
	visible := media
	if inh.CropBox != nil {
		visible = normalized(inh.CropBox).intersect(media)
		if visible.width() <= 0 || visible.height() <= 0 {
			visible = media
		}
	}
	rot := ((inh.Rotate % 360) + 360) % 360
	rot -= rot % 90 // /Rotate is a multiple of 90
	switch {
	case s.margins != nil:
		// Margins as shown: the page's own top is shown on the side
		// its rotation turns it to.
		var m [4]float64
		for i := range m {
			m[i] = s.margins[(i+rot/90)%4]
		}
		box := rect{visible.llx + m[3], visible.lly + m[2], visible.urx - m[1], visible.ury - m[0]}
		if box.width() < minCropPoints || box.height() < minCropPoints {
			return rect{}, false, docmill.ParamError(marginsParam, "leave nothing of page %d, which is %s", p, sizeMM(visible, rot))
		}
		return box, true, nil
	case s.box != nil:
		box := fromShown(rect{s.box[0], s.box[1], s.box[2], s.box[3]}, media, rot)
		const slack = 0.01 // rounding of mm to points
		if box.llx < media.llx-slack || box.lly < media.lly-slack || box.urx > media.urx+slack || box.ury > media.ury+slack {
			return rect{}, false, docmill.ParamError(boxParam, "lies outside page %d, which is %s", p, sizeMM(media, rot))
		}
		return box.intersect(media), true, nil
	}
	d, ok := s.drawn[p]
	if !ok || d.width() <= 0 || d.height() <= 0 {
		return rect{}, false, nil // a blank page is left as it is
	}
	box := fromShown(d, media, rot)
	box = rect{box.llx - s.padding, box.lly - s.padding, box.urx + s.padding, box.ury + s.padding}.intersect(visible)
	if box.width() < minCropPoints || box.height() < minCropPoints {
		return rect{}, false, nil
	}
	return box, true, nil
}

// fromShown maps a box given on the page as shown (its rotation applied,
// origin at the shown bottom-left corner of the media box) to the page's
// own coordinates.
func fromShown(r, media rect, rot int) rect {
	w, h := media.width(), media.height()
	point := func(x, y float64) (float64, float64) {
		switch rot {
		case 90:
			return w - y, x
		case 180:
			return w - x, h - y
		case 270:
			return y, h - x
		}
		return x, y
	}
	x1, y1 := point(r.llx, r.lly)
	x2, y2 := point(r.urx, r.ury)
	return rect{media.llx + min(x1, x2), media.lly + min(y1, y2), media.llx + max(x1, x2), media.lly + max(y1, y2)}
}

func normalized(r *types.Rectangle) rect {
	return rect{min(r.LL.X, r.UR.X), min(r.LL.Y, r.UR.Y), max(r.LL.X, r.UR.X), max(r.LL.Y, r.UR.Y)}
}

// sizeMM words a page's size as shown, in millimetres, for messages.
func sizeMM(r rect, rot int) string {
	w, h := r.width(), r.height()
	if rot%180 != 0 {
		w, h = h, w
	}
	return fmt.Sprintf("%.0f x %.0f mm", w*25.4/72, h*25.4/72)
}
