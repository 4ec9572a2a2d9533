package chromium

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/docmill/docmill/tools/toolstest"
)

// The targets, relative to the bare loop.
const (
	targetBareRatio = 1.2 // tool time per document over the bare loop's
	targetSizeRatio = 1.2 // tool PDF size over an untagged bare print's
)

// BenchmarkHTMLToPDFTable measures html-to-pdf on toolstest.TablePage
// (200 rows, 7 A4 pages) against a bare Chromium floor on the same warm
// browser: documents per second at 1 and 4 concurrent clients, b.N
// documents each, and the PDF sizes. The bare loop opens a tab, loads the
// page from a local file, prints it with Page.printToPDF's default settings
// and closes the tab. The browser is configured as the server configures
// it (one tab per CPU). Figures only: nothing here fails on time.
func BenchmarkHTMLToPDFTable(b *testing.B) {
	testBrowser(b) // skips without Chromium or poppler
	br := New(Options{})
	defer br.Close()
	tl := tool(b, br, "html-to-pdf")
	html := toolstest.TablePage(200)
	out := mustRun(b, tl, "orders.html", "text/html", html, nil) // starts the browser
	if n := pages(b, out.Path); n != 7 {
		b.Fatalf("the table page printed on %d pages, want 7", n)
	}
	inst, err := br.acquire()
	if err != nil {
		b.Fatal(err)
	}
	defer br.release(inst)
	file := filepath.Join(inst.dir, "orders.html")
	if err := os.WriteFile(file, html, 0o644); err != nil {
		b.Fatal(err)
	}
	url := "file://" + inst.paths.InJail(file)
	toolDoc := func(raw map[string]string) func() int64 {
		return func() int64 {
			st, err := os.Stat(mustRun(b, tl, "orders.html", "text/html", html, raw).Path)
			if err != nil {
				b.Fatal(err)
			}
			return st.Size()
		}
	}
	bareDoc := func(tagged bool) func() int64 {
		return func() int64 {
			pdf, err := barePrint(inst, url, tagged)
			if err != nil {
				b.Fatalf("bare print: %v", err)
			}
			return int64(len(pdf))
		}
	}

	b.ResetTimer()
	var rates [2][2]float64 // [clients 1, 4][tool, bare]
	var toolSize, bareSize int64
	for i, clients := range []int{1, 4} {
		rates[i][0], toolSize = docsPerSecond(b.N, clients, toolDoc(nil))
		rates[i][1], bareSize = docsPerSecond(b.N, clients, bareDoc(false))
	}
	b.StopTimer()
	_, taggedToolSize := docsPerSecond(1, 1, toolDoc(map[string]string{"tagged": "true"}))
	_, taggedBareSize := docsPerSecond(1, 1, bareDoc(true))

	b.ReportMetric(rates[0][0], "docs/s-1client")
	b.ReportMetric(rates[1][0], "docs/s-4clients")
	b.ReportMetric(rates[0][1]/rates[0][0], "x-bare-1client")
	b.ReportMetric(rates[1][1]/rates[1][0], "x-bare-4clients")
	b.ReportMetric(float64(toolSize)/1024, "KB")
	b.ReportMetric(float64(toolSize)/float64(bareSize), "x-bare-size")
	kb := func(n int64) float64 { return float64(n) / 1024 }
	b.Logf("html-to-pdf, 200-row table page (7 A4 pages), %d documents per figure:", b.N)
	b.Logf("  1 client:  %5.2f docs/s (target >= %.1f); bare Chromium loop %5.2f docs/s; time per doc %.2fx the bare loop's (target <= %.1fx)",
		rates[0][0], toolstest.TableTargetDocsPerSec1, rates[0][1], rates[0][1]/rates[0][0], targetBareRatio)
	b.Logf("  4 clients: %5.2f docs/s (target >= %.1f); bare Chromium loop %5.2f docs/s; time per doc %.2fx the bare loop's (target <= %.1fx)",
		rates[1][0], toolstest.TableTargetDocsPerSec4, rates[1][1], rates[1][1]/rates[1][0], targetBareRatio)
	b.Logf("  size: %.0f KB (tagged=true: %.0f KB); bare untagged print %.0f KB, ratio %.2fx (target <= %.1fx); bare tagged print %.0f KB",
		kb(toolSize), kb(taggedToolSize), kb(bareSize), float64(toolSize)/float64(bareSize), targetSizeRatio, kb(taggedBareSize))
	b.Logf("  reference, not measured here: Gotenberg 8.36 on the same page, 2 cores: %.1f / %.1f docs/s, %d KB",
		toolstest.TableGotenberg1, toolstest.TableGotenberg4, toolstest.TableGotenbergKB)
}

// docsPerSecond makes n documents with doc from clients goroutines and
// returns the documents per second and the size of the last document.
func docsPerSecond(n, clients int, doc func() int64) (float64, int64) {
	next := make(chan struct{}, n)
	for range n {
		next <- struct{}{}
	}
	close(next)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var size int64
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for range next {
				s := doc()
				mu.Lock()
				size = s
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return float64(n) / time.Since(start).Seconds(), size
}

// barePrint is the floor html-to-pdf is measured against: a new tab on
// inst (in the browser's default context), url loaded, the page printed
// with Page.printToPDF's defaults (Letter, 0.4 in margins, no
// backgrounds, the PDF returned in the reply), tagged or not, and the tab
// closed.
func barePrint(inst *instance, url string, tagged bool) ([]byte, error) {
	ctx, cancel := chromedp.NewContext(inst.ctx)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		return nil, err
	}
	return chromedp.Run(ctx, chromedp.PrintToPDF(func(p *page.PrintToPDFParams) { p.GenerateTaggedPDF = &tagged }))
}
