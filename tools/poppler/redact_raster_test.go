package poppler

import (
	"fmt"
	"github.com/docmill/docmill/tools/toolstest"
	"image/png"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestBlackOutStreams: a page drawn for redaction near the render limit
// (8000 x 5000, a 120 MB PPM) is painted and written a row at a time:
// the server's memory grows by far less than the page (reading it whole
// took 120 MB, and 160 MB more as RGBA), and the box is black.
func TestBlackOutStreams(t *testing.T) {
	const w, h = 8000, 5000
	dir := t.TempDir()
	src := filepath.Join(dir, "page.ppm")
	f, err := os.Create(src)
	if err != nil {
		t.Fatal(err)
	}
	head := fmt.Sprintf("P6\n%d %d\n255\n", w, h)
	f.WriteString(head)
	// White pixels, written in rows, so that the file is not sparse.
	row := []byte(strings.Repeat("\xff", 3*w))
	for y := 0; y < h; y++ {
		f.Write(row)
	}
	f.Close()
	debug.FreeOSMemory()
	toolstest.ResetPeakRSS(t)
	before := toolstest.PeakRSS(t, 0)
	dst := filepath.Join(dir, "page.png")
	// A box of 72 x 72 points at (72, 72): pixels 72-144 at 72 dpi, with
	// the padding.
	if err := blackOut(src, dst, w, h, 72, []rect{{x0: 72, y0: 72, x1: 144, y1: 144}}); err != nil {
		t.Fatal(err)
	}
	grew := toolstest.PeakRSS(t, 0) - before
	t.Logf("peak RSS grew by %d MB", grew>>20)
	if grew > 32<<20 {
		t.Errorf("peak RSS grew by %d MB painting a 120 MB page, want under 32 MB", grew>>20)
	}
	out, err := os.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cfg, err := png.DecodeConfig(out)
	if err != nil || cfg.Width != w || cfg.Height != h {
		t.Fatalf("png %dx%d, %v", cfg.Width, cfg.Height, err)
	}
	out.Seek(0, 0)
	img, err := png.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _, _ := img.At(100, 100).RGBA(); r != 0 {
		t.Errorf("inside the box: %v, want black", img.At(100, 100))
	}
	if r, _, _, _ := img.At(10, 10).RGBA(); r != 0xffff {
		t.Errorf("outside the box: %v, want white", img.At(10, 10))
	}
}

// TestInkShareStreams: inkShare counts a PGM's dark pixels as it streams
// and refuses one whose pixels do not fill it exactly.
func TestInkShareStreams(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// 4 x 2 pixels, 2 of them black.
	share, err := inkShare(write("good.pgm", "P5\n4 2\n255\n\x00\xff\xff\xff\xff\xff\x00\xff"), 4, 2)
	if err != nil || share != 0.25 {
		t.Errorf("inkShare = %v, %v; want 0.25", share, err)
	}
	for name, body := range map[string]string{
		"short":  "P5\n4 2\n255\n\x00\xff",
		"long":   "P5\n4 2\n255\n" + strings.Repeat("\x00", 9),
		"header": "P5\n4",
		"ppm":    "P6\n1 1\n255\n\x00\x00\x00",
	} {
		if _, err := inkShare(write(name+".pgm", body), 4, 2); err == nil {
			t.Errorf("%s: inkShare read it", name)
		}
	}
}

// TestComparePageStreams: two pages drawn at the render limit for
// compare-pdf (10,000 x 10,000 grey pixels, 100 MB each; the whole pages
// were read, 200 MB) differing in one pixel are compared and their diff
// image drawn a band at a time: the server's memory grows by far less
// than a page.
func TestComparePageStreams(t *testing.T) {
	const side = 10_000
	dir := t.TempDir()
	write := func(name string, dot bool) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, "P5\n%d %d\n255\n", side, side)
		row := []byte(strings.Repeat("\xff", side))
		for y := 0; y < side; y++ {
			if dot && y == side/2 {
				row[side/2] = 0
			}
			f.Write(row)
			row[side/2] = 0xff
		}
		f.Close()
		return p
	}
	a, b := write("a.pgm", false), write("b.pgm", true)
	size := pageSize{w: side * 72 / compareDPI, h: side * 72 / compareDPI}
	debug.FreeOSMemory()
	toolstest.ResetPeakRSS(t)
	before := toolstest.PeakRSS(t, 0)
	v := &visualDiff{images: map[int]string{}}
	differ, err := comparePage(v, 1, dir, a, b, size, size)
	if err != nil || !differ || v.images[1] == "" {
		t.Fatalf("comparePage = %v, %v, images %v; want a difference and its image", differ, err, v.images)
	}
	grew := toolstest.PeakRSS(t, 0) - before
	t.Logf("peak RSS grew by %d MB", grew>>20)
	if grew > 48<<20 {
		t.Errorf("peak RSS grew by %d MB comparing two 100 MB pages, want under 48 MB", grew>>20)
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Errorf("the page image was not removed: %v", err)
	}
}
