package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/chromium"
	"github.com/docmill/docmill/tools/toolstest"
)

// htmlFloorTarget is the target for html-to-pdf: over HTTP, the
// time per document within this factor of the floor's at 1 client, and
// at 4 clients a throughput no lower than the floor's (4 floors in
// parallel).
const htmlFloorTarget = 1.2

// BenchmarkHTMLTable runs html-to-pdf synchronously over HTTP on issue
// 15's table page (toolstest.TablePage(200), 7 A4 pages) with 1 and 4
// concurrent clients, against a server process at its defaults, beside
// its floor: the bare chromedp print loop (bareChromium), as many loops
// as clients, in a browser of its own. Server and floor run in
// alternating blocks of b.N documents, several rounds, and the best
// round of each counts, so that load on a shared machine falls on both
// alike. It reports documents per second, the p50 call time and the
// floor's figures. Figures only: nothing here fails on time. A smoke
// pass (toolstest.BenchSmoke) runs one client only.
func BenchmarkHTMLTable(b *testing.B) {
	page := toolstest.TablePage(200)
	dir := b.TempDir()
	s := startChild(b, dir, "--log-level", "error")
	c := s.client(newKey(b, dir, "custom", "--rpm", "100000", "--in-flight", "100"))
	floor := startBareChromium(b, page)
	htmlCall(b, c, "html-to-pdf", page) // starts the browser
	for _, tc := range []struct {
		clients int
		target  float64
	}{{1, toolstest.TableTargetDocsPerSec1}, {4, toolstest.TableTargetDocsPerSec4}} {
		b.Run(fmt.Sprintf("clients=%d", tc.clients), func(b *testing.B) {
			if toolstest.BenchSmoke() && tc.clients != 1 {
				b.Skip("smoke pass: one client only")
			}
			rate, floorRate := htmlRounds(b, c, "html-to-pdf", tc.clients, page, floor)
			b.Logf("html-to-pdf over HTTP, table page, %d clients: %.2f docs/s, floor (%d bare chromedp loops) %.2f docs/s: time per doc %.2fx the floor's (target <= %s); target >= %.1f docs/s; Gotenberg, measured elsewhere: %.1f / %.1f at 1 / 4 clients",
				tc.clients, rate, tc.clients, floorRate, floorRate/rate, map[bool]string{true: fmt.Sprintf("%.1fx", htmlFloorTarget), false: "1.0x"}[tc.clients == 1],
				tc.target, toolstest.TableGotenberg1, toolstest.TableGotenberg4)
		})
	}
	b.Run("html-to-image/clients=1", func(b *testing.B) {
		rate, floorRate := htmlRounds(b, c, "html-to-image", 1, page, floor.shooter(b))
		b.Logf("html-to-image over HTTP, table page, 1 client: %.2f docs/s, floor (a bare chromedp screenshot loop) %.2f docs/s: time per doc %.2fx the floor's (target <= %.1fx)",
			rate, floorRate, floorRate/rate, htmlFloorTarget)
	})
}

// htmlRounds runs b.N calls of tool on page from clients, over HTTP, and
// as many documents of floor, in alternating rounds (several but in a
// smoke pass), and reports and returns the best round's documents per
// second of each, with the p50 call time of the tool's best round.
func htmlRounds(b *testing.B, c *client.Client, tool string, clients int, page []byte, floor *bareChromium) (rate, floorRate float64) {
	var p50 time.Duration
	for range toolstest.BenchSize(3, 1) {
		floorRate = max(floorRate, floor.rate(b, clients, b.N))
		lat, elapsed := htmlLoad(b, c, tool, clients, page)
		if r := float64(len(lat)) / elapsed.Seconds(); r > rate {
			rate, p50 = r, percentile(lat, 50)
		}
	}
	b.ReportMetric(rate, "docs/s")
	b.ReportMetric(floorRate, "floor_docs/s")
	b.ReportMetric(floorRate/rate, "x_floor")
	b.ReportMetric(ms(p50), "p50_ms")
	return rate, floorRate
}

// bareChromium is html-to-pdf's floor: a headless Chromium of its own,
// unconfined, and per client one tab that loads the page from a local
// file and prints it with the tool's default settings (A4, 0.8 in
// margins, backgrounds, untagged; the PDF returned in the reply), again
// and again.
type bareChromium struct {
	ctx  context.Context
	url  string
	tabs chan context.Context
	// do is the work of one document in a tab: print (or, for a
	// shooter, shoot).
	do func(b *testing.B, tab context.Context)
}

