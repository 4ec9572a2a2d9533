package poppler

import (
	"archive/zip"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// listedPictures counts the pictures (not masks) pdfimages -list reports
// of the PDF at path.
func listedPictures(t *testing.T, path string, args ...string) int {
	t.Helper()
	out, err := exec.Command("pdfimages", append(append([]string{"-list"}, args...), path)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(out), "\n")[2:] {
		if f := strings.Fields(line); len(f) > 2 && f[2] != "smask" && f[2] != "mask" {
			n++
		}
	}
	return n
}

func TestExtractImages(t *testing.T) {
	tool := moreTool(t, "extract-images")
	geo := corpusPDF(t, "GeoTopo-komprimiert.pdf")
	out := mustRunTool(t, tool, geo, nil)
	want := listedPictures(t, geo)
	names := zipNames(t, out.Path)
	if want != 10 || len(names) != want || out.Meta["images"] != want || out.Filename != "GeoTopo-komprimiert-images.zip" {
		t.Fatalf("%d entries %v, %d listed, meta %v", len(names), names, want, out.Meta)
	}
	if names[0] != "GeoTopo-komprimiert-p024-00.jpg" {
		t.Errorf("first entry %q", names[0])
	}

	// pages selects; min_size drops the smaller ones.
	out = mustRunTool(t, tool, geo, map[string]string{"pages": "25"})
	if n := len(zipNames(t, out.Path)); n != listedPictures(t, geo, "-f", "25", "-l", "25") || n != 4 {
		t.Errorf("page 25: %d entries", n)
	}
	out = mustRunTool(t, tool, geo, map[string]string{"min_size": "200"})
	if n := len(zipNames(t, out.Path)); n != 2 || out.Meta["skipped_small"] != 8 { // 269x269 and 359x372
		t.Errorf("min_size 200: %d entries, meta %v", n, out.Meta)
	}

	// No images: an empty zip.
	out = mustRunTool(t, tool, corpusPDF(t, "pdflatex-4-pages.pdf"), nil)
	if n := len(zipNames(t, out.Path)); n != 0 || out.Meta["images"] != 0 {
		t.Errorf("no images: %d entries, meta %v", n, out.Meta)
	}

	_, err := runTool(t, tool, geo, map[string]string{"pages": "500"})
	toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "pages")
	_, err = runTool(t, tool, toolstest.WriteTemp(t, "x.pdf", []byte("%PDF-1.4\nnot a pdf at all")), nil)
	toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
}

// TestExtractImagesRepeated: an image object drawn twice on each of
// three pages is one entry of the zip, named by its first page; the
// other five placements are counted as repeated.
func TestExtractImagesRepeated(t *testing.T) {
	tool := moreTool(t, "extract-images")
	pixels := strings.Repeat("A", 16*16)
	content := "q 16 0 0 16 10 10 cm /Im Do Q q 16 0 0 16 50 50 cm /Im Do Q"
	page := "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Resources << /XObject << /Im 6 0 R >> >> /Contents 7 0 R >>"
	in := toolstest.WriteTemp(t, "logo.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>",
		page, page, page,
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width 16 /Height 16 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length %d >>\nstream\n%s\nendstream", len(pixels), pixels),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)))
	if n := listedPictures(t, in); n != 6 {
		t.Fatalf("pdfimages lists %d placements, want 6", n)
	}
	out := mustRunTool(t, tool, in, map[string]string{"min_size": "0"})
	names := zipNames(t, out.Path)
	if len(names) != 1 || names[0] != "logo-p1-0.png" || out.Meta["images"] != 1 || out.Meta["repeated"] != 5 {
		t.Errorf("entries %v, meta %v: want one image, five placements repeated", names, out.Meta)
	}
}

// TestExtractImagesLimits: the count and pixel limits the tool is built
// with refuse a document before anything is extracted.
func TestExtractImagesLimits(t *testing.T) {
	geo := corpusPDF(t, "GeoTopo-komprimiert.pdf")
	for name, c := range map[string]struct {
		limits docmill.Limits
		says   string
	}{
		"count":  {docmill.Limits{ArchiveEntries: 5}, "at most 5 can be extracted"},
		"pixels": {docmill.Limits{ImagePixels: 100_000}, "above 0.1 megapixels"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runTool(t, limitedMoreTool(t, "extract-images", c.limits), geo, nil)
			if e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, ""); !strings.Contains(e.Message, c.says) {
				t.Fatalf("message %q, want %q", e.Message, c.says)
			}
		})
	}
}

func TestParseImageList(t *testing.T) {
	out := []byte("page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio\n" +
		"-----\n" +
		"   1     0 image     781   627  rgb     3   8  image  no        15  0   150   150  920K  64%\n" +
		"   2     1 smask     781   627  gray    1   8  image  no        15  0   150   150  495B 0.1%\n")
	got, err := parseImageList(out)
	if err != nil || len(got) != 2 || got[0] != (embeddedImage{num: 0, page: 1, kind: "image", w: 781, h: 627, comp: 3, bpc: 8, object: "15 0"}) || got[1].kind != "smask" {
		t.Fatalf("%+v %v", got, err)
	}
	inline, err := parseImageList([]byte("h\nh\n   1     0 image      10    10  gray    1   8  image  no  [inline]     72    72  100B 100%\n"))
	if err != nil || len(inline) != 1 || inline[0].object != "" {
		t.Errorf("an inline image: %+v %v", inline, err)
	}
	if _, err := parseImageList([]byte("h\nh\n   1  x image 1 1 rgb 3 8\n")); err == nil {
		t.Error("a bad number was accepted")
	}
	for name, want := range map[string]int{"i-001-000.png": 0, "i-024-017.jpg": 17, "i-1-1234.tif": 1234} {
		if n, ok := imageNumber(name); !ok || n != want {
			t.Errorf("imageNumber(%q) = %d, %v", name, n, ok)
		}
	}
	for _, name := range []string{"x-001-000.png", "i-001.png", "i-001-abc.png", "i-001-000"} {
		if _, ok := imageNumber(name); ok {
			t.Errorf("imageNumber(%q) accepted", name)
		}
	}
}

// zipNames returns the entry names of the zip at path, in order.
func zipNames(t *testing.T, path string) []string {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	return names
}
