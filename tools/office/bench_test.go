package office_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/tools/office"
)

// BenchmarkWordToPDF: word-to-pdf of having-images.docx through the warm
// pool at 1, 2 and 4 concurrent clients (p50 latency and documents per
// second), with a pool of as many workers as CPUs.
func BenchmarkWordToPDF(b *testing.B) {
	p := newPool(b, office.Options{})
	word := toolOf(b, p, "word-to-pdf")
	doc := corpusFile(b, "having-images.docx")
	if _, err := run(b, word, doc, nil); err != nil { // wait for the workers
		b.Fatal(err)
	}
	for _, clients := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			var mu sync.Mutex
			var lat []time.Duration
			next := make(chan struct{})
			go func() {
				for i := 0; i < b.N; i++ {
					next <- struct{}{}
				}
				close(next)
			}()
			start := time.Now()
			var wg sync.WaitGroup
			for c := 0; c < clients; c++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range next {
						t0 := time.Now()
						if _, err := run(b, word, doc, nil); err != nil {
							b.Error(err)
						}
						mu.Lock()
						lat = append(lat, time.Since(t0))
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "docs/s")
		})
	}
}

// BenchmarkColdSoffice: the same file through a cold
// `soffice --headless --convert-to pdf`, one process per document.
func BenchmarkColdSoffice(b *testing.B) {
	bin, err := exec.LookPath("soffice")
	if err != nil {
		b.Skip("no soffice")
	}
	doc, _ := filepath.Abs(corpusFile(b, "having-images.docx"))
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		cmd := exec.Command(bin, "--headless", "-env:UserInstallation=file://"+dir+"/profile", "--convert-to", "pdf", "--outdir", dir, doc)
		cmd.Env = append(os.Environ(), "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
}

// BenchmarkWorkerRestart: a worker whose soffice died is started again
// (on a copy of the pool's template profile) and converts a one-line
// document: the cold start the crash rule's second run pays, next to
// BenchmarkColdSoffice's soffice that builds its own profile.
func BenchmarkWorkerRestart(b *testing.B) {
	dir := b.TempDir()
	p := newPool(b, office.Options{Workers: 1, Dir: dir})
	word := toolOf(b, p, "word-to-pdf")
	doc := filepath.Join(dir, "line.txt")
	if err := os.WriteFile(doc, []byte("One line.\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	if _, err := run(b, word, doc, nil); err != nil { // the first start
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		office.CrashSoffice(p)
		b.StartTimer()
		if _, err := run(b, word, doc, nil); err != nil {
			b.Fatal(err)
		}
	}
}
