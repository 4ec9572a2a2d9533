package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// pdfRow is one of issue 35's PDF rows: a tool on corpus files, and the
// qpdf command line that does the same work (its floor), given the
// inputs' paths and the output's.
type pdfRow struct {
	tool   string
	files  []string
	params map[string]string
	floor  func(in []string, out string) []string
}

// pdfRows are flatten-pdf, protect-pdf and merge-pdf, each beside qpdf
// doing the same work, one process per document as a CLI user runs it.
var pdfRows = []pdfRow{
	{"flatten-pdf", []string{"pdf/pdflatex-forms.pdf"}, nil, func(in []string, out string) []string {
		return []string{"--generate-appearances", "--flatten-annotations=all", in[0], out}
	}},
	{"protect-pdf", []string{"pdf/pdflatex-4-pages.pdf"}, map[string]string{"password": "s3cret"}, func(in []string, out string) []string {
		return []string{"--encrypt", "s3cret", "s3cret", "256", "--", in[0], out}
	}},
	{"merge-pdf", []string{"pdf/pdflatex-4-pages.pdf", "pdf/minimal-document.pdf"}, nil, func(in []string, out string) []string {
		return append(append([]string{"--empty", "--pages"}, in...), "--", out)
	}},
}

// pdfRowTarget is the target: a tool over HTTP within this
// factor of its floor's time per document.
const pdfRowTarget = 1.2

// BenchmarkPDFRows prints, for each of pdfRows, the median time per
// document of its floor (qpdf, exec'd), of the tool's Run as the worker
// calls it (in-process: the toolset's wrapped Run, helper round trips and
// jailed engines included) and over HTTP (a sync job, its result and
// download), with the HTTP stages the job's meta reports (queued_ms,
// duration_ms), the ratio to the floor and the target. The three are
// run alternately, so that load on a shared machine falls on all alike.
func BenchmarkPDFRows(b *testing.B) {
	qpdf, err := exec.LookPath("qpdf")
	if err != nil {
		toolstest.Lacking(b, "no qpdf: %v", err)
	}
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
				floor = append(floor, timeFloor(b, qpdf, row, paths))
				run = append(run, timeRun(b, tl, params, paths, scratch))
				d, meta := timeCall(b, c, row, paths)
				call = append(call, d)
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
		})
	}
}

// timeFloor runs row's floor once on paths and returns its time.
func timeFloor(b *testing.B, qpdf string, row pdfRow, paths []string) time.Duration {
	out := filepath.Join(b.TempDir(), "floor.pdf")
	t0 := time.Now()
	err := exec.Command(qpdf, row.floor(paths, out)...).Run()
	d := time.Since(t0)
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 3) { // 3: warnings
		b.Fatalf("%s floor: %v", row.tool, err)
	}
	return d
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
func timeCall(b *testing.B, c *client.Client, row pdfRow, paths []string) (time.Duration, map[string]any) {
	var files []client.File
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		files = append(files, client.File{Name: filepath.Base(p), Body: f})
	}
	ctx := context.Background()
	t0 := time.Now()
	j, _, err := c.Process(ctx, row.tool, files, client.ProcessOptions{Params: row.params, Prefer: "wait=60"})
	if err != nil || j.Status != "done" || j.Result == nil {
		b.Fatalf("%s: %v %+v", row.tool, err, j)
	}
	if _, err := c.Download(ctx, j.Result.URL, io.Discard); err != nil {
		b.Fatalf("%s: download: %v", row.tool, err)
	}
	return time.Since(t0), j.Meta
}

// metaDuration reads a job's meta figure in ms as a duration.
func metaDuration(meta map[string]any, name string) time.Duration {
	v, _ := meta[name].(float64)
	return time.Duration(v * float64(time.Millisecond))
}
