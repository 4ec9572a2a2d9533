package pdfops_test

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// rectPDF is a one-page PDF with mediaBox and rotate whose content fills
// the rectangle 100,200 to 400,600 of the page's own coordinates.
func rectPDF(t *testing.T, mediaBox string, rotate int) string {
	content := "0 0 1 rg 100 200 300 400 re f"
	return toolstest.WriteTemp(t, "rect.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [%s] /Rotate %d /Contents 4 0 R >>", mediaBox, rotate),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)))
}

// setCropBox runs the step crop-pdf injects, as the PDF helper runs it.
func setCropBox(t *testing.T, path string, params docmill.Params) (*docmill.RunOutput, error) {
	t.Helper()
	if _, ok := params["pages"]; !ok {
		params["pages"] = "all"
	}
	in := &docmill.RunInput{Params: params, WorkDir: t.TempDir(),
		Files: []docmill.LocalFile{{Path: path, Filename: "doc.pdf", ContentType: "application/pdf"}}}
	return pdfops.SetCropBoxStep().Invoke(context.Background(), in)
}

// popplerCropBox returns page 1's crop box as poppler's pdfinfo reads it.
func popplerCropBox(t *testing.T, path string) [4]float64 {
	t.Helper()
	out, err := exec.Command("pdfinfo", "-box", "-f", "1", "-l", "1", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	for line := range strings.Lines(string(out)) {
		if rest, ok := strings.CutPrefix(line, "Page    1 CropBox:"); ok {
			var b [4]float64
			if _, err := fmt.Sscan(rest, &b[0], &b[1], &b[2], &b[3]); err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatalf("pdfinfo printed no crop box:\n%s", out)
	return [4]float64{}
}

func near(a, b [4]float64, tolerance float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tolerance {
			return false
		}
	}
	return true
}

func TestSetCropBox(t *testing.T) {
	for _, tc := range []struct {
		name   string
		media  string
		rotate int
		params docmill.Params
		want   [4]float64
	}{
		{"margins", "0 0 595 842", 0, docmill.Params{"margins": "10,20,30,40"}, [4]float64{40, 30, 575, 832}},
		// Shown turned a quarter clockwise, the page's left edge is on top.
		{"margins-rotated", "0 0 595 842", 90, docmill.Params{"margins": "10,20,30,40"}, [4]float64{10, 40, 565, 822}},
		{"box", "0 0 595 842", 0, docmill.Params{"box": "50,60,300,400"}, [4]float64{50, 60, 300, 400}},
		{"box-offset-media", "50 60 595 842", 0, docmill.Params{"box": "0,0,100,100"}, [4]float64{50, 60, 150, 160}},
		// Boxes as Ghostscript's bbox device reports these pages.
		{"drawn", "0 0 595 842", 0, docmill.Params{"drawn": "1:99.75,200,400.25,600;", "padding": "0"}, [4]float64{99.75, 200, 400.25, 600}},
		{"drawn-rotated", "0 0 595 842", 90, docmill.Params{"drawn": "1:199.75,195,600.25,495;", "padding": "0"}, [4]float64{100, 199.75, 400, 600.25}},
		{"drawn-270-offset", "50 60 595 842", 270, docmill.Params{"drawn": "1:241.75,50,642.25,350;", "padding": "5"}, [4]float64{95, 194.75, 405, 605.25}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := setCropBox(t, rectPDF(t, tc.media, tc.rotate), tc.params)
			if err != nil {
				t.Fatal(err)
			}
			if out.Meta["cropped_pages"] != 1 {
				t.Fatalf("meta %v", out.Meta)
			}
			if got := popplerCropBox(t, out.Path); !near(got, tc.want, 0.01) {
				t.Fatalf("crop box %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSetCropBoxRefused(t *testing.T) {
	for _, tc := range []struct {
		field  string
		params docmill.Params
	}{
		{"box", docmill.Params{"box": "0,0,600,100"}},         // wider than the page
		{"margins", docmill.Params{"margins": "400,0,450,0"}}, // taller than the page
		{"pages", docmill.Params{"margins": "1,1,1,1", "pages": "2"}},
	} {
		_, err := setCropBox(t, rectPDF(t, "0 0 595 842", 0), tc.params)
		toolstest.WantCode(t, err, docmill.CodeInvalidParameter, tc.field)
	}
}

// TestSetCropBoxBlank leaves a page without drawing (an empty box) as it is.
func TestSetCropBoxBlank(t *testing.T) {
	out, err := setCropBox(t, rectPDF(t, "0 0 595 842", 0), docmill.Params{"drawn": "1:0,0,0,0;", "padding": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["cropped_pages"] != 0 || popplerCropBox(t, out.Path) != [4]float64{0, 0, 595, 842} {
		t.Fatalf("meta %v, crop box %v", out.Meta, popplerCropBox(t, out.Path))
	}
}