// startBareChromium starts the floor's browser, closed when b ends, or
// skips b without Chromium.
func startBareChromium(b *testing.B, page []byte) *bareChromium {
	exe := chromium.ExecPath()
	toolstest.NeedAt(b, "chromium", exe)
	dir := b.TempDir()
	file := filepath.Join(dir, "orders.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		b.Fatal(err)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe), chromedp.UserDataDir(filepath.Join(dir, "profile")), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.Flag("disable-background-networking", true))
	ctx, cancel := chromedp.NewContext(alloc)
	b.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		b.Fatal(err)
	}
	f := &bareChromium{ctx: ctx, url: "file://" + file, tabs: make(chan context.Context, 4)}
	f.do = f.printIn
	for range cap(f.tabs) {
		tab, _ := chromedp.NewContext(ctx)
		if err := chromedp.Do(tab); err != nil {
			b.Fatal(err)
		}
		f.tabs <- tab
		f.print(b) // each tab's first page
	}
	return f
}

// print does one document's work (do) in a free tab.
func (f *bareChromium) print(b *testing.B) {
	tab := <-f.tabs
	defer func() { f.tabs <- tab }()
	f.do(b, tab)
}

// shooter returns html-to-image's floor beside f's, in f's browser: one
// tab of its own, its viewport the tool's default (1280 by 800 CSS
// pixels), that loads the page and takes a PNG screenshot of the
// viewport, again and again.
func (f *bareChromium) shooter(b *testing.B) *bareChromium {
	tab, _ := chromedp.NewContext(f.ctx)
	if err := chromedp.Do(tab); err != nil {
		b.Fatal(err)
	}
	if _, err := chromedp.Call(tab, emulation.SetDeviceMetricsOverride,
		emulation.SetDeviceMetricsOverrideParams{Width: 1280, Height: 800, DeviceScaleFactor: 1}); err != nil {
		b.Fatal(err)
	}
	s := &bareChromium{ctx: f.ctx, url: f.url, tabs: make(chan context.Context, 1), do: f.shootIn}
	s.tabs <- tab
	s.print(b) // the tab's first page
	return s
}

// shootIn loads the page in tab and takes its screenshot.
func (f *bareChromium) shootIn(b *testing.B, tab context.Context) {
	if err := chromedp.Do(tab, chromedp.Navigate(f.url)); err != nil {
		b.Fatal(err)
	}
	res, err := chromedp.Call(tab, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil || len(res.Data) == 0 {
		b.Fatalf("screenshot: %v", err)
	}
}

// printIn loads the page in tab and prints it with the tool's defaults.
func (f *bareChromium) printIn(b *testing.B, tab context.Context) {
	if err := chromedp.Do(tab, chromedp.Navigate(f.url)); err != nil {
		b.Fatal(err)
	}
	margin, background, tagged := 0.8, true, false
	_, err := chromedp.Run(tab, chromedp.PrintToPDF(func(p *page.PrintToPDFParams) {
		p.PaperWidth, p.PaperHeight = 8.27, 11.69
		p.MarginTop, p.MarginBottom, p.MarginLeft, p.MarginRight = &margin, &margin, &margin, &margin
		p.PrintBackground, p.GenerateTaggedPDF = &background, &tagged
	}))
	if err != nil {
		b.Fatal(err)
	}
}

// rate prints the page n times from clients loops at once and returns
// the documents per second.
func (f *bareChromium) rate(b *testing.B, clients, n int) float64 {
	next := make(chan struct{}, n)
	for range n {
		next <- struct{}{}
	}
	close(next)
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for range next {
				f.print(b)
			}
		})
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}

// htmlLoad sends b.N synchronous calls of tool on page from clients
// goroutines and returns each call's time and the wall time.
func htmlLoad(b *testing.B, c *client.Client, tool string, clients int, page []byte) ([]time.Duration, time.Duration) {
	next := make(chan struct{}, b.N)
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for range next {
				t0 := time.Now()
				htmlCall(b, c, tool, page)
				mu.Lock()
				lat = append(lat, time.Since(t0))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return lat, time.Since(start)
}

// htmlCall runs tool (html-to-pdf, html-to-image) on page,
// synchronously, at the defaults, and downloads the result.
func htmlCall(b *testing.B, c *client.Client, tool string, page []byte) {
	ctx := context.Background()
	j, _, err := c.Process(ctx, tool,
		[]client.File{{Name: "orders.html", Body: bytes.NewReader(page)}}, client.ProcessOptions{Prefer: "wait=300"})
	if err != nil || j.Status != "done" || j.Result == nil {
		b.Errorf("%s: %v %+v", tool, err, j)
		return
	}
	if _, err := c.Download(ctx, j.Result.URL, io.Discard); err != nil {
		b.Errorf("%s: download: %v", tool, err)
	}
}
