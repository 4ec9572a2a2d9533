package main

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkClusterRotate measures synchronous rotate-pdf calls on a 1-page
// PDF (the corpus's minimal-document.pdf) from 8 clients (DOCMILL_BENCH_CLIENTS): on embedded mode
// (one process, SQLite, local files) and on a cluster of two API nodes and
// one or two worker nodes (PostgreSQL, versitygw, Redis), all on this
// machine. It reports jobs/s, the sync path's p50 and p99, and the queue pickup's
// p50 (upload end to job start). A smoke pass (toolstest.BenchSmoke) runs
// the cluster with one worker node only, the same code as with two.
func BenchmarkClusterRotate(b *testing.B) {
	pdf := toolstest.ReadCorpus(b, "pdf", "minimal-document.pdf")
	clients := 8
	if v, err := strconv.Atoi(os.Getenv("DOCMILL_BENCH_CLIENTS")); err == nil && v > 0 {
		clients = v
	}
	// pickupTarget is the target for the pickup p50 (queued_ms):
	// the sync p50 target applies to the embedded server with one client
	// only.
	report := func(b *testing.B, lat, pickup []time.Duration, elapsed time.Duration, pickupTarget int) {
		b.ReportMetric(float64(len(lat))/elapsed.Seconds(), "jobs/s")
		b.ReportMetric(ms(percentile(lat, 50)), "p50_ms")
		b.ReportMetric(ms(percentile(lat, 99)), "p99_ms")
		b.ReportMetric(ms(percentile(pickup, 50)), "pickup_p50_ms")
		p50 := fmt.Sprintf("%.1f ms", ms(percentile(lat, 50)))
		if clients == 1 && pickupTarget == pickupTargetEmbedded {
			p50 += fmt.Sprintf(" (target <= %d ms)", syncP50Target)
		}
		b.Logf("%d clients: sync p50 %s; pickup (queued_ms) p50 %.0f ms (target <= %d ms)",
			clients, p50, ms(percentile(pickup, 50)), pickupTarget)
	}
	b.Run("embedded", func(b *testing.B) {
		dir := b.TempDir()
		s := startChild(b, dir, "--log-level", "error")
		key := newKey(b, dir, "custom", "--rpm", "10000000", "--in-flight", "10000", "--ops", "1000000000")
		lat, pickup, elapsed := rotateLoad(b, []*client.Client{s.client(key)}, clients, pdf)
		report(b, lat, pickup, elapsed, pickupTargetEmbedded)
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("cluster/api=2/workers=%d", workers), func(b *testing.B) {
			if toolstest.BenchSmoke() && workers > 1 {
				b.Skip("smoke pass: one worker node runs the same code")
			}
			c := startCluster(b, 2, workers)
			key := c.key(b, "custom", "--rpm", "10000000", "--in-flight", "10000", "--ops", "1000000000")
			lat, pickup, elapsed := rotateLoad(b, []*client.Client{c.apis[0].client(key), c.apis[1].client(key)}, clients, pdf)
			report(b, lat, pickup, elapsed, pickupTargetCluster)
		})
	}
}

// BenchmarkClusterUpload streams 512 MB generated on the fly through an API
// node to the S3 bucket (answered 202 at once, so only the upload is timed)
// and reports MB/s and the API node's peak RSS: the upload goes to the
// bucket in bounded multipart parts, never whole in memory or on disk.
// A smoke pass (toolstest.BenchSmoke) uploads 32 MB.
func BenchmarkClusterUpload(b *testing.B) {
	c := startCluster(b, 1, 0)
	key := c.key(b, "custom", "--max-file-mb", "2048", "--rpm", "100000", "--in-flight", "1000")
	uploadLoad(b, c.apis[0].client(key), toolstest.BenchSize[int64](512<<20, 32<<20))
	b.ReportMetric(float64(toolstest.PeakRSS(b, c.apis[0].cmd.Process.Pid))/(1<<20), "api_peak_rss_MB")
}
