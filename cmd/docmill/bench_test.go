package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkRotateSync measures rotate-pdf over HTTP, synchronously, on the
// corpus's minimal-document.pdf, on one server process: embedded (SQLite)
// with 1 and 8 concurrent clients, and on PostgreSQL (riverpgxv5, the
// file store a local directory) with 1 client. It reports requests per
// second, p50/p99 latency and the queue pickup (upload end to job start)
// from the jobs' meta.queued_ms; with 1 client it prints the sync p50 and
// the pickup p50 beside their targets, and the p50 of each stage of a
// sync call. A smoke pass (toolstest.BenchSmoke) runs embedded with one
// client only, the same code as eight.
func BenchmarkRotateSync(b *testing.B) {
	pdf := toolstest.ReadCorpus(b, "pdf", "minimal-document.pdf")
	variants := []struct {
		name    string
		store   string
		dataDir dataDirFunc
		clients int
	}{
		{"clients=1", "embedded (SQLite)", sqliteDir, 1},
		{"clients=8", "embedded (SQLite)", sqliteDir, 8},
		{"postgres/clients=1", "PostgreSQL", postgresDir, 1},
	}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			if toolstest.BenchSmoke() && v.name != "clients=1" {
				b.Skip("smoke pass: embedded with one client only")
			}
			stages := recordStages(b)
			benchStages = stages
			defer func() { benchStages = nil }()
			s := startServer(b, v.dataDir(b), "--log-level", "error")
			key := newKey(b, s.DataDir, "custom", "--rpm", "10000000", "--in-flight", "10000", "--ops", "1000000000")
			lat, pickup, elapsed := rotateLoad(b, []*client.Client{s.client(key)}, v.clients, pdf)
			b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "req/s")
			b.ReportMetric(ms(percentile(lat, 50)), "p50_ms")
			b.ReportMetric(ms(percentile(lat, 99)), "p99_ms")
			b.ReportMetric(ms(percentile(pickup, 50)), "pickup_p50_ms")
			b.ReportMetric(ms(percentile(pickup, 99)), "pickup_p99_ms")
			if v.clients > 1 {
				return
			}
			// Printed, not logged: a benchmark's log keeps its first 10 lines.
			fmt.Printf("%s, 1 client, %d calls: %s\nthe stages of a sync rotate:\n%s\n",
				v.store, b.N, syncFigures(v.store, lat, pickup), stages.report())
		})
	}
}

// syncFigures is the sync p50 and the pickup p50 of a 1-client run on
// store, each beside the target that applies to it.
func syncFigures(store string, lat, pickup []time.Duration) string {
	p50 := fmt.Sprintf("sync p50 %.2f ms", ms(percentile(lat, 50)))
	target := pickupTargetCluster
	if store != "PostgreSQL" {
		p50 += fmt.Sprintf(" (target <= %d ms)", syncP50Target)
		target = pickupTargetEmbedded
	}
	return fmt.Sprintf("%s; pickup (queued_ms) p50 %.0f ms (target <= %d ms)", p50, ms(percentile(pickup, 50)), target)
}

// The targets for a sync rotate-pdf of a 1-page PDF, in ms: the
// p50 over HTTP with one client on the embedded server, and the queue
// pickup's p50 (meta.queued_ms) on the embedded server and on PostgreSQL.
const (
	syncP50Target        = 4
	pickupTargetEmbedded = 1
	pickupTargetCluster  = 3
)

// BenchmarkUploadGigabyte streams 1 GB generated on the fly to a server
// process (answered 202 at once, so only the upload is timed), reports
// MB/s and the server's peak RSS, and prints both beside the issue's
// targets; it never fails on them. A smoke pass (toolstest.BenchSmoke)
// uploads 32 MB.
func BenchmarkUploadGigabyte(b *testing.B) {
	dir := b.TempDir()
	s := startChild(b, dir, "--log-level", "error")
	key := newKey(b, dir, "custom", "--max-file-mb", "2048", "--rpm", "100000", "--in-flight", "1000")
	rate := uploadLoad(b, s.client(key), toolstest.BenchSize[int64](1<<30, 32<<20))
	rss := float64(toolstest.PeakRSS(b, s.cmd.Process.Pid)) / (1 << 20)
	b.ReportMetric(rss, "peak_rss_MB")
	b.Logf("1 GB upload, embedded: %.0f MB/s (target >= 400 MB/s), server peak RSS %.0f MB (target < 150 MB)", rate, rss)
}

// benchStages, while a benchmark sets it, is told when rotateLoad's
// calls were sent and answered.
var benchStages *stageRecorder

// rotateLoad sends b.N synchronous rotate-pdf calls of pdf from
// concurrency clients, spread round-robin over cs (API nodes), and returns
// each call's latency, each job's queue pickup (meta.queued_ms) and the
// wall time. The benchmark timer covers the load only.
func rotateLoad(b *testing.B, cs []*client.Client, concurrency int, pdf []byte) (lat, pickup []time.Duration, elapsed time.Duration) {
	var mu sync.Mutex
	next := make(chan int, b.N)
	for i := 0; i < b.N; i++ {
		next <- i
	}
	close(next)
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < concurrency; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				j, resp, err := cs[i%len(cs)].Process(context.Background(), "rotate-pdf",
					[]client.File{{Name: "minimal-document.pdf", Body: bytes.NewReader(pdf)}}, client.ProcessOptions{})
				d := time.Since(t0)
				if err != nil || resp.StatusCode != 200 {
					b.Error(err)
					return
				}
				benchStages.at(j.JobID, "sent", t0)
				benchStages.at(j.JobID, "received", t0.Add(d))
				q, _ := j.Meta["queued_ms"].(float64)
				mu.Lock()
				lat = append(lat, d)
				pickup = append(pickup, time.Duration(q*float64(time.Millisecond)))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed = time.Since(start)
	b.StopTimer()
	return lat, pickup, elapsed
}

// uploadLoad streams b.N uploads of size bytes, generated on the fly, to
// rotate-pdf (answered 202 at once, so only the upload is timed), and
// reports and returns MB/s.
func uploadLoad(b *testing.B, c *client.Client, size int64) float64 {
	b.SetBytes(size)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		_, _, err := c.Process(context.Background(), "rotate-pdf",
			[]client.File{{Name: "huge.pdf", Body: io.MultiReader(strings.NewReader("%PDF-1.7\n"), io.LimitReader(zeros{}, size))}},
			client.ProcessOptions{Prefer: "respond-async"})
		if err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	rate := float64(b.N) * float64(size) / (1 << 20) / elapsed.Seconds()
	b.ReportMetric(rate, "MB/s")
	return rate
}

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
