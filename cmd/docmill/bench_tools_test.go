package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// toolCase is one tool run for BenchmarkTools: corpus files and params.
type toolCase struct {
	tool   string
	files  []string
	params map[string]string
}

// benchCases run each in-process tool on the biggest corpus file it takes:
// GeoTopo-komprimiert.pdf (1.8 MB, 117 pages) for the PDF tools, the phone
// photos for jpg-to-pdf. A smoke pass (toolstest.BenchSmoke) runs the PDF
// tools on pdflatex-4-pages.pdf instead, with page numbers that fit it.
func benchCases() []toolCase {
	doc, first, rest := geo, "1-50", "60-117,1-59"
	if toolstest.BenchSmoke() {
		doc, first, rest = "pdf/pdflatex-4-pages.pdf", "1-2", "3-4,1-2"
	}
	return []toolCase{
		{"merge-pdf", []string{doc, doc}, nil},
		{"split-pdf", []string{doc}, map[string]string{"every": "10"}},
		{"rotate-pdf", []string{doc}, nil},
		{"extract-pages", []string{doc}, map[string]string{"pages": first}},
		{"remove-pages", []string{doc}, map[string]string{"pages": first}},
		{"organize-pdf", []string{doc}, map[string]string{"order": rest}},
		{"watermark-pdf", []string{doc}, map[string]string{"text": "Конфиденциально"}},
		{"page-numbers", []string{doc}, map[string]string{"format": "{n} / {total}"}},
		{"protect-pdf", []string{doc}, map[string]string{"password": "s3cret"}},
		{"unlock-pdf", []string{"pdf/libreoffice-writer-password.pdf"}, map[string]string{"password": "openpassword"}},
		{"jpg-to-pdf", []string{"image/phone-photo.jpg", "image/iphone-photo.jpg", "image/scan.png", "image/map.png"}, map[string]string{"page_size": "a4"}},
		// External engines: the server's RSS excludes the engine processes.
		{"compress-pdf", []string{doc}, nil},
		{"repair-pdf", []string{doc}, nil},
		{"pdf-to-pdfa", []string{doc}, nil},
		{"pdf-to-jpg", []string{doc}, nil},
		{"pdf-to-text", []string{doc}, nil},
		// Warm engines: LibreOffice's workers, Chromium's tabs.
		{"word-to-pdf", []string{"office/having-images.docx"}, nil},
		{"excel-to-pdf", []string{"office/embedded.xlsx"}, nil},
		{"powerpoint-to-pdf", []string{"office/cht-chart-type.pptx"}, nil},
		{"html-to-pdf", []string{tablePageFile}, nil},
	}
}

// tablePageFile names, in benchCases, the html-to-pdf table page
// (toolstest.TablePage(200)) instead of a corpus file.
const tablePageFile = "orders.html"

const geo = "pdf/GeoTopo-komprimiert.pdf"

// BenchmarkTools reports, per tool, the time of a sync call over HTTP, the
// tool's own processing time (meta.duration_ms), the server's peak RSS
// while the call runs (VmHWM, reset before each call) and the engines'
// peak RSS for the job as the server measures it for every job
// (meta.engine_peak_rss_kb: a run's ru_maxrss, a warm engine's VmHWM
// over its processes; 0 for a tool that runs no engine process).
func BenchmarkTools(b *testing.B) {
	dir := b.TempDir()
	s := startChild(b, dir, "--log-level", "error")
	c := s.client(newKey(b, dir, "custom", "--rpm", "100000", "--in-flight", "100"))
	pid := s.cmd.Process.Pid
	for _, tc := range benchCases() {
		b.Run(tc.tool, func(b *testing.B) {
			var call, tool time.Duration
			var peak, enginePeak int64
			for i := 0; i < b.N; i++ {
				var files []client.File
				for _, f := range tc.files {
					if f == tablePageFile {
						files = append(files, client.File{Name: f, Body: bytes.NewReader(toolstest.TablePage(200))})
						continue
					}
					files = append(files, file(b, f))
				}
				resetPeakRSS(b, pid)
				t0 := time.Now()
				j, _, err := c.Process(context.Background(), tc.tool, files, client.ProcessOptions{Params: tc.params, Prefer: "wait=300"})
				call += time.Since(t0)
				if err != nil || j.Status != "done" {
					b.Fatalf("%s: %v %+v", tc.tool, err, j)
				}
				ms, _ := j.Meta["duration_ms"].(float64)
				tool += time.Duration(ms * float64(time.Millisecond))
				peak = max(peak, toolstest.PeakRSS(b, pid))
				kb, _ := j.Meta[docmill.EnginePeakMeta].(float64)
				enginePeak = max(enginePeak, int64(kb))
			}
			b.ReportMetric(ms(call)/float64(b.N), "call_ms")
			b.ReportMetric(ms(tool)/float64(b.N), "tool_ms")
			b.ReportMetric(float64(peak)/(1<<20), "peak_rss_MB")
			b.ReportMetric(float64(enginePeak)/(1<<10), "engine_peak_rss_MB")
			b.Logf("%s: %.1f ms over HTTP (tool %.1f ms); peak RSS: server %.0f MB, engines %.0f MB",
				tc.tool, ms(call)/float64(b.N), ms(tool)/float64(b.N), float64(peak)/(1<<20), float64(enginePeak)/(1<<10))
		})
	}
}

// resetPeakRSS resets a process's VmHWM to its current RSS ("5" to
// clear_refs), so the next reading is the peak of what follows.
func resetPeakRSS(t testing.TB, pid int) {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatal(err)
	}
}
