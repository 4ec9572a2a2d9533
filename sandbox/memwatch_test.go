package sandbox

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestParseVmData(t *testing.T) {
	for _, c := range []struct {
		status string
		want   int64
	}{
		{"Name:\tx\nVmPeak:\t  900 kB\nVmData:\t  1024 kB\nVmStk:\t 132 kB\n", 1 << 20},
		{"Name:\tx\nVmData:\t12 kB", 12 << 10},
		{"Name:\tx\nVmRSS:\t12 kB\n", 0},
		{"Name:\tx\nVmData:\tlots kB\n", 0},
		{"", 0},
	} {
		if got := parseVmData([]byte(c.status)); got != c.want {
			t.Errorf("parseVmData(%q) = %d, want %d", c.status, got, c.want)
		}
	}
}

func TestWatchMemory(t *testing.T) {
	if dataSize(make([]byte, 4096)) == 0 {
		t.Skip("no /proc/self/status")
	}
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	stop := watchMemory(1, &stderr, func(code int) { exited <- code })
	defer stop()
	select {
	case code := <-exited:
		if code != 2 || !strings.Contains(stderr.String(), "out of memory") {
			t.Errorf("exit %d, stderr %q", code, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a process over a 1-byte cap was not stopped")
	}

	// A watch under its cap looks a few times and stops nothing.
	exited2 := make(chan int, 1)
	looks := make(chan struct{}, 3)
	memoryLooked = func() {
		select {
		case looks <- struct{}{}:
		default:
		}
	}
	defer func() { memoryLooked = nil }()
	stop2 := watchMemory(1<<40, &stderr, func(code int) { exited2 <- code })
	for range cap(looks) {
		select {
		case <-looks:
		case <-exited2:
			t.Fatal("a process under its cap was stopped")
		}
	}
	stop2()
	select {
	case <-exited2:
		t.Error("a process under its cap was stopped")
	default:
	}
}
