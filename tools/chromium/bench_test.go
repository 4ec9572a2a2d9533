package chromium

import (
	"slices"
	"testing"
	"time"
)

const onePage = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Invoice</title>
<style>body { font-family: sans-serif; } table { border-collapse: collapse; } td { border: 1px solid #999; padding: 4px; }</style>
</head><body><h1>Invoice 2026-001</h1><p>Thank you for your order.</p>
<table><tr><td>Item</td><td>Price</td></tr><tr><td>Widget</td><td>10.00</td></tr></table></body></html>`

// BenchmarkHTMLToPDFWarm is html-to-pdf of a one-page HTML on a warm
// browser, one job at a time; it reports the median job time (p50-ms).
func BenchmarkHTMLToPDFWarm(b *testing.B) {
	br := testBrowser(b)
	tl := tool(b, br, "html-to-pdf")
	mustRun(b, tl, "warm.html", "text/html", []byte(onePage), nil) // start the browser
	times := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		mustRun(b, tl, "invoice.html", "text/html", []byte(onePage), nil)
		times = append(times, time.Since(start))
	}
	reportPercentiles(b, times)
}

// BenchmarkHTMLToPDFCold is the first job of a new Browser: the browser's
// start plus one job.
func BenchmarkHTMLToPDFCold(b *testing.B) {
	testBrowser(b)
	times := make([]time.Duration, 0, b.N)
	for b.Loop() {
		br := New(Options{})
		tl := tool(b, br, "html-to-pdf")
		start := time.Now()
		mustRun(b, tl, "invoice.html", "text/html", []byte(onePage), nil)
		times = append(times, time.Since(start))
		br.Close()
	}
	reportPercentiles(b, times)
}

func reportPercentiles(b *testing.B, times []time.Duration) {
	if len(times) == 0 {
		return
	}
	slices.Sort(times)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(times[len(times)/2]), "p50-ms")
	b.ReportMetric(ms(times[len(times)*9/10]), "p90-ms")
}
