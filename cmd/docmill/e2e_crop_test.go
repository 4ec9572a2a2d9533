package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// popplerCropBoxes returns the crop box of every page of a PDF as
// poppler's pdfinfo, not the pdfcpu that wrote it, reads them.
func popplerCropBoxes(t *testing.T, data []byte) [][4]float64 {
	t.Helper()
	out, err := exec.Command("pdfinfo", "-box", "-f", "1", "-l", "9999", toolstest.WriteTemp(t, "cropped.pdf", data)).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	var boxes [][4]float64
	for line := range strings.Lines(string(out)) {
		_, rest, ok := strings.Cut(line, " CropBox:")
		if !ok || !strings.HasPrefix(line, "Page ") {
			continue
		}
		var b [4]float64
		if _, err := fmt.Sscan(rest, &b[0], &b[1], &b[2], &b[3]); err != nil {
			t.Fatal(err)
		}
		boxes = append(boxes, b)
	}
	return boxes
}

// boxNear reports whether two boxes agree within tolerance points.
func boxNear(a, b [4]float64, tolerance float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tolerance {
			return false
		}
	}
	return true
}

// drawnPDF is a two-page A4 PDF: page 1 draws a filled rectangle from
// 100,200 to 400,600 (points), page 2 nothing.
func drawnPDF() []byte {
	content := "0.2 0.4 0.8 rg 100 200 300 400 re f"
	return toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 5 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>")
}

func TestCropPDFE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	const mm = 72 / 25.4
	a4 := [4]float64{0, 0, 595.28, 841.89}

	t.Run("margins", func(t *testing.T) {
		j, data := runTool(t, c, "crop-pdf", []client.File{file(t, "pdf", fourPages)}, map[string]string{"margins": "10"})
		if j.Result.Filename != "pdflatex-4-pages-cropped.pdf" || j.Result.ContentType != "application/pdf" {
			t.Fatalf("result %+v", j.Result)
		}
		boxes := popplerCropBoxes(t, data)
		want := [4]float64{10 * mm, 10 * mm, a4[2] - 10*mm, a4[3] - 10*mm}
		if len(boxes) != 4 {
			t.Fatalf("pdfinfo reads %d pages", len(boxes))
		}
		for i, b := range boxes {
			if !boxNear(b, want, 0.02) {
				t.Errorf("page %d: crop box %v, want %v", i+1, b, want)
			}
		}
	})
	t.Run("box", func(t *testing.T) {
		_, data := runTool(t, c, "crop-pdf", []client.File{file(t, "pdf", fourPages)}, map[string]string{"box": "20,20,100,150", "pages": "2"})
		boxes := popplerCropBoxes(t, data)
		if want := [4]float64{20 * mm, 20 * mm, 100 * mm, 150 * mm}; len(boxes) != 4 || !boxNear(boxes[1], want, 0.02) {
			t.Fatalf("crop boxes %v, want page 2's %v", boxes, want)
		}
		if !boxNear(boxes[0], a4, 0.01) || !boxNear(boxes[2], a4, 0.01) {
			t.Fatalf("pages not chosen were cropped: %v", boxes)
		}
	})
	t.Run("auto", func(t *testing.T) {
		drawn := [4]float64{100, 200, 400, 600}
		for _, tc := range []struct {
			padding string
			pad     float64
		}{{"0", 0}, {"5", 5 * mm}} {
			j, data := runTool(t, c, "crop-pdf", []client.File{{Name: "drawn.pdf", Body: bytes.NewReader(drawnPDF())}},
				map[string]string{"auto": "true", "padding": tc.padding})
			boxes := popplerCropBoxes(t, data)
			want := [4]float64{drawn[0] - tc.pad, drawn[1] - tc.pad, drawn[2] + tc.pad, drawn[3] + tc.pad}
			// Ghostscript measures at 144 dpi: within a pixel.
			if len(boxes) != 2 || !boxNear(boxes[0], want, 0.6) {
				t.Fatalf("padding %s: crop boxes %v, want page 1's %v", tc.padding, boxes, want)
			}
			if !boxNear(boxes[1], [4]float64{0, 0, 595, 842}, 0.01) || fmt.Sprint(j.Meta["cropped_pages"]) != "1" {
				t.Fatalf("the blank page 2 was cropped: %v, meta %v", boxes[1], j.Meta)
			}
		}
	})
	// Ghostscript reports the boxes on standard error, of which the
	// sandbox keeps the end: a long document is measured in runs.
	t.Run("auto-long", func(t *testing.T) {
		const pages = 200 // about 19 KB of boxes
		objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", ""}
		var kids []string
		for p := 1; p <= pages; p++ {
			content := fmt.Sprintf("0 0 0 rg %d 100 200 300 re f", 50+p)
			kids = append(kids, fmt.Sprintf("%d 0 R", len(objs)+1))
			objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents %d 0 R >>", len(objs)+2),
				fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
		}
		objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages)
		_, data := runTool(t, c, "crop-pdf", []client.File{{Name: "long.pdf", Body: bytes.NewReader(toolstest.PDF(objs...))}},
			map[string]string{"auto": "true", "padding": "0"})
		boxes := popplerCropBoxes(t, data)
		if len(boxes) != pages {
			t.Fatalf("pdfinfo reads %d pages", len(boxes))
		}
		for _, p := range []int{1, 64, 65, 200} {
			if want := [4]float64{float64(50 + p), 100, float64(250 + p), 400}; !boxNear(boxes[p-1], want, 0.6) {
				t.Errorf("page %d: crop box %v, want %v", p, boxes[p-1], want)
			}
		}
	})
	t.Run("refused", func(t *testing.T) {
		for _, tc := range []struct {
			params map[string]string
			field  string
		}{
			{map[string]string{"box": "0,0,300,100"}, "box"},         // wider than A4
			{map[string]string{"margins": "150,0,150,0"}, "margins"}, // leaves no height
			{map[string]string{"margins": "10", "auto": "true"}, "auto"},
			{map[string]string{"margins": "1,2"}, "margins"},
		} {
			_, _, err := c.Process(context.Background(), "crop-pdf", []client.File{file(t, "pdf", fourPages)},
				client.ProcessOptions{Params: tc.params, Prefer: "wait=60"})
			if e := apiError(t, err, 400, "invalid_parameter"); len(e.Fields) == 0 || e.Fields[0].Field != tc.field {
				t.Fatalf("%v: %+v", tc.params, e)
			}
		}
		// A damaged file measured by Ghostscript is the client's fault,
		// told without a path or engine output.
		damaged := drawnPDF()[:200]
		_, _, err := c.Process(context.Background(), "crop-pdf", []client.File{{Name: "damaged.pdf", Body: bytes.NewReader(damaged)}},
			client.ProcessOptions{Params: map[string]string{"auto": "true"}, Prefer: "wait=60"})
		if e := apiError(t, err, 400, "invalid_document"); strings.Contains(e.Detail, "/") {
			t.Fatalf("detail %q", e.Detail)
		}
	})
}
