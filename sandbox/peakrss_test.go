package sandbox_test

import (
	"bufio"
	"context"
	"testing"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// python3 is the jailed system python3, or skips t.
func python3(t *testing.T) *sandbox.Engine {
	t.Helper()
	py := sandbox.Find("python3", nil, sandbox.Options{})
	if !py.Available() {
		toolstest.Lacking(t, "python3 or the jail is not available")
	}
	return py
}

// TestRunNotesEnginePeak: a jailed run that holds 80 MB for a while (a
// run's memory is sampled while it runs) notes a peak of at least that
// in its job's EnginePeak, and a run whose context carries none runs as
// before.
func TestRunNotesEnginePeak(t *testing.T) {
	py := python3(t)
	ctx, peak := docmill.WithEnginePeak(context.Background())
	if _, err := py.Run(ctx, sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "import time\nb = bytearray(80 << 20)\ntime.sleep(0.3)"}}); err != nil {
		t.Fatal(err)
	}
	if kb := peak.KB(); kb < 80<<10 || kb > 1<<20 {
		t.Fatalf("engine peak %d KiB after touching 80 MB", kb)
	}
	if _, err := py.Run(context.Background(), sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-c", "pass"}}); err != nil {
		t.Fatal(err)
	}
}

// TestProcessPeakRSS: a warm process's peak covers what it allocated
// since ResetPeakRSS, and after another reset only what it holds then.
func TestProcessPeakRSS(t *testing.T) {
	py := python3(t)
	p, err := py.Start(sandbox.Cmd{Dir: t.TempDir(), Args: []string{"-u", "-c",
		"import sys\nfor line in sys.stdin:\n    b = bytearray(int(line) << 20) if int(line) else None\n    print('ok')"}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	replies := bufio.NewScanner(p.Stdout())
	ask := func(mb string) {
		if _, err := p.Stdin().Write([]byte(mb + "\n")); err != nil || !replies.Scan() {
			t.Fatalf("process: %v %v", err, replies.Err())
		}
	}
	p.ResetPeakRSS()
	ask("96") // holds 96 MB until the next line
	ask("0")  // frees them
	if kb := p.PeakRSS(); kb < 96<<10 {
		t.Fatalf("peak %d KiB after 96 MB", kb)
	}
	p.ResetPeakRSS()
	ask("0")
	if kb := p.PeakRSS(); kb >= 96<<10 {
		t.Fatalf("peak %d KiB after a reset, with the 96 MB freed", kb)
	}
}
