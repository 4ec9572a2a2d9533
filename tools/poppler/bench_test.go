package poppler

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkPDFToJPG renders the 117 pages of GeoTopo-komprimiert.pdf at
// 150 dpi with the tool (pdfinfo, the pdftoppm runs over the engine's
// slots, the zip) and with one plain pdftoppm run over the whole file with
// the same options, alternating the two in one loop so that both meet the
// same load on a shared machine. It reports pages per second for both
// (medians) and prints the tool's speedup over one pdftoppm next to the
// issue's target; it never fails on the figure. A smoke pass
// (toolstest.BenchSmoke) renders the 4 pages of pdflatex-4-pages.pdf.
func BenchmarkPDFToJPG(b *testing.B) {
	name, pages := toolstest.BenchSize("GeoTopo-komprimiert.pdf", "pdflatex-4-pages.pdf"), toolstest.BenchSize(117, 4)
	file := corpusPDF(b, name)
	pdftoppm, _, _ := testEngines(b)
	tool := testTool(b, "pdf-to-jpg")
	args := renderArgs(jpegFormat, defaultDPI, defaultQuality)
	var toolRuns, rawRuns []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := runTool(b, tool, file, map[string]string{"dpi": "150"}); err != nil {
			b.Fatal(err)
		}
		toolRuns = append(toolRuns, time.Since(start))

		prefix := filepath.Join(b.TempDir(), "p")
		start = time.Now()
		if out, err := exec.Command("pdftoppm", append(args, file, prefix)...).CombinedOutput(); err != nil {
			b.Fatalf("pdftoppm: %v: %s", err, out)
		}
		rawRuns = append(rawRuns, time.Since(start))
	}
	tool50, raw50 := median(toolRuns), median(rawRuns)
	b.ReportMetric(float64(pages)/tool50.Seconds(), "tool-pages/s")
	b.ReportMetric(float64(pages)/raw50.Seconds(), "pdftoppm-pages/s")
	b.ReportMetric(0, "ns/op")
	b.Logf("pdf-to-jpg 150 dpi, %d pages: %.2fs, one pdftoppm %.2fs: speedup %.2fx over one pdftoppm (target >= 1.8x), %d slots, medians of %d",
		pages, tool50.Seconds(), raw50.Seconds(), raw50.Seconds()/tool50.Seconds(), pdftoppm.Slots(), len(toolRuns))
}

// median returns the middle of runs.
func median(runs []time.Duration) time.Duration {
	s := slices.Clone(runs)
	slices.Sort(s)
	return s[len(s)/2]
}
