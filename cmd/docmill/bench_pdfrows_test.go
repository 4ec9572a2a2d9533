package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// pdfRow is one of issue 35's PDF rows: a tool on corpus files, and the
// command line that does the same work (its floor: the program first,
// found on PATH), given the inputs' paths and the output's.
type pdfRow struct {
	tool   string
	files  []string
	params map[string]string
	floor  func(in []string, out string) []string
}

// pdfRows are flatten-pdf, protect-pdf, merge-pdf, rotate-pdf, split-pdf,
// watermark-pdf and pdf-to-pdfa, each beside an engine's command line
// doing the same work, one process per document as a CLI user runs it.
var pdfRows = []pdfRow{
	{"flatten-pdf", []string{"pdf/pdflatex-forms.pdf"}, nil, func(in []string, out string) []string {
		return []string{"qpdf", "--generate-appearances", "--flatten-annotations=all", in[0], out}
	}},
	{"protect-pdf", []string{"pdf/pdflatex-4-pages.pdf"}, map[string]string{"password": "s3cret"}, func(in []string, out string) []string {
		return []string{"qpdf", "--encrypt", "s3cret", "s3cret", "256", "--", in[0], out}
	}},
	{"merge-pdf", []string{"pdf/pdflatex-4-pages.pdf", "pdf/minimal-document.pdf"}, nil, func(in []string, out string) []string {
		return append(append([]string{"qpdf", "--empty", "--pages"}, in...), "--", out)
	}},
	{"rotate-pdf", []string{"pdf/pdflatex-4-pages.pdf"}, map[string]string{"angle": "90"}, func(in []string, out string) []string {
		return []string{"qpdf", "--rotate=+90", in[0], out}
	}},
	// split-pdf zips the pages it makes; qpdf writes them as files
	// (out-1.pdf, ...).
	{"split-pdf", []string{"pdf/pdflatex-4-pages.pdf"}, nil, func(in []string, out string) []string {
		return []string{"qpdf", "--split-pages", in[0], out}
	}},
	// A CLI user stamps a page made once (watermarkStamp) over every
	// page; watermark-pdf sets the text in a font it embeds, per job.
	{"watermark-pdf", []string{"pdf/pdflatex-4-pages.pdf"}, map[string]string{"text": "CONFIDENTIAL"}, func(in []string, out string) []string {
		return []string{"qpdf", in[0], "--overlay", watermarkStamp, "--repeat=1", "--", out}
	}},
	// Ghostscript's PDF/A mode as pdf-to-pdfa runs it, without the
	// output intent (an ICC profile and a PostScript prefix) that the
	// tool adds and a CLI user must write.
	{"pdf-to-pdfa", []string{"pdf/pdflatex-4-pages.pdf"}, map[string]string{"conformance": "2b"}, func(in []string, out string) []string {
		return []string{"gs", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-dQUIET", "-sDEVICE=pdfwrite", "-dPDFA=2",
			"-dPDFACompatibilityPolicy=1", "-sColorConversionStrategy=RGB", "-sProcessColorModel=DeviceRGB",
			"-dEmbedAllFonts=true", "-dSubsetFonts=true", "-sOutputFile=" + out, in[0]}
	}},
}

// watermarkStamp is the page watermark-pdf's floor lays over each page,
// written by BenchmarkPDFRows before its rows run.
var watermarkStamp string

// pdfRowTarget is the target: a tool over HTTP within this
// factor of its floor's time per document.
const pdfRowTarget = 1.2

// pdfRowClients is the concurrent case: this many clients over
// HTTP against as many floors run in parallel, whose throughput the
// clients' must at least match.
const pdfRowClients = 4

