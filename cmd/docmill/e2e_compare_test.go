package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"os/exec"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// comparePDF uploads original and changed to compare-pdf and returns the
// job and the report.
func comparePDF(t *testing.T, c *client.Client, original, changed []byte) (*client.Job, []byte) {
	t.Helper()
	return runTool(t, c, "compare-pdf", []client.File{
		{Name: "original.pdf", Body: bytes.NewReader(original)},
		{Name: "changed.pdf", Body: bytes.NewReader(changed)},
	}, nil)
}

// compareMeta checks the job's counts: words changed, added, removed,
// and pages that look different.
func compareMeta(t *testing.T, j *client.Job, identical bool, changed, added, removed, differing int) {
	t.Helper()
	want := map[string]any{"identical": identical, "words_changed": float64(changed), "words_added": float64(added),
		"words_removed": float64(removed), "pages_differing": float64(differing)}
	for k, v := range want {
		if j.Meta[k] != v {
			t.Fatalf("meta %s = %v, want %v (meta %v)", k, j.Meta[k], v, j.Meta)
		}
	}
}

// compareCheckPDF has qpdf check the report and pdfinfo count its pages.
func compareCheckPDF(t *testing.T, data []byte, pages int) {
	t.Helper()
	if out, err := exec.Command("qpdf", "--check", toolstest.WriteTemp(t, "report.pdf", data)).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --check: %v\n%s", err, out)
	}
	if m := pagesRE.FindStringSubmatch(pdfinfoReport(t, data)); m == nil || m[1] != fmt.Sprint(pages) {
		t.Fatalf("pdfinfo counts %v pages, want %d", m, pages)
	}
}

// compareHasColor reports whether any pixel of img is near c.
func compareHasColor(img image.Image, c color.RGBA) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if toolstest.Near(img.At(x, y), c, 40) {
				return true
			}
		}
	}
	return false
}

// compareDrawingPDF is a one-page PDF with a line of text and, when
// square is true, a filled square below it: two such PDFs have the same
// words but do not look the same.
func compareDrawingPDF(square bool) []byte {
	content := "BT /F1 24 Tf 72 720 Td (Same words on both) Tj ET"
	if square {
		content += " 0 0 0 rg 200 300 120 120 re f"
	}
	return toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
}

// TestComparePDFE2E compares documents through a real server and reads
// the reports with poppler and qpdf.
func TestComparePDFE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	t.Run("words", func(t *testing.T) {
		// On page 2 of 3: "quick" replaced by "slow", "lazy" removed,
		// "run" added.
		original := toolstest.TextPDF("First page stays", "The quick fox saw a lazy dog", "Third page stays")
		changed := toolstest.TextPDF("First page stays", "The slow fox saw a dog run", "Third page stays")
		j, data := comparePDF(t, c, original, changed)
		compareMeta(t, j, false, 1, 1, 1, 1)
		if got, ok := j.Meta["differing_pages"].([]any); !ok || len(got) != 1 || got[0] != float64(2) {
			t.Fatalf("differing_pages %v", j.Meta["differing_pages"])
		}
		// Summary, the original's page 2, the changed page 2, the diff
		// image of page 2.
		compareCheckPDF(t, data, 4)
		summary := strings.Join(strings.Fields(pageText(t, data, 1)), " ")
		for _, want := range []string{`page 2: "quick" -> "slow"`, `page 2: removed "lazy"`, `page 2: added "run"`,
			"Words changed: 1, added: 1, removed: 1", "Pages that look different: 1 (pages 2)"} {
			if !strings.Contains(summary, want) {
				t.Fatalf("summary %q lacks %q", summary, want)
			}
		}
		if got := strings.Join(strings.Fields(pageText(t, data, 2)), " "); got != "The quick fox saw a lazy dog" {
			t.Fatalf("page 2 of the report %q, want the original's page 2", got)
		}
		if got := strings.Join(strings.Fields(pageText(t, data, 3)), " "); got != "The slow fox saw a dog run" {
			t.Fatalf("page 3 of the report %q, want the changed page 2", got)
		}
		// The boxes, seen by pdftoppm: red on the original's page, green
		// on the changed one's, each only there.
		report := toolstest.WriteTemp(t, "boxes.pdf", data)
		red, green := color.RGBA{R: 217, A: 255}, color.RGBA{G: 153, A: 255}
		if !compareHasColor(toolstest.RenderPage(t, report, 2, 72), red) || compareHasColor(toolstest.RenderPage(t, report, 2, 72), green) {
			t.Fatal("page 2 of the report should have red boxes and no green ones")
		}
		if !compareHasColor(toolstest.RenderPage(t, report, 3, 72), green) || compareHasColor(toolstest.RenderPage(t, report, 3, 72), red) {
			t.Fatal("page 3 of the report should have green boxes and no red ones")
		}
		if !strings.Contains(pageText(t, data, 4), "Page 2: pixels that differ") {
			t.Fatalf("page 4 of the report %q, want the diff image's caption", pageText(t, data, 4))
		}
	})
	t.Run("identical", func(t *testing.T) {
		// Cyrillic file names, drawn in the stamp font, read back.
		doc := toolstest.TextPDF("Same first page", "Same second page")
		j, data := runTool(t, c, "compare-pdf", []client.File{
			{Name: "отчёт.pdf", Body: bytes.NewReader(doc)},
			{Name: "отчёт-2.pdf", Body: bytes.NewReader(doc)},
		}, nil)
		compareMeta(t, j, true, 0, 0, 0, 0)
		compareCheckPDF(t, data, 1)
		text := pdftotext(t, data)
		for _, want := range []string{"The documents are identical", "Original: отчёт.pdf (2 pages)", "Changed: отчёт-2.pdf (2 pages)"} {
			if !strings.Contains(text, want) {
				t.Fatalf("report text %q lacks %q", text, want)
			}
		}
	})
	t.Run("drawing", func(t *testing.T) {
		j, data := comparePDF(t, c, compareDrawingPDF(false), compareDrawingPDF(true))
		compareMeta(t, j, false, 0, 0, 0, 1)
		compareCheckPDF(t, data, 2) // the summary and the diff image
	})
	t.Run("damaged", func(t *testing.T) {
		damaged := toolstest.TextPDF("Damaged")[:120]
		_, _, err := c.Process(context.Background(), "compare-pdf", []client.File{
			{Name: "original.pdf", Body: bytes.NewReader(toolstest.TextPDF("Fine"))},
			{Name: "broken.pdf", Body: bytes.NewReader(damaged)},
		}, client.ProcessOptions{Prefer: "wait=60"})
		e := apiErrorDetail(t, err, 400, "invalid_document", `File 2 ("broken.pdf")`)
		if strings.Contains(e.Detail, "/tmp") || strings.Contains(e.Detail, "pdfinfo") {
			t.Fatalf("detail %q", e.Detail)
		}
	})
}
