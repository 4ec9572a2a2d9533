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
		differ, err := comparePage(v, p, dir, rendered[0][p], rendered[1][p], sizes[0][p], sizes[1][p])
		if err != nil {
			return nil, err
		}
		if differ {
			v.differing = append(v.differing, p)
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

// comparePage compares page p of the two documents, drawn at pathA and
// pathB (removed afterwards), and writes its diff image into v when they
// differ and v holds fewer than maxDiffImages.
func comparePage(v *visualDiff, p int, dir, pathA, pathB string, sizeA, sizeB pageSize) (differ bool, err error) {
	a, err := openPageImage(pathA, sizeA)
	if err != nil {
		return false, err
	}
	defer a.close()
	b, err := openPageImage(pathB, sizeB)
	if err != nil {
		return false, err
	}
	defer b.close()
	same, err := samePixels(a, b)
	if err != nil || same {
		return false, err
	}
	if len(v.images) < maxDiffImages {
		path := filepath.Join(dir, fmt.Sprintf("compare-diff-%05d.png", p))
		if err := writeDiffImage(path, a, b); err != nil {
			return false, err
		}
		v.images[p] = path
	}
	return true, nil
}

// pageRows is a grey page image read a band of rows at a time: its
// rectangle, and rows y0 to y1 (clipped to it) as an image that stays
// valid until the next call to rows.
type pageRows interface {
	rect() image.Rectangle
	rows(y0, y1 int) (*image.Gray, error)
}

// pageFile is the grey page pdftoppm drew, a PGM read from disk a band
// of rows at a time: a page is never held whole in the server (at the
// render limit one is 100 MB).
type pageFile struct {
	f    *os.File
	off  int64 // where the pixels start
	size image.Rectangle
	band []byte // rows' pixels, reused: a page is read as garbage-free bands
}

// openPageImage opens the grey page pdftoppm drew of a page of size s,
// checked as inkShare checks it; close removes it.
func openPageImage(path string, s pageSize) (*pageFile, error) {
	w, h := s.pixels(compareDPI)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("poppler: page image: %w", err)
	}
	p := &pageFile{f: f}
	st, err := f.Stat()
	if err != nil {
		p.close()
		return nil, fmt.Errorf("poppler: page image: %w", err)
	}
	if limit := (w+2)*(h+2) + 64; st.Size() > limit {
		p.close()
		return nil, fmt.Errorf("poppler: page image of %d bytes, above the %d of a %dx%d page", st.Size(), limit, w, h)
	}
	head := make([]byte, min(st.Size(), 64))
	if _, err := f.ReadAt(head, 0); err != nil {
		p.close()
		return nil, fmt.Errorf("poppler: page image: %w", err)
	}
	pw, ph, off, err := netpbmHeader(head, "P5")
	if err == nil && int64(off)+int64(pw)*int64(ph) != st.Size() {
		err = fmt.Errorf("poppler: page image of %dx%d has %d bytes of pixels", pw, ph, st.Size()-int64(off))
	}
	if err != nil {
		p.close()
		return nil, err
	}
	p.off, p.size = int64(off), image.Rect(0, 0, pw, ph)
	return p, nil
}

func (p *pageFile) rect() image.Rectangle { return p.size }

func (p *pageFile) rows(y0, y1 int) (*image.Gray, error) {
	r := image.Rect(0, y0, p.size.Dx(), y1).Intersect(p.size)
	if n := r.Dx() * r.Dy(); cap(p.band) < n {
		p.band = make([]byte, n)
	}
	g := &image.Gray{Pix: p.band[:r.Dx()*r.Dy()], Stride: r.Dx(), Rect: r}
	if _, err := p.f.ReadAt(g.Pix, p.off+int64(r.Min.Y)*int64(p.size.Dx())); err != nil && len(g.Pix) > 0 {
		return nil, fmt.Errorf("poppler: page image: %w", err)
	}
	return g, nil
}

// close closes and removes the page's file.
func (p *pageFile) close() {
	p.f.Close()
	os.Remove(p.f.Name())
}

// samePixels reports whether two page images have one size and no pixel
// more than pixelTolerance apart, reading them a band at a time.
func samePixels(a, b pageRows) (bool, error) {
	if a.rect() != b.rect() {
		return false, nil
	}
	const band = 64
	for y := 0; y < a.rect().Dy(); y += band {
		ra, err := a.rows(y, y+band)
		if err != nil {
			return false, err
		}
		rb, err := b.rows(y, y+band)
		if err != nil {
			return false, err
		}
		for i, v := range ra.Pix {
			if absDiff(v, rb.Pix[i]) > pixelTolerance {
				return false, nil
			}
		}
	}
	return true, nil
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
func writeDiffImage(path string, a, b pageRows) error {
	w, h := max(a.rect().Dx(), b.rect().Dx()), max(a.rect().Dy(), b.rect().Dy())
	n := diffScale(w, h)
	img := image.NewRGBA(image.Rect(0, 0, ceilDiv(w, n), ceilDiv(h, n)))
	for y := range img.Rect.Dy() {
		// The band of both pages' rows this row of the image stands
		// for: a block's intersection with a band is its intersection
		// with the page, since the band holds the page's whole width.
		ra, err := a.rows(y*n, (y+1)*n)
		if err != nil {
			return err
		}
		rb, err := b.rows(y*n, (y+1)*n)
		if err != nil {
			return err
		}
		for x := range img.Rect.Dx() {
			img.SetRGBA(x, y, diffColor(ra, rb, image.Rect(x*n, y*n, (x+1)*n, (y+1)*n)))
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
