package pdfops

import "io"

// pngRowFilter applies PNG predictors to image rows before compression,
// which makes Flate streams of photos and scans much smaller (PDF's
// /Predictor 15: a filter type chosen per row, prefixed to it). The
// filter of each row is chosen by the minimum sum of absolute
// differences, the heuristic libpng uses. Every Write must be exactly one
// row.
type pngRowFilter struct {
	w    io.Writer
	bpp  int    // bytes per pixel, at least 1
	prev []byte // the previous row, unfiltered; zeros before the first
	cand [5][]byte
}

func newPNGRowFilter(w io.Writer, bpp, rowLen int) *pngRowFilter {
	f := &pngRowFilter{w: w, bpp: bpp, prev: make([]byte, rowLen)}
	for i := range f.cand {
		f.cand[i] = make([]byte, rowLen+1)
		f.cand[i][0] = byte(i)
	}
	return f
}

func (f *pngRowFilter) Write(row []byte) (int, error) {
	bpp, prev := f.bpp, f.prev
	none, sub, up, avg, paeth := f.cand[0][1:], f.cand[1][1:], f.cand[2][1:], f.cand[3][1:], f.cand[4][1:]
	var sums [5]int
	for i, x := range row {
		var a, c byte
		if i >= bpp {
			a, c = row[i-bpp], prev[i-bpp]
		}
		b := prev[i]
		none[i] = x
		sub[i] = x - a
		up[i] = x - b
		avg[i] = x - byte((int(a)+int(b))/2)
		paeth[i] = x - paethPredictor(a, b, c)
		sums[0] += pngAbsSigned(none[i])
		sums[1] += pngAbsSigned(sub[i])
		sums[2] += pngAbsSigned(up[i])
		sums[3] += pngAbsSigned(avg[i])
		sums[4] += pngAbsSigned(paeth[i])
	}
	best := 0
	for i, s := range sums {
		if s < sums[best] {
			best = i
		}
	}
	copy(f.prev, row)
	if _, err := f.w.Write(f.cand[best]); err != nil {
		return 0, err
	}
	return len(row), nil
}

// pngAbsSigned is the magnitude of b read as a signed byte.
func pngAbsSigned(b byte) int { return pngAbs(int(int8(b))) }

func paethPredictor(a, b, c byte) byte {
	p := int(a) + int(b) - int(c)
	pa, pb, pc := pngAbs(p-int(a)), pngAbs(p-int(b)), pngAbs(p-int(c))
	switch {
	case pa <= pb && pa <= pc:
		return a
	case pb <= pc:
		return b
	}
	return c
}

func pngAbs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
