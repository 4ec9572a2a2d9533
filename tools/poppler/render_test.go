package poppler

import (
	"archive/zip"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// a4 is the page size of the LaTeX files of the corpus, in points.
var a4 = pageSize{w: 595.276, h: 841.89}

// wantDims fails t unless the image in r has the pixel size of a page of
// size s at dpi, to a pixel.
func wantDims(t *testing.T, name string, r io.Reader, format string, s pageSize, dpi int) {
	t.Helper()
	cfg, got, err := image.DecodeConfig(r)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got != format {
		t.Errorf("%s: format %s, want %s", name, got, format)
	}
	w, h := s.w*float64(dpi)/72, s.h*float64(dpi)/72
	if s.rot%180 != 0 {
		w, h = h, w
	}
	if math.Abs(float64(cfg.Width)-w) > 1 || math.Abs(float64(cfg.Height)-h) > 1 {
		t.Errorf("%s: %d x %d pixels, want %.1f x %.1f", name, cfg.Width, cfg.Height, w, h)
	}
}

// zipEntries opens the archive at path and calls fn for each entry.
func zipEntries(t *testing.T, path string, fn func(f *zip.File)) []string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("output is not a zip archive: %v", err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		if fn != nil {
			fn(f)
		}
	}
	return names
}

func TestRenderZip(t *testing.T) {
	tool := testTool(t, "pdf-to-jpg")
	out := mustRunTool(t, tool, corpusPDF(t, "GeoTopo-komprimiert.pdf"), map[string]string{"pages": "5,1-3,2", "dpi": "100"})
	if out.Filename != "GeoTopo-komprimiert-images.zip" || out.ContentType != "application/zip" {
		t.Errorf("output %s (%s)", out.Filename, out.ContentType)
	}
	names := zipEntries(t, out.Path, func(f *zip.File) {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		wantDims(t, f.Name, r, "jpeg", a4, 100)
	})
	want := []string{"GeoTopo-komprimiert-001.jpg", "GeoTopo-komprimiert-002.jpg", "GeoTopo-komprimiert-003.jpg", "GeoTopo-komprimiert-005.jpg"}
	if !slices.Equal(names, want) {
		t.Errorf("entries %v, want %v", names, want)
	}
	if out.Meta["pages"] != 117 || out.Meta["images"] != 4 {
		t.Errorf("meta %v", out.Meta)
	}
}

// TestRenderWholeDocument renders every page of a 117-page book, which the
// tool splits into one run per slot, and checks that each page comes back
// once, in order, as the page it is.
func TestRenderWholeDocument(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 117 pages")
	}
	tool := testTool(t, "pdf-to-jpg")
	out := mustRunTool(t, tool, corpusPDF(t, "GeoTopo-komprimiert.pdf"), map[string]string{"dpi": "72"})
	sizes := map[int64]int{} // entry size -> count, to see the pages differ
	names := zipEntries(t, out.Path, func(f *zip.File) {
		sizes[int64(f.UncompressedSize64)]++
		if f.Name == "GeoTopo-komprimiert-117.jpg" || f.Name == "GeoTopo-komprimiert-058.jpg" {
			r, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			wantDims(t, f.Name, r, "jpeg", a4, 72)
		}
	})
	if len(names) != 117 {
		t.Fatalf("%d entries, want 117", len(names))
	}
	for i, n := range names {
		if want := fmt.Sprintf("GeoTopo-komprimiert-%03d.jpg", i+1); n != want {
			t.Fatalf("entry %d is %s, want %s", i, n, want)
		}
	}
	if len(sizes) < 100 {
		t.Errorf("only %d distinct image sizes among 117 pages", len(sizes))
	}
}

