package sandbox_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ghostscript"
	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkOverhead runs the same Ghostscript command (pdfwrite /ebook on
// the corpus's base64image.pdf) directly and through the sandbox, and
// reports the sandbox's share of the time: process group, prlimit,
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
