package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/tools/toolstest"
)

// idleCPUTarget is the most CPU an idle embedded server may use, as a
// fraction of one core.
const idleCPUTarget = 0.005

// BenchmarkIdleCPU measures the CPU an idle embedded `docmill serve` uses,
// as a percentage of one core: each iteration is a 10 s window in which
// nothing is sent to it.
//
// The server runs as a child process (this test binary, re-executed), so
// that the figure is the server's alone, not the benchmark's; and it is
// its whole process tree (the server and its warm helper processes, with
// the children each has reaped), read from /proc/PID/stat: user plus
// system time, in clock ticks. Start-up work (migrations, the janitor's
// first sweep, River's first election) is left out: the first window
// starts once the tree has settled (awaitSettled). A smoke pass
// (toolstest.BenchSmoke) measures windows of 1 s.
func BenchmarkIdleCPU(b *testing.B) {
	dir := b.TempDir()
	s := startChild(b, dir, "--log-level", "error")
	awaitSettled(b, s.cmd.Process.Pid)
	window := toolstest.BenchSize(10*time.Second, time.Second)
	var shares []float64
	for b.Loop() {
		t0, cpu0 := time.Now(), treeCPUTicks(b, s.cmd.Process.Pid)
		time.Sleep(window) // not ordering events: the idle window is what is measured
		t1, cpu1 := time.Now(), treeCPUTicks(b, s.cmd.Process.Pid)
		cpu := time.Duration(cpu1-cpu0) * time.Second / clockTicks
		shares = append(shares, float64(cpu)/float64(t1.Sub(t0)))
	}
	slices.Sort(shares)
	median := shares[len(shares)/2]
	b.ReportMetric(100*median, "cpu_%_of_core")
	b.Logf("idle embedded server: %.2f%% of one core, median of %d windows of %s (target <= %.1f%%)",
		100*median, len(shares), window, 100*idleCPUTarget)
}

// awaitSettled waits until the process tree of root has done its
// start-up work: a quarter second in which it used at most one clock
// tick of CPU.
func awaitSettled(b *testing.B, root int) {
	b.Helper()
	ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
	defer cancel()
	last := int64(-1) // Sample's first call, at once, only takes the first reading
	if !poll.Sample(ctx, 250*time.Millisecond, func() bool {
		now := treeCPUTicks(b, root)
		used := now - last
		first := last < 0
		last = now
		return !first && used <= 1
	}) {
		b.Fatal("the server was still busy a minute after it started")
	}
}

// clockTicks is USER_HZ, the unit of the times in /proc/PID/stat: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// treeCPUTicks is the CPU time, in clock ticks, of process root and its
// descendants: each one's user and system time and its reaped children's.
// A descendant that exits unreaped between two reads loses its share, which
// an idle server's tree does not do.
func treeCPUTicks(t testing.TB, root int) int64 {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	parent := map[int]int{}
	ticks := map[int]int64{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, cpu, ok := procCPU(pid)
		if ok {
			parent[pid], ticks[pid] = ppid, cpu
		}
	}
	if _, ok := ticks[root]; !ok {
		t.Fatalf("process %d is gone", root)
	}
	var sum int64
	for pid, cpu := range ticks {
		for p := pid; p > 1; p = parent[p] {
			if p == root {
				sum += cpu
				break
			}
		}
	}
	return sum
}

// procCPU reads a process's parent and its utime+stime+cutime+cstime
// (fields 14 to 17 of /proc/PID/stat).
func procCPU(pid int) (ppid int, ticks int64, ok bool) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, false
	}
	s := string(b)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[end+1:]) // from field 3, the state
	if len(f) < 15 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	for _, v := range f[11:15] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, 0, false
		}
		ticks += n
	}
	return ppid, ticks, true
}
