package poppler

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strconv"

	docmill "github.com/docmill/docmill"
)

// How compare-pdf compares the look of pages: both documents are drawn
// in grey at compareDPI (an A4 page is 414 x 585 pixels), and a pixel
// differs when its two values are more than pixelTolerance (of 255)
// apart, which absorbs anti-aliasing noise but not a line or a letter.
// A page differs when any pixel does, or when its size does. At most
// maxDiffImages differing pages get a diff image in the report.
const (
	compareDPI     = 50
	pixelTolerance = 40
	maxDiffImages  = 100
	// maxDiffPixels bounds one diff image. It covers both pages, so its
	// size is the larger width by the larger height: a page 65,000
	// pixels wide and one as tall, each within the render caps, would
	// ask for 65,000 x 65,000. A larger image is drawn at an integer
	// fraction of the pages' size (diffScale). An A4 page at compareDPI
	// is 242,190 pixels, A0 about 3.9 million; 2 million RGBA pixels are
	// 8 MB here and about 6 MB decoded in the report, 100 images within
	// its job's decoded bytes.
	maxDiffPixels = 2_000_000
)

// visualDiff is what the look of two documents' pages tells.
type visualDiff struct {
	differing []int          // pages, in both documents, that look different
	images    map[int]string // diff images of the first maxDiffImages of them
}

