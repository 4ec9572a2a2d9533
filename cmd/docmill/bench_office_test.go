package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// officeRow is one of issue 35's Office rows: a tool on a corpus file,
// and the LibreOffice export filter the floor converts it with.
type officeRow struct {
	tool, file, export string
}

// officeRows are the three to-PDF tools on corpus files: the largest
// presentation, a small and a mid-sized one, a Word document with images
// and a spreadsheet.
var officeRows = []officeRow{
	{"powerpoint-to-pdf", "cht-chart-type.pptx", "impress_pdf_Export"},
	{"powerpoint-to-pdf", "dml-fill.pptx", "impress_pdf_Export"},
	{"powerpoint-to-pdf", "ph-populated-placeholders.pptx", "impress_pdf_Export"},
	{"word-to-pdf", "having-images.docx", "writer_pdf_Export"},
	{"excel-to-pdf", "embedded.xlsx", "calc_pdf_Export"},
}

// BenchmarkOfficeRows prints, for each of officeRows, the median time per
// document of its floor, one warm soffice converting it (a soffice
// already running, unjailed, driven over its UNO pipe by the converter
// the pool uses; the time of the job's request and answer only), and of
// the tool over HTTP (a sync job, its result and download) on a server
// of one LibreOffice worker, with the stages the job's meta reports and
// the ratio to the floor beside the target. Floor and call alternate, so
// that load on a shared machine falls on both alike.
func BenchmarkOfficeRows(b *testing.B) {
	rows := toolstest.BenchSize(officeRows, officeRows[2:3])
	floor := startWarmSoffice(b)
	s := startServer(b, "", "--log-level", "error", "--office-workers", "1")
	c := s.client(newKey(b, s.DataDir, "custom", "--rpm", "10000000", "--in-flight", "10000", "--ops", "1000000000"))
	for _, row := range rows {
		b.Run(row.tool+"/"+row.file, func(b *testing.B) {
			path := corpus(b, "office", row.file)
			floor.convert(b, path, row.export) // warm both up on this file
			officeCall(b, c, row.tool, path)
			var fl, call, queued, tool []time.Duration
			for b.Loop() {
				fl = append(fl, floor.convert(b, path, row.export))
				d, meta := officeCall(b, c, row.tool, path)
				call = append(call, d)
				queued = append(queued, metaDuration(meta, "queued_ms"))
				tool = append(tool, metaDuration(meta, "duration_ms"))
			}
			f, h := percentile(fl, 50), percentile(call, 50)
			b.ReportMetric(ms(f), "floor_ms")
			b.ReportMetric(ms(h), "http_ms")
			b.ReportMetric(ms(percentile(queued, 50)), "queued_ms")
			b.ReportMetric(ms(percentile(tool, 50)), "tool_ms")
			b.ReportMetric(float64(h)/float64(f), "http_x_floor")
			b.Logf("%s %s: floor (one warm soffice) %.1f ms, HTTP %.1f ms (tool %.1f ms): %.2fx the floor; target <= %.1fx",
				row.tool, row.file, ms(f), ms(h), ms(percentile(tool, 50)), float64(h)/float64(f), pdfRowTarget)
		})
	}
}

// officeCall runs tool on path as a sync job over HTTP and downloads its
// result, returning the time of both and the job's meta.
func officeCall(b *testing.B, c *client.Client, tool, path string) (time.Duration, map[string]any) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	ctx := context.Background()
	t0 := time.Now()
	j, _, err := c.Process(ctx, tool, []client.File{{Name: filepath.Base(path), Body: f}}, client.ProcessOptions{Prefer: "wait=300"})
	if err != nil || j.Status != "done" || j.Result == nil {
		b.Fatalf("%s: %v %+v", tool, err, j)
	}
	if _, err := c.Download(ctx, j.Result.URL, io.Discard); err != nil {
		b.Fatalf("%s: download: %v", tool, err)
	}
	return time.Since(t0), j.Meta
}

// warmSoffice is the Office floor: a soffice started once, unconfined,
// and the pool's converter (tools/office/converter.py) connected to it
// over a UNO pipe, taking one job at a time.
type warmSoffice struct {
	dir     string
	stdin   io.Writer
	replies *bufio.Scanner
}

// startWarmSoffice starts the floor's soffice and converter, stopped when
// b ends, or skips b when LibreOffice or python3-uno is missing.
func startWarmSoffice(b *testing.B) *warmSoffice {
	soffice, err := sandbox.LookPath("soffice")
	if err != nil {
		toolstest.Lacking(b, "no soffice: %v", err)
	}
	python, err := sandbox.LookPath("python3")
	if err != nil || exec.Command(python, "-c", "import uno").Run() != nil {
		toolstest.Lacking(b, "no python3 with the uno module")
	}
	dir := b.TempDir()
	pipe := fmt.Sprintf("docmill_floor_%d", os.Getpid())
	env := []string{"HOME=" + dir, "TMPDIR=" + dir, "PATH=/usr/bin:/bin", "LANG=C.UTF-8"}
	so := exec.Command(soffice, "--headless", "--invisible", "--nologo", "--norestore", "--nodefault",
		"--nolockcheck", "--nofirststartwizard", "-env:UserInstallation=file://"+dir+"/profile",
		"--accept=pipe,name="+pipe+";urp;StarOffice.ComponentContext")
	so.Env, so.SysProcAttr = env, &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := so.Start(); err != nil {
		b.Fatal(err)
	}
	conv := exec.Command(python, "../../tools/office/converter.py", pipe, "60")
	conv.Env = env
	stdin, _ := conv.StdinPipe()
	stdout, _ := conv.StdoutPipe()
	if err := conv.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		_ = conv.Wait()
		_ = syscall.Kill(-so.Process.Pid, syscall.SIGKILL)
		_ = so.Wait()
	})
	w := &warmSoffice{dir: dir, stdin: stdin, replies: bufio.NewScanner(stdout)}
	if r := w.reply(b); !r.Ready {
		b.Fatalf("floor soffice did not start: %+v", r)
	}
	return w
}

// floorReply is what the converter answers.
type floorReply struct {
	Ready, OK bool
	Msg       string
}

func (w *warmSoffice) reply(b *testing.B) floorReply {
	if !w.replies.Scan() {
		b.Fatalf("floor converter ended: %v", w.replies.Err())
	}
	var r floorReply
	if err := json.Unmarshal(w.replies.Bytes(), &r); err != nil {
		b.Fatal(err)
	}
	return r
}

// convert copies path into the floor's directory (untimed) and returns
// the time of its conversion to PDF with export.
func (w *warmSoffice) convert(b *testing.B, path, export string) time.Duration {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	in, out := filepath.Join(w.dir, "in"+filepath.Ext(path)), filepath.Join(w.dir, "out.pdf")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		b.Fatal(err)
	}
	line, _ := json.Marshal(map[string]string{"in": in, "out": out, "export": export})
	t0 := time.Now()
	if _, err := w.stdin.Write(append(line, '\n')); err != nil {
		b.Fatal(err)
	}
	r := w.reply(b)
	d := time.Since(t0)
	if !r.OK {
		b.Fatalf("floor conversion of %s: %s", path, r.Msg)
	}
	return d
}
