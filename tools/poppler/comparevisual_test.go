package poppler

import (
	"image"
	"image/color"
	"path/filepath"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// whitePage is a white grey image of w x h pixels.
func whitePage(w, h int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	return g
}

// memRows is a page image in memory, as pageRows.
type memRows struct{ g *image.Gray }

func (m memRows) rect() image.Rectangle { return m.g.Rect }

func (m memRows) rows(y0, y1 int) (*image.Gray, error) {
	return m.g.SubImage(image.Rect(0, y0, m.g.Rect.Dx(), y1)).(*image.Gray), nil
}

// decodeDiff writes the diff image of a and b and reads it back.
func decodeDiff(t *testing.T, a, b *image.Gray) image.Image {
	t.Helper()
	path := filepath.Join(t.TempDir(), "diff.png")
	if err := writeDiffImage(path, memRows{a}, memRows{b}); err != nil {
		t.Fatal(err)
	}
	return toolstest.DecodePNG(t, path)
}

// TestDiffImageBounded: the diff image of pages of different shapes
// covers both, so a page 14400 x 10 pt against one 10 x 14400 pt (each
// 10,000 x 7 pixels at 50 dpi, within every render cap) made a 10,000 x
// 10,000 RGBA image, 400 MB in the worker and more than the report may
// hold; a side of 65,000 pixels, which the caps allow, asked for 16 GB.
// The image is now drawn at most maxDiffPixels, each of its pixels
// standing for a square of the pages' pixels.
func TestDiffImageBounded(t *testing.T) {
	img := decodeDiff(t, whitePage(10_000, 7), whitePage(7, 10_000))
	b := img.Bounds()
	if b.Dx()*b.Dy() > 2_000_000 || b.Dx() != b.Dy() {
		t.Fatalf("diff image of %d x %d pixels", b.Dx(), b.Dy())
	}
	red := color.RGBA{R: 220, A: 255}
	for _, p := range []image.Point{{0, 0}, {b.Dx() - 1, 0}, {0, b.Dy() - 1}} {
		if got := color.RGBAModel.Convert(img.At(p.X, p.Y)); got != red {
			t.Errorf("pixel %v is %v, want red: one page only covers it", p, got)
		}
	}
	if got := color.RGBAModel.Convert(img.At(b.Dx()-1, b.Dy()-1)); got != (color.RGBA{255, 255, 255, 255}) {
		t.Errorf("a corner neither page covers is %v, want white", got)
	}
}

// TestDiffImageScaled: pages of 3000 x 3000 pixels that differ in one
// pixel give an image a third as wide, red at that pixel's place and
// the original faded elsewhere; pages of A4 at 50 dpi keep their size,
// pixel for pixel.
func TestDiffImageScaled(t *testing.T) {
	a, b := whitePage(3000, 3000), whitePage(3000, 3000)
	b.SetGray(1500, 1500, color.Gray{})
	img := decodeDiff(t, a, b)
	if img.Bounds() != image.Rect(0, 0, 1000, 1000) {
		t.Fatalf("bounds %v", img.Bounds())
	}
	if got := color.RGBAModel.Convert(img.At(500, 500)); got != (color.RGBA{R: 220, A: 255}) {
		t.Errorf("the differing pixel's place is %v", got)
	}
	if got := color.RGBAModel.Convert(img.At(10, 10)); got != (color.RGBA{255, 255, 255, 255}) {
		t.Errorf("an equal place is %v", got)
	}
	a, b = whitePage(414, 585), whitePage(414, 585)
	a.SetGray(3, 4, color.Gray{Y: 0})
	b.SetGray(3, 4, color.Gray{Y: 20})
	b.SetGray(7, 9, color.Gray{Y: 0})
	img = decodeDiff(t, a, b)
	if img.Bounds() != a.Rect {
		t.Fatalf("bounds %v", img.Bounds())
	}
	if got := color.RGBAModel.Convert(img.At(3, 4)); got != (color.RGBA{170, 170, 170, 255}) {
		t.Errorf("a dark pixel both have is %v, want faded", got)
	}
	if got := color.RGBAModel.Convert(img.At(7, 9)); got != (color.RGBA{R: 220, A: 255}) {
		t.Errorf("the differing pixel is %v", got)
	}
}
