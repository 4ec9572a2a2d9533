package pdfops

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// rotatedTextPDF is one A4 page showing a line of text, turned by rot
// degrees for the viewer.
func rotatedTextPDF(rot int) []byte {
	content := "BT /F1 24 Tf 72 720 Td (Rotated page words) Tj ET"
	return toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Rotate %d /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>", rot),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
}

// TestCompareReportBoxesOnRotatedPages draws a box given in pdftotext's
// coordinates (of the page as shown) on pages turned every way, and has
// pdftoppm find it where it was asked for.
func TestCompareReportBoxesOnRotatedPages(t *testing.T) {
	// The shown box of "page", as pdftotext -bbox reports it.
	boxes := map[int][4]float64{
		0:   {72, 98, 125, 120},
		90:  {715.032, 162.72, 737.232, 216.096},
		180: {469.9, 722, 523, 744},
		270: {104.768, 378.904, 126.968, 432.28},
	}
	for rot, box := range boxes {
		t.Run(fmt.Sprint(rot), func(t *testing.T) {
			dir := t.TempDir()
			src := toolstest.WriteTemp(t, "rotated.pdf", rotatedTextPDF(rot))
			plan := filepath.Join(dir, "plan.json")
			items := fmt.Sprintf(`{"summary": ["Boxes"], "items": [{"doc": 0, "page": 1, "boxes": [[%g, %g, %g, %g]]}]}`, box[0], box[1], box[2], box[3])
			if err := os.WriteFile(plan, []byte(items), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := CompareReportStep().Run(context.Background(), &docmill.RunInput{WorkDir: dir, Files: []docmill.LocalFile{
				{Path: src, Filename: "a.pdf"}, {Path: src, Filename: "b.pdf"}, {Path: plan, Filename: "plan.json"}}})
			if err != nil {
				t.Fatal(err)
			}
			img := toolstest.RenderPage(t, out.Path, 2, 72)
			b := img.Bounds()
			minX, minY, maxX, maxY := b.Max.X, b.Max.Y, -1, -1
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					if toolstest.Near(img.At(x, y), color.RGBA{R: 217, A: 255}, 40) {
						minX, minY, maxX, maxY = min(minX, x), min(minY, y), max(maxX, x), max(maxY, y)
					}
				}
			}
			// The box stands outlinePad off the word, its line a pixel or
			// two wide at 72 dpi.
			for i, got := range []int{minX, minY, maxX, maxY} {
				if d := float64(got) - box[i]; d < -4 || d > 4 {
					t.Fatalf("red pixels span %d,%d-%d,%d; want about %v", minX, minY, maxX, maxY, box)
				}
			}
		})
	}
}
