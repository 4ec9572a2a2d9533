package poppler

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// maxInfoOutput bounds what pdfinfo may print: about 50 bytes a page, so
// even MaxPageNumber pages fit many times over.
const maxInfoOutput = 16 << 20

// pageSize is a page's crop box in points and its /Rotate, as pdfinfo
// reports them. pdftoppm is run with -cropbox, so this is what it draws.
type pageSize struct {
	w, h float64
	rot  int
}

// pixels returns the size in pixels pdftoppm gives the page at dpi: the
// box scaled and rounded up, then turned by the page's rotation.
func (s pageSize) pixels(dpi int) (w, h int64) {
	w = int64(math.Ceil(s.w * float64(dpi) / 72))
	h = int64(math.Ceil(s.h * float64(dpi) / 72))
	if s.rot%180 != 0 {
		w, h = h, w
	}
	return w, h
}

// pageInfo asks pdfinfo, in one run, for the number of pages of the PDF
// at src and the sizes of its pages 1 to last (pdfinfo stops at the
// document's last page). A document pdfinfo cannot open, or one without
// pages, is invalid_document.
func pageInfo(ctx context.Context, pdfinfo *sandbox.Engine, src, dir string, last int) (int, map[int]pageSize, error) {
	out, err := runPdfinfo(ctx, pdfinfo, src, dir, 1, last)
	if err != nil {
		return 0, nil, err
	}
	n, ok := parsePageCount(out)
	if !ok {
		return 0, nil, fmt.Errorf("poppler: pdfinfo printed no page count")
	}
	if n < 1 {
		return 0, nil, docmill.Errorf(docmill.CodeInvalidDocument, "The document has no pages.")
	}
	return n, parsePageSizes(out), nil
}

// pageSizes asks pdfinfo for the sizes of pages first to last.
func pageSizes(ctx context.Context, pdfinfo *sandbox.Engine, src, dir string, first, last int) (map[int]pageSize, error) {
	out, err := runPdfinfo(ctx, pdfinfo, src, dir, first, last)
	if err != nil {
		return nil, err
	}
	return parsePageSizes(out), nil
}

// runPdfinfo returns what pdfinfo prints of the PDF at src with the sizes
// of pages first to last.
func runPdfinfo(ctx context.Context, pdfinfo *sandbox.Engine, src, dir string, first, last int) ([]byte, error) {
	args := []string{"-f", strconv.Itoa(first), "-l", strconv.Itoa(last), src}
	res, err := pdfinfo.Run(ctx, sandbox.Cmd{Args: args, Dir: dir, MaxOutput: maxInfoOutput})
	if err != nil {
		return nil, engineError(err, "reading it")
	}
	return res.Stdout, nil
}

// parsePageCount returns the number on pdfinfo's "Pages:" line. pdfinfo
// prints the document's own metadata (title, author, ...) before it, and a
// hostile title may hold a line break and a "Pages:" line of its own, so
// the last such line is the one pdfinfo wrote.
func parsePageCount(out []byte) (int, bool) {
	n, found := 0, false
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, maxInfoOutput)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "Pages:")
		if !ok {
			continue
		}
		if v, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil && v >= 0 {
			n, found = v, true
		}
	}
	return n, found
}

// parsePageSizes reads pdfinfo's per-page lines ("Page    2 size:  595.276
// x 841.89 pts (A4)" and "Page    2 rot:   90"). As in parsePageCount, a
// later line wins, because pdfinfo's own lines follow the document's
// metadata.
func parsePageSizes(out []byte) map[int]pageSize {
	sizes := map[int]pageSize{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, maxInfoOutput)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || f[0] != "Page" {
			continue
		}
		page, err := strconv.Atoi(f[1])
		if err != nil || page < 1 {
			continue
		}
		s := sizes[page]
		switch {
		case f[2] == "size:" && len(f) >= 6 && f[4] == "x":
			w, errW := strconv.ParseFloat(f[3], 64)
			h, errH := strconv.ParseFloat(f[5], 64)
			if errW != nil || errH != nil || !finitePositive(w) || !finitePositive(h) {
				continue
			}
			s.w, s.h = w, h
		case f[2] == "rot:":
			r, err := strconv.Atoi(f[3])
			if err != nil {
				continue
			}
			s.rot = ((r % 360) + 360) % 360
		default:
			continue
		}
		sizes[page] = s
	}
	return sizes
}

// finitePositive reports whether f is a usable page dimension; pdfinfo
// prints what the file says, which may be anything.
func finitePositive(f float64) bool { return f > 0 && !math.IsInf(f, 0) }
