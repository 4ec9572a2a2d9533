package pdfops

import (
	"fmt"
	"math"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// This file places stamps: where on a page the stamping tools' positions
// are, on upright, rotated and cropped pages alike.

// stampSpot is a position on a page as a reader sees it: x is -1 (left),
// 0 (center) or 1 (right); y is -1 (bottom), 0 (middle) or 1 (top).
type stampSpot struct{ x, y int }

// stampPositions are the position names the stamping tools accept, in the
// order the catalogue lists them.
var stampPositions = []struct {
	name string
	spot stampSpot
}{
	{"top-left", stampSpot{-1, 1}},
	{"top-center", stampSpot{0, 1}},
	{"top-right", stampSpot{1, 1}},
	{"center-left", stampSpot{-1, 0}},
	{"center", stampSpot{0, 0}},
	{"center-right", stampSpot{1, 0}},
	{"bottom-left", stampSpot{-1, -1}},
	{"bottom-center", stampSpot{0, -1}},
	{"bottom-right", stampSpot{1, -1}},
}

// stampPositionNames returns the accepted position names; only the top
// and bottom rows when headerFooterOnly is set (page numbers go in a
// header or footer).
func stampPositionNames(headerFooterOnly bool) []string {
	var out []string
	for _, p := range stampPositions {
		if !headerFooterOnly || p.spot.y != 0 {
			out = append(out, p.name)
		}
	}
	return out
}

// stampSpotNamed returns the spot for a position name. The name passed
// the tool's enum (stampPositionNames), so it is found; one that is not
// is a caller that skipped ParseParams.
func stampSpotNamed(name string) stampSpot {
	for _, p := range stampPositions {
		if p.name == name {
			return p.spot
		}
	}
	panic(fmt.Sprintf("pdfops: position %q was not validated", name))
}

// anchor returns pdfcpu's anchor for s.
func (s stampSpot) anchor() types.Anchor {
	return [3][3]types.Anchor{
		{types.BottomLeft, types.BottomCenter, types.BottomRight},
		{types.Left, types.Center, types.Right},
		{types.TopLeft, types.TopCenter, types.TopRight},
	}[s.y+1][s.x+1]
}

// unrotated returns where s, as seen on a page the viewer shows turned by
// rot degrees clockwise, is on the page before that turn. At 90 degrees
// the page's right edge is shown at the bottom, so the bottom center is
// the unturned page's center right.
func (s stampSpot) unrotated(rot int) stampSpot {
	switch rot {
	case 90:
		return stampSpot{-s.y, s.x}
	case 180:
		return stampSpot{-s.x, -s.y}
	case 270:
		return stampSpot{s.y, -s.x}
	}
	return s
}

// stampPage is a page as a reader sees it: its crop box, shown turned by
// rot degrees clockwise (0, 90, 180 or 270), which makes it width by
// height points.
type stampPage struct {
	width, height float64
	rot           int
}

// stampPageSizes returns every page, page 1 first.
func stampPageSizes(doc *model.Context) ([]stampPage, error) {
	pbs, err := doc.PageBoundaries(nil)
	if err != nil {
		return nil, err
	}
	out := make([]stampPage, len(pbs))
	for i, pb := range pbs {
		box := pb.CropBox()
		if box == nil || box.Width() <= 0 || box.Height() <= 0 {
			return nil, fmt.Errorf("page %d has no usable page box", i+1)
		}
		rot := (pb.Rot%360 + 360) % 360
		if rot%90 != 0 {
			return nil, fmt.Errorf("page %d has rotation %d", i+1, pb.Rot)
		}
		out[i] = stampPage{box.Width(), box.Height(), rot}
		if rot%180 != 0 {
			out[i].width, out[i].height = box.Height(), box.Width()
		}
	}
	return out, nil
}

// margin is the distance kept between a stamp and the page edges when it
// is not centered: about 1 cm, less on small pages.
func (p stampPage) margin() float64 { return min(28, 0.05*min(p.width, p.height)) }

// unrotatedAngle returns the angle (counter-clockwise, -180 to 180) at
// which to draw on the unturned page text that should be seen at angle on
// a page shown turned by rot degrees clockwise.
func unrotatedAngle(angle float64, rot int) float64 {
	a := math.Mod(angle+float64(rot), 360)
	switch {
	case a > 180:
		a -= 360
	case a <= -180:
		a += 360
	}
	return a
}

// rotatedSize returns the extent of a w by h box turned by angle degrees.
func rotatedSize(w, h, angle float64) (float64, float64) {
	sin, cos := math.Abs(math.Sin(angle*math.Pi/180)), math.Abs(math.Cos(angle*math.Pi/180))
	return w*cos + h*sin, w*sin + h*cos
}

// stampOffset returns how far pdfcpu must move a w by h text box, drawn
// turned by angle at spot, from its anchor so that the turned text keeps
// margin from the page edges the spot touches. pdfcpu centers turned text
// on the unturned box it anchors, except at +-90 degrees, where it aligns
// the turned box with the page edges itself.
func stampOffset(spot stampSpot, angle, w, h, margin float64) (dx, dy float64) {
	x, y := float64(spot.x), float64(spot.y)
	if spot != (stampSpot{}) && (angle == 90 || angle == -90) {
		return -x * margin, -y * margin
	}
	rw, rh := rotatedSize(w, h, angle)
	return -x * (margin + (rw-w)/2), -y * (margin + (rh-h)/2)
}
