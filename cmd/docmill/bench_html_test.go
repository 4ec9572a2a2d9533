package main

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkHTMLTable runs html-to-pdf synchronously over HTTP on issue
// 15's table page (toolstest.TablePage(200), 7 A4 pages) with 1 and 4
// concurrent clients, against a server process at its defaults, and
// reports documents per second and the p50 call time, with the issue's
// targets beside them. Figures only: nothing here fails on time.
func BenchmarkHTMLTable(b *testing.B) {
	page := toolstest.TablePage(200)
	dir := b.TempDir()
	s := startChild(b, dir, "--log-level", "error")
	c := s.client(newKey(b, dir, "custom", "--rpm", "100000", "--in-flight", "100"))
	htmlCall(b, c, page) // starts the browser
	for _, tc := range []struct {
		clients int
		target  float64
	}{{1, toolstest.TableTargetDocsPerSec1}, {4, toolstest.TableTargetDocsPerSec4}} {
		b.Run(fmt.Sprintf("clients=%d", tc.clients), func(b *testing.B) {
			lat, elapsed := htmlLoad(b, c, tc.clients, page)
			rate := float64(len(lat)) / elapsed.Seconds()
			b.ReportMetric(rate, "docs/s")
			b.ReportMetric(ms(percentile(lat, 50)), "p50_ms")
			b.Logf("html-to-pdf over HTTP, table page, %d clients: %.2f docs/s (target >= %.1f; Gotenberg, measured elsewhere: %.1f / %.1f at 1 / 4 clients)",
				tc.clients, rate, tc.target, toolstest.TableGotenberg1, toolstest.TableGotenberg4)
		})
	}
}

// htmlLoad sends b.N synchronous html-to-pdf calls of page from clients
// goroutines and returns each call's time and the wall time.
func htmlLoad(b *testing.B, c *client.Client, clients int, page []byte) ([]time.Duration, time.Duration) {
	next := make(chan struct{}, b.N)
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range clients {
		wg.Go(func() {
			for range next {
				t0 := time.Now()
				htmlCall(b, c, page)
				mu.Lock()
				lat = append(lat, time.Since(t0))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	return lat, elapsed
}

// htmlCall prints page with html-to-pdf, synchronously, at the defaults.
func htmlCall(b *testing.B, c *client.Client, page []byte) {
	j, _, err := c.Process(context.Background(), "html-to-pdf",
		[]client.File{{Name: "orders.html", Body: bytes.NewReader(page)}}, client.ProcessOptions{Prefer: "wait=300"})
	if err != nil || j.Status != "done" {
		b.Errorf("html-to-pdf: %v %+v", err, j)
	}
}
