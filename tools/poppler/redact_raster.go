package poppler

import (
	"bufio"
	"fmt"
	"image"
	"image/png"
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
// engine's output is trusted no more than its input: a file larger than
// such a page, or not exactly a PPM of its stated size, is an internal
// error.
func blackOut(src, dst string, w, h int64, dpi int, boxes []rect) error {
	defer os.Remove(src)
	st, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("poppler: page image: %w", err)
	}
	if limit := 3*(w+2)*(h+2) + 64; st.Size() > limit {
		return fmt.Errorf("poppler: page image of %d bytes, above the %d of a %dx%d page", st.Size(), limit, w, h)
	}
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("poppler: page image: %w", err)
	}
	img, err := pixmap(b)
	if err != nil {
		return err
	}
	scale := float64(dpi) / 72
	bounds := img.Bounds()
	for _, r := range boxes {
		px := image.Rect(
			int(math.Floor((r.x0-redactPadding)*scale)), int(math.Floor((r.y0-redactPadding)*scale)),
			int(math.Ceil((r.x1+redactPadding)*scale)), int(math.Ceil((r.y1+redactPadding)*scale)),
		).Intersect(bounds)
		for y := px.Min.Y; y < px.Max.Y; y++ {
			row := img.Pix[img.PixOffset(px.Min.X, y):img.PixOffset(px.Max.X, y)]
			for i := range row {
				if i%4 == 3 {
					row[i] = 0xff
				} else {
					row[i] = 0
				}
			}
		}
	}
	return writePNG(dst, img)
}

// pixmap returns the pixels of a binary PPM as pdftoppm writes it (see
// netpbm).
func pixmap(b []byte) (*image.RGBA, error) {
	w, h, rest, err := netpbm(b, "P6", 3)
	if err != nil {
		return nil, err
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i, j := 0, 0; i < len(rest); i, j = i+3, j+4 {
		img.Pix[j], img.Pix[j+1], img.Pix[j+2], img.Pix[j+3] = rest[i], rest[i+1], rest[i+2], 0xff
	}
	return img, nil
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