// compareRenderings draws the pages both documents have (the first
// common pages) and compares them pixel by pixel. sizes are pdfinfo's
// page sizes of the two documents.
func compareRenderings(ctx context.Context, e Engines, limits docmill.Limits, srcs [2]string, dir string, common int, sizes [2]map[int]pageSize, labels [2]string) (*visualDiff, error) {
	pages := make([]int, common)
	for i := range pages {
		pages[i] = i + 1
	}
	var rendered [2]map[int]string
	for d := range 2 {
		if err := checkPixels(limits, pages, sizes[d], compareDPI); err != nil {
			return nil, namedError(docmill.Errorf(docmill.CodeInvalidDocument, "The pages are too large to compare."), labels[d])
		}
		r := renderer{engine: e.PDFToPPM, src: srcs[d], dir: dir, args: []string{"-r", strconv.Itoa(compareDPI), "-cropbox", "-gray"}}
		images, err := r.renderAll(ctx, splitRuns(pages, e.PDFToPPM.Slots()), e.PDFToPPM.Slots())
		if err != nil {
			return nil, namedError(err, labels[d])
		}
		if rendered[d], err = moveRenders(images, dir, d); err != nil {
			return nil, err
		}
	}
	v := &visualDiff{images: map[int]string{}}
	for _, p := range pages {
		a, err := readPageImage(rendered[0][p], sizes[0][p])
		if err != nil {
			return nil, err
		}
		b, err := readPageImage(rendered[1][p], sizes[1][p])
		if err != nil {
			return nil, err
		}
		if samePixels(a, b) {
			continue
		}
		v.differing = append(v.differing, p)
		if len(v.images) < maxDiffImages {
			path := filepath.Join(dir, fmt.Sprintf("compare-diff-%05d.png", p))
			if err := writeDiffImage(path, a, b); err != nil {
				return nil, err
			}
			v.images[p] = path
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// moveRenders moves the directories the renderer wrote pages of document
// d into (render-000, ...) to names of their own (compare-0-render-000),
// so that the other document's renderer can use the same work directory
// (the only one the engine's jail shows it), and returns the pages' new
// paths.
func moveRenders(images map[int]string, dir string, d int) (map[int]string, error) {
	moved := map[string]string{}
	out := make(map[int]string, len(images))
	for p, path := range images {
		from := filepath.Dir(path)
		to, ok := moved[from]
		if !ok {
			to = filepath.Join(dir, fmt.Sprintf("compare-%d-%s", d, filepath.Base(from)))
			if err := os.Rename(from, to); err != nil {
				return nil, fmt.Errorf("poppler: move renders: %w", err)
			}
			moved[from] = to
		}
		out[p] = filepath.Join(to, filepath.Base(path))
	}
	return out, nil
}

// readPageImage reads (and removes) the grey page pdftoppm drew of a
// page of size s, checked as inkShare checks it.
func readPageImage(path string, s pageSize) (*image.Gray, error) {
	defer os.Remove(path)
	w, h := s.pixels(compareDPI)
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("poppler: page image: %w", err)
	}
	if limit := (w+2)*(h+2) + 64; st.Size() > limit {
		return nil, fmt.Errorf("poppler: page image of %d bytes, above the %d of a %dx%d page", st.Size(), limit, w, h)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("poppler: page image: %w", err)
	}
	width, height, pix, err := netpbm(b, "P5", 1)
	if err != nil {
		return nil, err
	}
	return &image.Gray{Pix: pix, Stride: width, Rect: image.Rect(0, 0, width, height)}, nil
}

// samePixels reports whether two page images have one size and no pixel
// more than pixelTolerance apart.
func samePixels(a, b *image.Gray) bool {
	if a.Rect != b.Rect {
		return false
	}
	for i, v := range a.Pix {
		if absDiff(v, b.Pix[i]) > pixelTolerance {
			return false
		}
	}
	return true
}

func absDiff(x, y uint8) int {
	if x > y {
		return int(x - y)
	}
	return int(y - x)
}

// writeDiffImage writes a PNG covering both pages, the larger width by
// the larger height, at most maxDiffPixels (diffScale): the original
// faded to a light grey, and in red every pixel that differs (including
// those only one of the pages covers). Scaled down, each pixel of the
// image stands for a square of the pages' pixels (diffColor).
func writeDiffImage(path string, a, b *image.Gray) error {
	w, h := max(a.Rect.Dx(), b.Rect.Dx()), max(a.Rect.Dy(), b.Rect.Dy())
	n := diffScale(w, h)
	img := image.NewRGBA(image.Rect(0, 0, ceilDiv(w, n), ceilDiv(h, n)))
	for y := range img.Rect.Dy() {
		for x := range img.Rect.Dx() {
			img.SetRGBA(x, y, diffColor(a, b, image.Rect(x*n, y*n, (x+1)*n, (y+1)*n)))
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("poppler: diff image: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("poppler: diff image: %w", err)
	}
	return f.Close()
}

// diffScale returns the smallest f for which a diff image of w x h
// pixels, each side divided by f and rounded up, holds at most
// maxDiffPixels.
func diffScale(w, h int) int {
	f := 1
	for int64(ceilDiv(w, f))*int64(ceilDiv(h, f)) > maxDiffPixels {
		f++
	}
	return f
}

func ceilDiv(n, d int) int { return (n + d - 1) / d }

// diffColor is the colour of the diff image's pixel standing for block
// of the pages' pixels: red when one page only covers part of it or
// any pixel in it differs, the original's mean grey faded when both
// cover it and none differs, white when neither covers it. Only the
// pixels the pages hold are read, so drawing the image costs at most
// the pages' pixels, whatever the size of the area they span together.
func diffColor(a, b *image.Gray, block image.Rectangle) color.RGBA {
	inA, inB := block.Intersect(a.Rect), block.Intersect(b.Rect)
	switch {
	case inA.Empty() && inB.Empty():
		return color.RGBA{R: 255, G: 255, B: 255, A: 255}
	case inA != inB:
		return color.RGBA{R: 220, A: 255}
	}
	sum := 0
	for y := inA.Min.Y; y < inA.Max.Y; y++ {
		for x := inA.Min.X; x < inA.Max.X; x++ {
			va, vb := a.GrayAt(x, y).Y, b.GrayAt(x, y).Y
			if absDiff(va, vb) > pixelTolerance {
				return color.RGBA{R: 220, A: 255}
			}
			sum += int(va)
		}
	}
	v := 255 - (255-uint8(sum/(inA.Dx()*inA.Dy())))/3
	return color.RGBA{R: v, G: v, B: v, A: 255}
}
