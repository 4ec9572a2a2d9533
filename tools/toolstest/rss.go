package toolstest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// ResetPeakRSS resets this process's VmHWM to its current RSS, so that
// PeakRSS(t, 0) reads the peak of what follows.
func ResetPeakRSS(t testing.TB) {
	t.Helper()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatal(err)
	}
}

// PeakRSS is the peak resident set size (VmHWM) of process pid, or of
// this process for pid 0.
func PeakRSS(t testing.TB, pid int) int64 {
	t.Helper()
	proc := "self"
	if pid != 0 {
		proc = strconv.Itoa(pid)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%s/status", proc))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			kb, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