// BenchmarkPDFRows prints, for each of pdfRows, the median time per
// document of its floor (its command line, exec'd), of the tool's Run as the worker
// calls it (in-process: the toolset's wrapped Run, helper round trips and
// jailed engines included) and over HTTP (a sync job, its result and
// download), with the HTTP stages the job's meta reports (queued_ms,
// duration_ms), the ratio to the floor and the target, and the ratio of
// the fastest HTTP call to the fastest floor. The three are run
// alternately, so that load on a shared machine falls on all alike.
// Then, at pdfRowClients clients, it prints the documents per second of
// as many floors in parallel and of as many HTTP clients, and their
// ratio beside the target (at least the floors'); a smoke pass
// (toolstest.BenchSmoke) leaves that part out.
func BenchmarkPDFRows(b *testing.B) {
	for _, program := range []string{"qpdf", "gs"} {
		if _, err := exec.LookPath(program); err != nil {
			toolstest.Lacking(b, "no %s: %v", program, err)
		}
	}
	watermarkStamp = toolstest.WriteTemp(b, "stamp.pdf", toolstest.TextPDF("CONFIDENTIAL"))
	tools, scratch := testToolset(b)
	s := startServer(b, "", "--log-level", "error")
	c := s.client(newKey(b, s.DataDir, "custom", "--rpm", "10000000", "--in-flight", "10000", "--ops", "1000000000"))
	for _, row := range pdfRows {
		b.Run(row.tool, func(b *testing.B) {
			tl := toolstest.Find(b, tools, row.tool)
			params, err := tl.ParseParams(row.params)
			if err != nil {
				b.Fatal(err)
			}
			var paths []string
			for _, f := range row.files {
				paths = append(paths, corpus(b, f))
			}
			var floor, run, call, queued, tool []time.Duration
			for b.Loop() {
				d, err := timeFloor(row, paths, b.TempDir())
				floor = append(floor, must(b, d, err))
				run = append(run, timeRun(b, tl, params, paths, scratch))
				d, meta, err := timeCall(c, row, paths)
				call = append(call, must(b, d, err))
				queued = append(queued, metaDuration(meta, "queued_ms"))
				tool = append(tool, metaDuration(meta, "duration_ms"))
			}
			f, r, h := percentile(floor, 50), percentile(run, 50), percentile(call, 50)
			b.ReportMetric(ms(f), "floor_ms")
			b.ReportMetric(ms(r), "run_ms")
			b.ReportMetric(ms(h), "http_ms")
			b.ReportMetric(ms(percentile(queued, 50)), "queued_ms")
			b.ReportMetric(ms(percentile(tool, 50)), "tool_ms")
			b.ReportMetric(float64(h)/float64(f), "http_x_floor")
			b.Logf("%s: floor %.1f ms, run %.1f ms (%.2fx), HTTP %.1f ms (%.2fx the floor; target <= %.1fx)",
				row.tool, ms(f), ms(r), float64(r)/float64(f), ms(h), float64(h)/float64(f), pdfRowTarget)
			// The fastest of each, the least disturbed by other work on a
			// shared machine.
			fb, hb := slices.Min(floor), slices.Min(call)
			b.ReportMetric(float64(hb)/float64(fb), "best_http_x_floor")
			b.Logf("%s, fastest of each: floor %.1f ms, HTTP %.1f ms (%.2fx the floor; target <= %.1fx)",
				row.tool, ms(fb), ms(hb), float64(hb)/float64(fb), pdfRowTarget)
			if !toolstest.BenchSmoke() {
				x := rowThroughput(b, c, row, paths)
				b.ReportMetric(x, "x4_throughput_x_floor")
			}
		})
	}
}

