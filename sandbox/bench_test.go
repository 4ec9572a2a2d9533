package sandbox_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ghostscript"
	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkOverhead runs the same Ghostscript command (pdfwrite /ebook on
// the corpus's base64image.pdf) directly and through the sandbox, and
// reports the sandbox's share of the time: process group, limits,
// network namespace, scratch directory and output capture.
func BenchmarkOverhead(b *testing.B) {
	gs := sandbox.Find("gs", []string{"--version"}, sandbox.Options{
		Limits: sandbox.Limits{AddressSpace: 4 << 30, CPUSeconds: 900, OpenFiles: 256},
		View:   sandbox.View{ReadOnly: ghostscript.DataPaths},
	})
	if !gs.Available() {
		b.Skip("no gs")
	}
	corpusFile := filepath.Join(toolstest.Corpus(b, "pdf"), "base64image.pdf")
	args := func(in, out string) []string {
		return []string{"-dSAFER", "-dBATCH", "-dNOPAUSE", "-dQUIET", "-sDEVICE=pdfwrite", "-dPDFSETTINGS=/ebook", "-sOutputFile=" + out, in}
	}
	var raw, boxed time.Duration
	for i := 0; i < b.N; i++ {
		// The input is in the run's directory, the only one the jail
		// shows, as a job's input is.
		dir := b.TempDir()
		in := toolstest.Input(b, dir, corpusFile, "application/pdf").Path
		t0 := time.Now()
		if out, err := exec.Command(gs.Path, args(in, filepath.Join(dir, "raw.pdf"))...).CombinedOutput(); err != nil {
			b.Fatalf("%v %s", err, out)
		}
		raw += time.Since(t0)
		t0 = time.Now()
		if _, err := gs.Run(context.Background(), sandbox.Cmd{Dir: dir, Args: args(in, filepath.Join(dir, "boxed.pdf"))}); err != nil {
			b.Fatal(err)
		}
		boxed += time.Since(t0)
	}
	b.ReportMetric(float64(raw.Milliseconds())/float64(b.N), "raw_ms")
	b.ReportMetric(float64(boxed.Milliseconds())/float64(b.N), "sandboxed_ms")
	b.ReportMetric(100*(float64(boxed)/float64(raw)-1), "overhead_%")
}

// BenchmarkJailStart prints what starting a program in the jail costs:
// the median time of /usr/bin/true run directly, confined by the command
// line Jail.Command gives (limits set by a prlimit in the jail, as for
// Chromium) and by Engine.Run (limits set on the jail before the program
// runs, one program fewer), run alternately so that load falls on all
// three alike.
func BenchmarkJailStart(b *testing.B) {
	tr := sandbox.Find("true", nil, sandbox.Options{})
	if !tr.Available() || !tr.Jail().Confined() {
		toolstest.NeedCapability(b, "build a jail", errors.New(tr.Jail().Why()))
	}
	dir := b.TempDir()
	argv, _, err := tr.Jail().Command([]string{tr.Path}, sandbox.View{}, sandbox.Limits{}, dir, dir)
	if err != nil {
		b.Fatal(err)
	}
	var direct, prlimited, run []time.Duration
	timed := func(ds *[]time.Duration, f func() error) {
		t0 := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		*ds = append(*ds, time.Since(t0))
	}
	for b.Loop() {
		timed(&direct, exec.Command(tr.Path).Run)
		timed(&prlimited, exec.Command(argv[0], argv[1:]...).Run)
		timed(&run, func() error {
			_, err := tr.Run(context.Background(), sandbox.Cmd{Dir: dir})
			return err
		})
	}
	d, p, r := median(direct), median(prlimited), median(run)
	b.ReportMetric(float64(d.Microseconds())/1000, "direct_ms")
	b.ReportMetric(float64(p.Microseconds())/1000, "jail_prlimit_ms")
	b.ReportMetric(float64(r.Microseconds())/1000, "run_ms")
	b.Logf("true: %.2f ms directly, %.2f ms jailed with prlimit, %.2f ms by Engine.Run (jail start %.2f ms)",
		ms(d), ms(p), ms(r), ms(r-d))
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
