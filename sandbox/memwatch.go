package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// helperMemoryEnv tells a helper the memory cap, in bytes, that it
// enforces on itself with watchMemory.
const helperMemoryEnv = "DOCMILL_HELPER_MEMORY"

// memoryWatchInterval is how often a helper at work looks at its memory.
// A heap that outgrows the cap faster than this meets the kernel's limit
// instead, which also ends the helper, only less clearly.
const memoryWatchInterval = 2 * time.Millisecond

// watchMemory ends the helper, saying "out of memory" on stderr, once its
// data segment (VmData, what the kernel's RLIMIT_DATA counts: the Go heap,
// but also every thread's stack) exceeds memCap (0: no watch). Helpers
// reads those words to report a processing limit rather than a damaged
// document. The returned function stops the watch.
func watchMemory(memCap int64, stderr io.Writer, exit func(int)) (stop func()) {
	if memCap <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	looked := memoryLooked
	go func() {
		t := time.NewTicker(memoryWatchInterval)
		defer t.Stop()
		buf := make([]byte, 4096)
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if used := dataSize(buf); used > memCap {
				fmt.Fprintf(stderr, "docmill helper: out of memory: %d MB of data, over the cap of %d MB\n", used>>20, memCap>>20)
				exit(2)
				return
			}
			if looked != nil {
				looked()
			}
		}
	}()
	return func() { close(done) }
}

// memoryLooked, when a test sets it, is called by each watch started
// after that, every time the watch finds the data segment within the cap:
// the sign that a watch has looked and let the process be.
var memoryLooked func()

// dataSize is the process's VmData in bytes, or 0 if it cannot be read.
func dataSize(buf []byte) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	n, _ := io.ReadFull(f, buf)
	f.Close()
	return parseVmData(buf[:n])
}

// parseVmData reads the VmData line ("VmData:  123456 kB") of a
// /proc/PID/status text, in bytes; 0 when there is none.
func parseVmData(status []byte) int64 {
	i := bytes.Index(status, []byte("\nVmData:"))
	if i < 0 {
		return 0
	}
	line := status[i+len("\nVmData:"):]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(line), []byte(" kB"))), 10, 64)
	if err != nil {
		return 0
	}
	return kb << 10
}

// exitProcess is os.Exit; tests of watchMemory replace it.
var exitProcess = os.Exit