func TestRenderSinglePage(t *testing.T) {
	tool := testTool(t, "pdf-to-png")
	out := mustRunTool(t, tool, corpusPDF(t, "pdflatex-4-pages.pdf"), map[string]string{"pages": "2", "dpi": "96"})
	if out.Filename != "pdflatex-4-pages-2.png" || out.ContentType != "image/png" {
		t.Errorf("output %s (%s)", out.Filename, out.ContentType)
	}
	f, err := os.Open(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wantDims(t, out.Filename, f, "png", a4, 96)
}

func TestRenderRotatedPages(t *testing.T) {
	tool := testTool(t, "pdf-to-jpg")
	out := mustRunTool(t, tool, corpusPDF(t, "habibi-rotated.pdf"), map[string]string{"dpi": "72"})
	rots := map[string]int{"habibi-rotated-1.jpg": 90, "habibi-rotated-2.jpg": 180, "habibi-rotated-3.jpg": 270, "habibi-rotated-4.jpg": 0}
	names := zipEntries(t, out.Path, func(f *zip.File) {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		s := a4
		s.rot = rots[f.Name]
		wantDims(t, f.Name, r, "jpeg", s, 72)
	})
	if len(names) != 4 {
		t.Errorf("entries %v", names)
	}
}

func TestRenderQuality(t *testing.T) {
	tool := testTool(t, "pdf-to-jpg")
	size := func(q string) int64 {
		out := mustRunTool(t, tool, corpusPDF(t, "pdflatex-image.pdf"), map[string]string{"pages": "1", "quality": q})
		st, err := os.Stat(out.Path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	low, high := size("10"), size("95")
	if low*2 > high {
		t.Errorf("quality 10 gives %d bytes, quality 95 %d: want far smaller", low, high)
	}
}

func TestRenderParamErrors(t *testing.T) {
	tool := testTool(t, "pdf-to-jpg")
	tests := []struct {
		name  string
		raw   map[string]string
		field string
	}{
		{"page past the end", map[string]string{"pages": "3-5"}, "pages"},
		{"open range past the end", map[string]string{"pages": "9-"}, "pages"},
		{"dpi too low", map[string]string{"dpi": "71"}, "dpi"},
		{"dpi too high", map[string]string{"dpi": "601"}, "dpi"},
		{"quality", map[string]string{"quality": "0"}, "quality"},
		{"bad pages", map[string]string{"pages": "2-1"}, "pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runTool(t, tool, generatedPDF(t), tt.raw)
			toolstest.WantCode(t, err, docmill.CodeInvalidParameter, tt.field)
		})
	}
	if _, ok := testTool(t, "pdf-to-png").Param("quality"); ok {
		t.Error("pdf-to-png takes quality")
	}
}

func TestCheckPixels(t *testing.T) {
	poster := pageSize{w: 2384, h: 3370} // A0
	huge := pageSize{w: 14400, h: 14400}
	thin := pageSize{w: 14400, h: 10}
	def := docmill.DefaultLimits()
	small := docmill.Limits{RenderPagePixels: 2_000_000, RenderPixelsTotal: 10_000_000}.WithDefaults()
	tests := []struct {
		name   string
		limits docmill.Limits
		pages  []int
		sizes  map[int]pageSize
		dpi    int
		field  string // "" for no error
	}{
		{"A4 at 600 dpi", def, []int{1}, map[int]pageSize{1: a4}, 600, ""},
		{"A0 at 150 dpi", def, []int{1}, map[int]pageSize{1: poster}, 150, ""},
		{"A0 at 600 dpi", def, []int{1}, map[int]pageSize{1: poster}, 600, "dpi"},
		{"largest page at 72 dpi", def, []int{1}, map[int]pageSize{1: huge}, 72, "pages"},
		{"long thin page", def, []int{1}, map[int]pageSize{1: thin}, 600, "dpi"},
		{"2000 A4 pages at 150 dpi", def, seq(2000), sameSize(2000, a4), 150, ""},
		{"200 A4 pages at 600 dpi", def, seq(200), sameSize(200, a4), 600, "dpi"},
		// A4 at 150 dpi is 1240 x 1754 pixels, 2.17 MP.
		{"lowered page cap: A4 at 100 dpi", small, []int{1}, map[int]pageSize{1: a4}, 100, ""},
		{"lowered page cap: A4 at 150 dpi", small, []int{1}, map[int]pageSize{1: a4}, 150, "dpi"},
		{"lowered page cap: A0 at 72 dpi", small, []int{1}, map[int]pageSize{1: poster}, 72, "pages"},
		{"lowered total: 10 A4 pages at 100 dpi", small, seq(10), sameSize(10, a4), 100, ""},
		{"lowered total: 11 A4 pages at 100 dpi", small, seq(11), sameSize(11, a4), 100, "dpi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkPixels(tt.limits, tt.pages, tt.sizes, tt.dpi)
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			toolstest.WantCode(t, err, docmill.CodeInvalidParameter, tt.field)
		})
	}
	if err := checkPixels(def, []int{2}, map[int]pageSize{1: a4}, 150); docmill.ErrorCode(err) != docmill.CodeInvalidDocument {
		t.Errorf("page without a size: %v", err)
	}
	// The dpi the message suggests must itself pass.
	for _, lim := range []docmill.Limits{def, small} {
		for _, s := range []pageSize{poster, a4} {
			d := fittingDPI(lim, s)
			if d < minDPI || d >= maxDPI {
				continue // no dpi is suggested
			}
			if err := checkPixels(lim, []int{1}, map[int]pageSize{1: s}, d); err != nil {
				t.Errorf("%v, %v: fittingDPI = %d: %v", lim.RenderPagePixels, s, d, err)
			}
			if err := checkPixels(lim, []int{1}, map[int]pageSize{1: s}, d+1); err == nil {
				t.Errorf("%v, %v: fittingDPI = %d is not the highest", lim.RenderPagePixels, s, d)
			}
		}
	}
}

func TestPixelCount(t *testing.T) {
	for n, want := range map[int64]string{
		100_000_000:   "100 megapixels",
		2_500_000:     "2.5 megapixels",
		2_174_960:     "2.17 megapixels",
		4_400_000_000: "4.4 gigapixels",
		5_000_000_000: "5 gigapixels",
		999_999_999:   "1000 megapixels",
	} {
		if got := pixelCount(n); got != want {
			t.Errorf("pixelCount(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestRenderLimits builds the tools with lowered limits and checks that
// each cap refuses a request over it before anything is rendered, that a
// request within them renders, and that the catalogue states them.
func TestRenderLimits(t *testing.T) {
	doc := generatedPDF(t) // 4 A4 pages
	tests := []struct {
		name   string
		limits docmill.Limits
		raw    map[string]string
		field  string // "" for no error
	}{
		{"pages within", docmill.Limits{RenderPages: 2}, map[string]string{"pages": "1,3", "dpi": "72"}, ""},
		{"pages over", docmill.Limits{RenderPages: 2}, map[string]string{"pages": "1-3", "dpi": "72"}, "pages"},
		{"page pixels within", docmill.Limits{RenderPagePixels: 1_000_000}, map[string]string{"pages": "1", "dpi": "100"}, ""},
		{"page pixels over", docmill.Limits{RenderPagePixels: 1_000_000}, map[string]string{"pages": "1", "dpi": "150"}, "dpi"},
		{"total within", docmill.Limits{RenderPixelsTotal: 2_000_000}, map[string]string{"pages": "1-2", "dpi": "100"}, ""},
		{"total over", docmill.Limits{RenderPixelsTotal: 2_000_000}, map[string]string{"pages": "1-3", "dpi": "100"}, "dpi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runTool(t, limitedTool(t, "pdf-to-png", tt.limits), doc, tt.raw)
			if tt.field == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			e := toolstest.WantCode(t, err, docmill.CodeInvalidParameter, tt.field)
			t.Log(e.Fields[0].Message)
		})
	}
	tool := limitedTool(t, "pdf-to-jpg", docmill.Limits{RenderPages: 7, RenderPagePixels: 2_500_000})
	if !strings.Contains(tool.Description, "At most 7 pages and 2.5 megapixels a page.") {
		t.Errorf("description %q", tool.Description)
	}
	if tool := testTool(t, "pdf-to-jpg"); !strings.Contains(tool.Description, "At most 2000 pages and 100 megapixels a page.") {
		t.Errorf("default description %q", tool.Description)
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i + 1
	}
	return s
}

func sameSize(n int, s pageSize) map[int]pageSize {
	m := make(map[int]pageSize, n)
	for i := 1; i <= n; i++ {
		m[i] = s
	}
	return m
}

// boxPDF writes a one-page PDF with an empty page of the given boxes
// ("0 0 600 800") and returns its path.
func boxPDF(t *testing.T, mediaBox, cropBox string) string {
	t.Helper()
	page := "<< /Type /Page /Parent 2 0 R /MediaBox [" + mediaBox + "] /CropBox [" + cropBox + "] >>"
	return toolstest.WriteTemp(t, "boxes.pdf", toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page))
}

// TestRenderCropBox checks that the image is the crop box, the size the
// caps are computed from, not the larger media box.
func TestRenderCropBox(t *testing.T) {
	tool := testTool(t, "pdf-to-png")
	out := mustRunTool(t, tool, boxPDF(t, "0 0 600 800", "100 100 400 500"), map[string]string{"dpi": "144"})
	if out.Filename != "boxes-1.png" {
		t.Errorf("filename %s", out.Filename)
	}
	f, err := os.Open(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wantDims(t, out.Filename, f, "png", pageSize{w: 300, h: 400}, 144)
}

// TestRenderHugePage checks that the caps refuse a poster-sized page
// before pdftoppm is asked to draw it.
func TestRenderHugePage(t *testing.T) {
	tool := testTool(t, "pdf-to-jpg")
	path := boxPDF(t, "0 0 14400 14400", "0 0 14400 14400")
	_, err := runTool(t, tool, path, map[string]string{"dpi": "600"})
	toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "pages")
	path = boxPDF(t, "0 0 3370 2384", "0 0 3370 2384")
	_, err = runTool(t, tool, path, map[string]string{"dpi": "600"})
	e := toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "dpi")
	t.Log(e.Message)
}
