package vips

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
)

// BenchmarkResize resizes phone-photo.jpg (4608x1976, 2.2 MB) to 1280 px
// wide with the tool (header check, the jailed vips thumbnail, read-back
// of the output's size) and with vipsthumbnail run directly, alternating
// the two in one loop so that both meet the same load on a shared
// machine. The input is placed in the job's directory before the clock
// starts, as the worker links it from the blob store before the tool
// runs. It reports the median of each (tool-p50-ms, vipsthumbnail-p50-ms)
// and prints their ratio beside the target; it never fails on it.
func BenchmarkResize(b *testing.B) {
	file := corpusImage(b, "phone-photo.jpg")
	tool := testTool(b, "resize-image")
	if _, err := exec.LookPath("vipsthumbnail"); err != nil {
		b.Skip("vipsthumbnail is not installed")
	}
	params, err := tool.ParseParams(map[string]string{"width": "1280"})
	if err != nil {
		b.Fatal(err)
	}
	var toolRuns, rawRuns []time.Duration
	for b.Loop() {
		dir := b.TempDir()
		in := &docmill.RunInput{Files: []docmill.LocalFile{inputFile(b, dir, file)}, Params: params, WorkDir: dir}
		start := time.Now()
		if _, err := tool.Run(context.Background(), in); err != nil {
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
	tool50, raw50 := p50(toolRuns), p50(rawRuns)
	b.ReportMetric(tool50, "tool-p50-ms")
	b.ReportMetric(raw50, "vipsthumbnail-p50-ms")
	b.ReportMetric(0, "ns/op")
	b.Logf("resize-image 1280 px, 2.2 MB phone photo: %.1f ms, vipsthumbnail %.1f ms: %.2fx vipsthumbnail run directly (target <= 1.1x), medians of %d",
		tool50, raw50, tool50/raw50, len(toolRuns))
}

// p50 returns the median of runs in milliseconds.
func p50(runs []time.Duration) float64 {
	slices.Sort(runs)
	return float64(runs[len(runs)/2].Microseconds()) / 1000
}
