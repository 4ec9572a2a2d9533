package pdfops_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

func TestResizePDF(t *testing.T) {
	in := layoutPDF(t, "First page text", "Second page text", "Third page text")
	for _, tc := range []struct {
		name   string
		params map[string]string
		want   [][2]int
	}{
		{"every page to letter", map[string]string{"page_size": "letter"}, [][2]int{{612, 792}, {612, 792}, {612, 792}}},
		{"some pages to a5", map[string]string{"page_size": "A5", "pages": "2-"}, [][2]int{{595, 842}, {420, 595}, {420, 595}}},
		{"custom millimetres", map[string]string{"page_size": "100 x 150", "pages": "1"}, [][2]int{{283, 425}, {595, 842}, {595, 842}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, "resize-pdf", tc.params, in)
			if err != nil {
				t.Fatal(err)
			}
			if got := layoutSizes(t, out.Path); !slices.Equal(got, tc.want) {
				t.Errorf("page sizes %v, want %v", got, tc.want)
			}
			want := []string{"First page text", "Second page text", "Third page text"}
			if got := layoutTexts(t, out.Path); !slices.Equal(got, want) {
				t.Errorf("texts %q, want %q", got, want)
			}
			if out.Filename != "layout-resized.pdf" || out.Meta["resized_pages"] != len(layoutSizes(t, out.Path))-countEqual(tc.want, [2]int{595, 842}) {
				t.Errorf("filename %q, meta %v", out.Filename, out.Meta)
			}
		})
	}
}

func countEqual(s [][2]int, v [2]int) int {
	n := 0
	for _, e := range s {
		if e == v {
			n++
		}
	}
	return n
}

// A landscape page gets the landscape form of the size.
func TestResizePDFLandscape(t *testing.T) {
	in := toolstest.WriteTemp(t, "wide.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 842 595] >>"))
	out, err := run(t, "resize-pdf", map[string]string{"page_size": "letter"}, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := layoutSizes(t, out.Path); !slices.Equal(got, [][2]int{{792, 612}}) {
		t.Errorf("page sizes %v, want one landscape letter page", got)
	}
}

// TestResizePDFPrintBoxes: a resized page loses its trim, bleed and art
// boxes, left by pdfcpu in the old page's coordinates (pdfinfo then
// gives each as the new crop box); a page not resized keeps them.
func TestResizePDFPrintBoxes(t *testing.T) {
	toolstest.Need(t, "pdfinfo")
	boxes := "/MediaBox [0 0 595 842] /TrimBox [20 20 575 822] /BleedBox [10 10 585 832] /ArtBox [40 40 555 802] /BoxColorInfo << >>"
	in := toolstest.WriteTemp(t, "print.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R "+boxes+" >>",
		"<< /Type /Page /Parent 2 0 R "+boxes+" >>"))
	out, err := run(t, "resize-pdf", map[string]string{"page_size": "letter", "pages": "1"}, in)
	if err != nil {
		t.Fatal(err)
	}
	info := func(page string) map[string]string {
		b, err := exec.Command("pdfinfo", "-box", "-f", page, "-l", page, out.Path).Output()
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, line := range strings.Split(string(b), "\n") {
			for _, box := range []string{"MediaBox", "CropBox", "TrimBox", "BleedBox", "ArtBox"} {
				if k, v, ok := strings.Cut(line, box+":"); ok && strings.HasPrefix(k, "Page") {
					got[box] = strings.Join(strings.Fields(v), " ")
				}
			}
		}
		return got
	}
	p1 := info("1")
	for _, box := range []string{"TrimBox", "BleedBox", "ArtBox"} {
		if p1[box] != p1["CropBox"] || p1["CropBox"] != "0.00 0.00 612.00 792.00" {
			t.Errorf("page 1's %s %q, crop box %q: want both the new letter page", box, p1[box], p1["CropBox"])
		}
	}
	if p2 := info("2"); p2["TrimBox"] != "20.00 20.00 575.00 822.00" || p2["ArtBox"] != "40.00 40.00 555.00 802.00" {
		t.Errorf("page 2, not resized, has boxes %v", p2)
	}
}

func TestResizePDFRefusals(t *testing.T) {
	for _, v := range []string{"b7", "5x297", "210x9000", "210", "ax297"} {
		if _, err := tool(t, "resize-pdf").ParseParams(map[string]string{"page_size": v}); err == nil {
			t.Errorf("page_size %q accepted", v)
		} else {
			toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "page_size")
		}
	}
	_, err := run(t, "resize-pdf", map[string]string{"pages": "4"}, layoutPDF(t, "One", "Two"))
	toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "pages")
	wantCopyLimit(t, "resize-pdf", nil)
}
