package poppler

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkPDFToJPG renders the 117 pages of GeoTopo-komprimiert.pdf at
// 150 dpi with the tool (one pdftoppm run per slot, in parallel, then the
// zip), next to one plain pdftoppm run over the whole file, and reports
// pages per second for both.
func BenchmarkPDFToJPG(b *testing.B) {
	file := corpusPDF(b, "GeoTopo-komprimiert.pdf")
	const pages = 117
	tool := testTool(b, "pdf-to-jpg")
	b.Run("tool", func(b *testing.B) {
		for b.Loop() {
			if _, err := runTool(b, tool, file, map[string]string{"dpi": "150"}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
	})
	b.Run("raw-pdftoppm", func(b *testing.B) {
		for b.Loop() {
			prefix := filepath.Join(b.TempDir(), "p")
			if out, err := exec.Command("pdftoppm", "-jpeg", "-r", "150", file, prefix).CombinedOutput(); err != nil {
				b.Fatalf("pdftoppm: %v: %s", err, out)
			}
		}
		b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
	})
}
