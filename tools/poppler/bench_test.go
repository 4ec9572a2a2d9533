package poppler

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkPDFToJPG renders the 117 pages of GeoTopo-komprimiert.pdf at
// 150 dpi with the tool (pdfinfo, the pdftoppm runs over the engine's
// slots, the zip written as the runs end) and with one plain pdftoppm run
// over the whole file with the same options, alternating the two in one
// loop so that both meet the same load on a shared machine. It reports
// pages per second for both (bests) and prints the tool's speedup over
// one pdftoppm next to the target, from the bests and from the medians,
// with the tool's time split into pdfinfo, the pdftoppm runs (their
// number, and the busiest slot's share) and the rest, and the machine's
// load average; it never fails on the figure.
func BenchmarkPDFToJPG(b *testing.B) {
	file := corpusPDF(b, "GeoTopo-komprimiert.pdf")
	const pages = 117
	clock := &runClock{}
	tool, slots := timedTool(b, clock, "pdf-to-jpg")
	args := renderArgs(jpegFormat, defaultDPI, defaultQuality)
	var toolRuns, rawRuns []time.Duration
	var split string
	for b.Loop() {
		clock.reset()
		start := time.Now()
		if _, err := runTool(b, tool, file, map[string]string{"dpi": "150"}); err != nil {
			b.Fatal(err)
		}
		d := time.Since(start)
		if len(toolRuns) == 0 || d < slices.Min(toolRuns) {
			split = clock.split(d, slots)
		}
		toolRuns = append(toolRuns, d)

		prefix := filepath.Join(b.TempDir(), "p")
		start = time.Now()
		if out, err := exec.Command("pdftoppm", append(args, file, prefix)...).CombinedOutput(); err != nil {
			b.Fatalf("pdftoppm: %v: %s", err, out)
		}
		rawRuns = append(rawRuns, time.Since(start))
	}
	toolBest, rawBest := slices.Min(toolRuns), slices.Min(rawRuns)
	b.ReportMetric(pages/toolBest.Seconds(), "tool-pages/s")
	b.ReportMetric(pages/rawBest.Seconds(), "pdftoppm-pages/s")
	b.ReportMetric(0, "ns/op")
	b.Logf("pdf-to-jpg 150 dpi, %d pages, %d slots: speedup over one pdftoppm %.2fx from bests (tool %.2fs, pdftoppm %.2fs), %.2fx from medians of %d (target >= 1.8x); best run: %s; load average %s",
		pages, slots, rawBest.Seconds()/toolBest.Seconds(), toolBest.Seconds(), rawBest.Seconds(),
		median(rawRuns).Seconds()/median(toolRuns).Seconds(), len(toolRuns), split, loadAverage())
}

// runClock records the engine runs of one tool run (sandbox's Observe):
// each engine's total time and number of runs.
type runClock struct {
	mu    sync.Mutex
	total map[string]time.Duration
	runs  map[string]int
}

func (c *runClock) observe(r sandbox.RunReport) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total[r.Engine] += r.Duration
	c.runs[r.Engine]++
}

func (c *runClock) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total, c.runs = map[string]time.Duration{}, map[string]int{}
}

// split describes a tool run of wall time d on slots: pdfinfo's time,
// the pdftoppm runs' number and summed time, that time shared evenly over
// the slots (the least the runs could take), and the rest of d (the
// slots' imbalance, the zip's tail, Go).
func (c *runClock) split(d time.Duration, slots int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	info, ppm := c.total["pdfinfo"], c.total["pdftoppm"]
	shared := ppm / time.Duration(max(1, slots))
	return fmt.Sprintf("pdfinfo %s, %d pdftoppm runs %s (%s shared over the slots), the rest %s",
		ms(info), c.runs["pdftoppm"], ms(ppm), ms(shared), ms(d-info-shared))
}

// timedTool is the tool slug on engines of its own that report their
// runs to clock, and the slots of its pdftoppm.
func timedTool(b *testing.B, clock *runClock, slug string) (*docmill.Tool, int) {
	opts := sandbox.Options{View: sandbox.View{ReadOnly: DataPaths}, Observe: clock.observe}
	pdftoppm := sandbox.Find("pdftoppm", []string{"-v"}, opts)
	pdftotext := sandbox.Find("pdftotext", []string{"-v"}, opts)
	pdfinfo := sandbox.Find("pdfinfo", []string{"-v"}, opts)
	for _, e := range []*sandbox.Engine{pdftoppm, pdftotext, pdfinfo} {
		if !e.Available() {
			toolstest.Lacking(b, "%s is not available (not installed, or the jail cannot run)", e.Name)
		}
	}
	return toolstest.Find(b, pageTools(pdftoppm, pdftotext, pdfinfo, docmill.Limits{}), slug), pdftoppm.Slots()
}

// loadAverage is the machine's 1, 5 and 15-minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// ms formats d in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }

// median returns the middle of runs.
func median(runs []time.Duration) time.Duration {
	s := slices.Clone(runs)
	slices.Sort(s)
	return s[len(s)/2]
}
