package vips

import (
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkResize resizes phone-photo.jpg (4608x1976, 2.2 MB) to 1280 px
// wide with the tool (sandbox, header check, vips thumbnail, read-back of
// the output) and with vipsthumbnail run directly, alternating the two in
// one loop so that both meet the same load on a shared machine, and
// reports the median of each (tool-p50-ms, vipsthumbnail-p50-ms).
func BenchmarkResize(b *testing.B) {
	file := corpusImage(b, "phone-photo.jpg")
	tool := testTool(b, "resize-image")
	if _, err := exec.LookPath("vipsthumbnail"); err != nil {
		b.Skip("vipsthumbnail is not installed")
	}
	var toolRuns, rawRuns []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := runTool(b, tool, file, map[string]string{"width": "1280"}); err != nil {
			b.Fatal(err)
		}
		toolRuns = append(toolRuns, time.Since(start))

		out := filepath.Join(b.TempDir(), "t.jpg")
		start = time.Now()
		// The same encoding as the tool's: Q=85 with optimised Huffman tables.
		if msg, err := exec.Command("vipsthumbnail", file, "--size", "1280x", "-o", out+"[Q=85,optimize_coding]").CombinedOutput(); err != nil {
			b.Fatalf("vipsthumbnail: %v: %s", err, msg)
		}
		rawRuns = append(rawRuns, time.Since(start))
	}
	b.ReportMetric(p50(toolRuns), "tool-p50-ms")
	b.ReportMetric(p50(rawRuns), "vipsthumbnail-p50-ms")
	b.ReportMetric(0, "ns/op")
}

// p50 returns the median of runs in milliseconds.
func p50(runs []time.Duration) float64 {
	slices.Sort(runs)
	return float64(runs[len(runs)/2].Microseconds()) / 1000
}
