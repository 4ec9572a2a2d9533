package main

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkRotateHelper is rotate-pdf of the 1-page minimal-document.pdf
// as a job runs it, without HTTP and the queue: in this process, as
// docmill ran the pdfcpu tools before (in-process), and in a warm jailed
// helper process, as it does now (helper). The difference of the p50s is
// what moving document parsing out of the server costs a sync call.
func BenchmarkRotateHelper(b *testing.B) {
	pdf := toolstest.ReadCorpus(b, "pdf", "minimal-document.pdf")
	var rotate *docmill.Tool
	for _, t := range pdfops.Tools() {
		if t.Slug == "rotate-pdf" {
			rotate = t
		}
	}
	params, err := rotate.ParseParams(map[string]string{"angle": "90"})
	if err != nil {
		b.Fatal(err)
	}
	jail := sandbox.NewJail(sandbox.JailOptions{Memory: docmill.DefaultLimits().EngineMemory})
	if !jail.Confined() {
		b.Skip("no jail here: " + jail.Why())
	}
	scratch := b.TempDir()
	helpers, err := sandbox.NewHelpers(sandbox.SelfEngine("docmill-pdf", sandbox.Options{Jail: jail}), pdfHelperArgs, sandbox.HelperOptions{Dir: scratch, Size: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer helpers.Close()
	runs := map[string]docmill.RunFunc{"in-process": rotate.Run, "helper": helpers.Tool(rotate).Run}
	for _, name := range []string{"in-process", "helper"} {
		run := runs[name]
		b.Run(name, func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				// A job's directory with its input, as the worker makes it.
				dir, err := os.MkdirTemp(scratch, "job-")
				if err != nil {
					b.Fatal(err)
				}
				in := filepath.Join(dir, "input-0.pdf")
				if err := os.WriteFile(in, pdf, 0o600); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				_, err = run(context.Background(), &docmill.RunInput{
					Files:  []docmill.LocalFile{{Path: in, Filename: "minimal-document.pdf", ContentType: "application/pdf"}},
					Params: params, WorkDir: dir,
				})
				lat = append(lat, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				os.RemoveAll(dir)
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(ms(lat[len(lat)/2]), "p50_ms")
			b.ReportMetric(ms(lat[len(lat)*99/100]), "p99_ms")
		})
	}
}