// rowThroughput runs row with pdfRowClients at once, floors and HTTP
// clients in alternate blocks (best of several), logs the documents per
// second of each and returns the clients' throughput as a share of the
// floors'.
func rowThroughput(b *testing.B, c *client.Client, row pdfRow, paths []string) float64 {
	const docs, blocks = 8, 3 // per client, per block
	floorBest, httpBest := time.Duration(1<<62), time.Duration(1<<62)
	for range blocks {
		d, err := inParallel(pdfRowClients, docs, func() error {
			_, err := timeFloor(row, paths, b.TempDir())
			return err
		})
		floorBest = min(floorBest, must(b, d, err))
		d, err = inParallel(pdfRowClients, docs, func() error {
			_, _, err := timeCall(c, row, paths)
			return err
		})
		httpBest = min(httpBest, must(b, d, err))
	}
	n := float64(pdfRowClients * docs)
	floorRate, httpRate := n/floorBest.Seconds(), n/httpBest.Seconds()
	b.Logf("%s at %d clients: %d floors in parallel %.1f docs/s, HTTP %.1f docs/s (%.2fx the floors; target >= 1.0x)",
		row.tool, pdfRowClients, pdfRowClients, floorRate, httpRate, httpRate/floorRate)
	return httpRate / floorRate
}

// inParallel runs do docs times in each of clients goroutines at once
// and returns the time until all have finished, or the first error.
func inParallel(clients, docs int, do func() error) (time.Duration, error) {
	errs := make(chan error, clients)
	t0 := time.Now()
	for range clients {
		go func() {
			for range docs {
				if err := do(); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	var first error
	for range clients {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return time.Since(t0), first
}

// must is d, or the benchmark fails with err.
func must(b *testing.B, d time.Duration, err error) time.Duration {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// timeFloor runs row's floor once on paths, writing in dir, and returns
// its time.
func timeFloor(row pdfRow, paths []string, dir string) (time.Duration, error) {
	argv := row.floor(paths, filepath.Join(dir, "floor.pdf"))
	t0 := time.Now()
	err := exec.Command(argv[0], argv[1:]...).Run()
	d := time.Since(t0)
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && argv[0] == "qpdf" && ee.ExitCode() == 3) { // 3: qpdf's warnings
		return d, fmt.Errorf("%s floor: %w", row.tool, err)
	}
	return d, nil
}

// timeRun runs tl once on copies of paths in a job directory, as the
// worker does, and returns its time.
func timeRun(b *testing.B, tl *docmill.Tool, params docmill.Params, paths []string, scratch string) time.Duration {
	dir, err := os.MkdirTemp(scratch, "job-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	var files []docmill.LocalFile
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		in := filepath.Join(dir, "input-"+string(rune('0'+i))+".pdf")
		if err := os.WriteFile(in, data, 0o600); err != nil {
			b.Fatal(err)
		}
		files = append(files, docmill.LocalFile{Path: in, Filename: filepath.Base(p), ContentType: "application/pdf"})
	}
	t0 := time.Now()
	_, err = tl.Invoke(context.Background(), &docmill.RunInput{Files: files, Params: params, WorkDir: dir, Limits: docmill.DefaultLimits()})
	d := time.Since(t0)
	if err != nil {
		b.Fatalf("%s: %v", tl.Slug, err)
	}
	return d
}

// timeCall runs row as a sync job over HTTP and downloads its result,
// returning the time of both and the job's meta.
func timeCall(c *client.Client, row pdfRow, paths []string) (time.Duration, map[string]any, error) {
	var files []client.File
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return 0, nil, err
		}
		defer f.Close()
		files = append(files, client.File{Name: filepath.Base(p), Body: f})
	}
	ctx := context.Background()
	t0 := time.Now()
	j, _, err := c.Process(ctx, row.tool, files, client.ProcessOptions{Params: row.params, Prefer: "wait=60"})
	if err != nil || j.Status != "done" || j.Result == nil {
		return 0, nil, fmt.Errorf("%s: %v %+v", row.tool, err, j)
	}
	if _, err := c.Download(ctx, j.Result.URL, io.Discard); err != nil {
		return 0, nil, fmt.Errorf("%s: download: %w", row.tool, err)
	}
	return time.Since(t0), j.Meta, nil
}

// metaDuration reads a job's meta figure in ms as a duration.
func metaDuration(meta map[string]any, name string) time.Duration {
	v, _ := meta[name].(float64)
	return time.Duration(v * float64(time.Millisecond))
}
