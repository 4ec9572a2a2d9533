package poppler

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// inkShare reads the 8-bit binary PGM at path, a page pdftoppm drew in
// grey, of about w x h pixels (its own rounding may add one to a side),
// and returns the share of its pixels darker than inkLevel. The file is
// removed once read. The engine's output is trusted no more than its
// input: a file larger than such a page, or not exactly a PGM of its
// stated size, is an internal error, not a guess.
func inkShare(path string, w, h int) (float64, error) {
	defer os.Remove(path)
	st, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("poppler: page image: %w", err)
	}
	if limit := int64(w+2)*int64(h+2) + 64; st.Size() > limit {
		return 0, fmt.Errorf("poppler: page image of %d bytes, above the %d of a %dx%d page", st.Size(), limit, w, h)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("poppler: page image: %w", err)
	}
	pix, err := graymapPixels(b)
	if err != nil {
		return 0, err
	}
	ink := 0
	for _, v := range pix {
		if v < inkLevel {
			ink++
		}
	}
	return float64(ink) / float64(max(len(pix), 1)), nil
}

// graymapPixels returns the pixels of a binary PGM as pdftoppm writes it:
// "P5", its width, height and 255 as the largest value, each followed by
// one whitespace byte, then a byte a pixel.
func graymapPixels(b []byte) ([]byte, error) {
	rest, ok := bytes.CutPrefix(b, []byte("P5"))
	if !ok {
		return nil, fmt.Errorf("poppler: page image is not a binary PGM")
	}
	var fields [3]int
	for i := range fields {
		rest = bytes.TrimLeft(rest, " \t\r\n")
		end := bytes.IndexAny(rest, " \t\r\n")
		if end < 1 {
			return nil, fmt.Errorf("poppler: page image header cut short")
		}
		n, err := strconv.Atoi(string(rest[:end]))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("poppler: page image header field %q", rest[:end])
		}
		fields[i], rest = n, rest[end+1:]
	}
	if fields[2] != 255 || len(rest) != fields[0]*fields[1] {
		return nil, fmt.Errorf("poppler: page image of %dx%d (max %d) has %d bytes of pixels", fields[0], fields[1], fields[2], len(rest))
	}
	return rest, nil
}
