package main

import (
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// TestBenchmarks runs this package's benchmarks once each as a smoke pass
// (toolstest.BenchSmoke), so that a broken benchmark fails the tests; it
// never judges their figures, which `make bench` prints. They run in a
// child process of this test binary (-test.bench), in parallel with the
// other tests: the benchmarks mostly wait (servers starting, idle windows,
// one call at a time), and the tests beside them fill those waits, where a
// run of their own after the tests left a core idle for a minute.
// BenchmarkAttack's smoke pass judges no wall for that reason: the serial
// TestAttackWalls does.
func TestBenchmarks(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs every benchmark of the package")
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$", "-test.bench=.", "-test.benchtime=1x", "-test.timeout=15m")
	cmd.Env = append(os.Environ(), toolstest.BenchSmokeEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the benchmarks' smoke pass: %v\n%s", err, out)
	}
	ran := regexp.MustCompile(`(?m)^Benchmark\S+\s+1\s`).FindAll(out, -1)
	if len(ran) == 0 {
		t.Fatalf("no benchmark ran:\n%s", out)
	}
	t.Logf("%d benchmarks ran once:\n%s", len(ran), out)
}
