package poppler

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
)

// inkShare reads the 8-bit binary PGM at path, a page pdftoppm drew in
// grey, of about w x h pixels (its own rounding may add one to a side),
// and returns the share of its pixels darker than inkLevel, counted as
// the file streams by, never held whole. The file is removed once read.
// The engine's output is trusted no more than its input: a file larger
// than such a page, or not exactly a PGM of its stated size, is an
// internal error, not a guess.
func inkShare(path string, w, h int) (float64, error) {
	defer os.Remove(path)
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("poppler: page image: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("poppler: page image: %w", err)
	}
	if limit := int64(w+2)*int64(h+2) + 64; st.Size() > limit {
		return 0, fmt.Errorf("poppler: page image of %d bytes, above the %d of a %dx%d page", st.Size(), limit, w, h)
	}
	head := make([]byte, min(st.Size(), 64))
	if _, err := f.ReadAt(head, 0); err != nil {
		return 0, fmt.Errorf("poppler: page image: %w", err)
	}
	pw, ph, off, err := netpbmHeader(head, "P5")
	if err != nil {
		return 0, err
	}
	n := int64(pw) * int64(ph)
	if int64(off)+n != st.Size() {
		return 0, fmt.Errorf("poppler: page image of %dx%d has %d bytes of pixels", pw, ph, st.Size()-int64(off))
	}
	r := io.NewSectionReader(f, int64(off), n)
	var ink int64
	buf := make([]byte, 1<<16)
	for {
		k, err := r.Read(buf)
		for _, v := range buf[:k] {
			if v < inkLevel {
				ink++
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("poppler: page image: %w", err)
		}
	}
	return float64(ink) / float64(max(n, 1)), nil
}

// graymapPixels returns the pixels of a binary PGM as pdftoppm writes it
// (see netpbm): a byte a pixel.
func graymapPixels(b []byte) ([]byte, error) {
	_, _, pix, err := netpbm(b, "P5", 1)
	return pix, err
}

// netpbm reads a binary PGM ("P5", channels 1) or PPM ("P6", channels 3)
// as pdftoppm writes it: magic, width, height and 255 as the largest
// value, each followed by one whitespace byte, then channels bytes a
// pixel. Sides are bounded by maxPageSide and the pixels must fill the
// rest of b exactly, so a damaged header never sizes an allocation.
func netpbm(b []byte, magic string, channels int) (w, h int, pix []byte, err error) {
	w, h, n, err := netpbmHeader(b, magic)
	if err != nil {
		return 0, 0, nil, err
	}
	if rest := b[n:]; len(rest) != channels*w*h {
		return 0, 0, nil, fmt.Errorf("poppler: page image of %dx%d has %d bytes of pixels", w, h, len(rest))
	}
	return w, h, b[n:], nil
}

// netpbmHeader reads the header at the start of b (see netpbm): the
// image's size and the header's length, where the pixels start.
func netpbmHeader(b []byte, magic string) (w, h, n int, err error) {
	rest, ok := bytes.CutPrefix(b, []byte(magic))
	if !ok {
		return 0, 0, 0, fmt.Errorf("poppler: page image is not a binary %s netpbm image", magic)
	}
	var fields [3]int
	for i := range fields {
		rest = bytes.TrimLeft(rest, " \t\r\n")
		end := bytes.IndexAny(rest, " \t\r\n")
		if end < 1 {
			return 0, 0, 0, fmt.Errorf("poppler: page image header cut short")
		}
		v, err := strconv.Atoi(string(rest[:end]))
		if err != nil || v < 1 || v > maxPageSide {
			return 0, 0, 0, fmt.Errorf("poppler: page image header field %q", rest[:end])
		}
		fields[i], rest = v, rest[end+1:]
	}
	if fields[2] != 255 {
		return 0, 0, 0, fmt.Errorf("poppler: page image of maximum value %d", fields[2])
	}
	return fields[0], fields[1], len(b) - len(rest), nil
}
