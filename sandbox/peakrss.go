package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// Peak resident memory of engine processes, for a job's
// docmill.EnginePeak: a warm process's from /proc, its tree's high-water
// marks (VmHWM) added up since ResetPeakRSS; a run's from the same
// figures sampled while it runs (watchPeak), or the kernel's account of
// what its launcher waited for (ru_maxrss), whichever is larger. The
// kernel's account alone is not enough: bubblewrap's launcher exits
// without waiting for the jail's init, which reaped the program, so
// the program's own peak never reaches it. Pages shared by several
// processes count once for each.

// peakSampleInterval is how often watchPeak reads a run's memory: a run
// shorter than this, or a peak in its last moments, is missed, and the
// run reports at least its launcher's.
const peakSampleInterval = 10 * time.Millisecond

// watchPeak samples the peak resident memory of the process tree of pid
// until stop is called, which returns the largest sum seen, in KiB.
func watchPeak(pid int) (stop func() int64) {
	done := make(chan struct{})
	result := make(chan int64, 1)
	go func() {
		t := time.NewTicker(peakSampleInterval)
		defer t.Stop()
		var kb int64
		for {
			select {
			case <-done:
				result <- kb
				return
			case <-t.C:
				kb = max(kb, PeakRSS(pid))
			}
		}
	}()
	return func() int64 {
		close(done)
		return <-result
	}
}

// exitedPeakKB is the peak resident memory, in KiB, of a run that ended
// (cmd waited for), or 0 when the kernel did not say.
func exitedPeakKB(cmd *exec.Cmd) int64 {
	if cmd.ProcessState == nil {
		return 0
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss // KiB on Linux
	}
	return 0
}

// ResetPeakRSS resets the high-water mark of resident memory (VmHWM) of
// pid and of every process below it to its current size, so that
// PeakRSS then reads the peak of what follows. Processes it may not
// reset are left as they are.
func ResetPeakRSS(pid int) {
	for _, p := range tree(pid) {
		_ = os.WriteFile("/proc/"+strconv.Itoa(p)+"/clear_refs", []byte("5"), 0)
	}
}

// PeakRSS is the high-water marks of resident memory (VmHWM) of pid and
// of every process below it, added up, in KiB; processes that ended are
// not counted.
func PeakRSS(pid int) int64 {
	var kb int64
	for _, p := range tree(pid) {
		kb += statusKB("/proc/"+strconv.Itoa(p)+"/status", "VmHWM:")
	}
	return kb
}

// tree is pid and its descendants, parents first: the children of
// every thread of each (a process started from a thread other than the
// main one is listed under that thread).
func tree(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		p := strconv.Itoa(out[i])
		tasks, _ := os.ReadDir("/proc/" + p + "/task")
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/" + p + "/task/" + t.Name() + "/children")
			if err != nil {
				continue
			}
			for _, f := range bytes.Fields(b) {
				if c, err := strconv.Atoi(string(f)); err == nil {
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// statusKB reads the figure of field ("VmHWM:") of a /proc status file,
// in KiB; 0 when it cannot.
func statusKB(path, field string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	i := bytes.Index(b, []byte("\n"+field))
	if i < 0 {
		return 0
	}
	line := b[i+1+len(field):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	kb, _ := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(line), []byte(" kB"))), 10, 64)
	return kb
}
