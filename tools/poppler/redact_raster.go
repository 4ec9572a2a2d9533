package poppler

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
)

// redactPadding widens every black box on each side, in points, so that
// the antialiased edges of glyphs, drawn a little outside the box
// pdftotext gives a word, are covered too.
const redactPadding = 1.5

// blackOut reads the binary PPM at src, the image of a page drawn at dpi
// of expected size w x h pixels (pdftoppm's own rounding may add one to a
// side), paints boxes (in points from the page's top left corner) black,
// and writes the result as a PNG at dst. src is removed once read. The
// page is read a row at a time (ppmRows), never whole: a page may be
// drawn at up to the render limit (100 MP, 300 MB of PPM). The engine's
// output is trusted no more than its input: a file larger than such a
// page, or not exactly a PPM of its stated size, is an internal error.
func blackOut(src, dst string, w, h int64, dpi int, boxes []rect) error {
	defer os.Remove(src)
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("poppler: page image: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("poppler: page image: %w", err)
	}
	if limit := 3*(w+2)*(h+2) + 64; st.Size() > limit {
		return fmt.Errorf("poppler: page image of %d bytes, above the %d of a %dx%d page", st.Size(), limit, w, h)
	}
	head := make([]byte, min(st.Size(), 64))
	if _, err := f.ReadAt(head, 0); err != nil {
		return fmt.Errorf("poppler: page image: %w", err)
	}
	pw, ph, off, err := netpbmHeader(head, "P6")
	if err != nil {
		return err
	}
	if int64(off)+3*int64(pw)*int64(ph) != st.Size() {
		return fmt.Errorf("poppler: page image of %dx%d has %d bytes of pixels", pw, ph, st.Size()-int64(off))
	}
	img := &ppmRows{r: f, off: int64(off), w: pw, h: ph, y: -1, row: make([]byte, 3*pw)}
	scale := float64(dpi) / 72
	for _, r := range boxes {
		img.boxes = append(img.boxes, image.Rect(
			int(math.Floor((r.x0-redactPadding)*scale)), int(math.Floor((r.y0-redactPadding)*scale)),
			int(math.Ceil((r.x1+redactPadding)*scale)), int(math.Ceil((r.y1+redactPadding)*scale)),
		).Intersect(img.Bounds()))
	}
	if err := writePNG(dst, img); err != nil {
		return err
	}
	if img.err != nil {
		return fmt.Errorf("poppler: page image: %w", img.err)
	}
	return nil
}

// ppmRows is the pixels of a binary PPM file, read one row at a time as
// they are asked for, with boxes painted black: an opaque image that
// png.Encoder reads row after row.
type ppmRows struct {
	r     io.ReaderAt
	off   int64 // where the pixels start
	w, h  int
	boxes []image.Rectangle
	y     int    // the row held in row; -1 for none
	row   []byte // 3 bytes a pixel
	err   error  // the first read error
}

func (p *ppmRows) ColorModel() color.Model { return color.RGBAModel }
func (p *ppmRows) Bounds() image.Rectangle { return image.Rect(0, 0, p.w, p.h) }

// Opaque spares png.Encoder a pass over every pixel to find out.
func (p *ppmRows) Opaque() bool { return true }

func (p *ppmRows) At(x, y int) color.Color {
	if !image.Pt(x, y).In(p.Bounds()) {
		return color.RGBA{}
	}
	if y != p.y {
		p.y = y
		if _, err := p.r.ReadAt(p.row, p.off+int64(y)*int64(len(p.row))); err != nil && p.err == nil {
			p.err = err
		}
		for _, b := range p.boxes {
			if y >= b.Min.Y && y < b.Max.Y {
				clear(p.row[3*b.Min.X : 3*b.Max.X])
			}
		}
	}
	i := 3 * x
	return color.RGBA{p.row[i], p.row[i+1], p.row[i+2], 0xff}
}

// writePNG writes img at path, compressed for speed: the PDF helper
// decodes it and compresses the pixels again.
func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("poppler: create page image: %w", err)
	}
	defer f.Close()
	buf := bufio.NewWriterSize(f, 1<<20)
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(buf, img); err != nil {
		return fmt.Errorf("poppler: write page image: %w", err)
	}
	if err := buf.Flush(); err != nil {
		return fmt.Errorf("poppler: write page image: %w", err)
	}
	return f.Close()
}
