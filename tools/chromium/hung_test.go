package chromium

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestHungPageStopsInRetiredBrowser: a page whose scripts never end (in
// the page, its frames and the windows it opens) and that runs out its
// time has its processes killed within a second, although its browser
// still serves another job (held here) and so is not shut down yet; the
// browser itself and the other job live on.
func TestHungPageStopsInRetiredBrowser(t *testing.T) {
	b, tl := ownBrowser(t, Options{MaxTabs: 2})
	mustRun(t, tl, "a.html", "text/html", []byte(twoPages), nil)
	for _, page := range []struct{ name, html string }{{"endless", endless}, {"frames and windows", framesAndWindows}} {
		other, err := b.acquire() // another job in flight on the same browser
		if err != nil {
			t.Fatal(err)
		}
		pid := other.pid
		done := make(chan error, 1)
		go func() { done <- runWithin(t, tl, page.html, 4*time.Second) }()
		// The page's processes are looked for, in windows of half a
		// second, until shortly before its deadline: on a loaded machine
		// a spinning renderer may get only a small share of a core in any
		// one window, and the first windows may close before it starts.
		var renderers, others []toolstest.Proc
		for range 7 {
			if renderers, others = splitRenderers(spinning(toolstest.ProcessTree(pid), 500*time.Millisecond, 10)); len(renderers) > 0 {
				break
			}
		}
		if len(renderers) == 0 {
			t.Fatalf("%s: no renderer of the browser seen working for the page", page.name)
		}
		if err := <-done; !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: %v, want the deadline", page.name, err)
		}
		ended := time.Now()
		var left, busy []toolstest.Proc
		// Measures how long the renderers take to go; a miss is reported
		// below.
		watch, stop := context.WithDeadline(context.Background(), ended.Add(10*time.Second))
		poll.Sample(watch, 10*time.Millisecond, func() bool {
			left = toolstest.Running(renderers)
			return len(left) == 0
		})
		stop()
		gone := time.Since(ended)
		for deadline := ended.Add(10 * time.Second); time.Now().Before(deadline); {
			if busy = spinning(others, 200*time.Millisecond, 4); len(busy) == 0 {
				break
			}
		}
		calm := time.Since(ended)
		t.Logf("%s: its renderers %v are gone %s after the deadline; the browser's other processes working for it %v are idle %s after it",
			page.name, renderers, gone.Round(time.Millisecond), others, calm.Round(time.Millisecond))
		switch {
		case len(left) > 0:
			t.Errorf("%s: 10 s after the deadline, renderers working for it remain:\n%s", page.name, describe(left))
		case gone > time.Second:
			t.Errorf("%s: its renderers outlived the deadline by %s, want under a second", page.name, gone.Round(time.Millisecond))
		case len(busy) > 0:
			t.Errorf("%s: 10 s after the deadline, processes still work for it:\n%s", page.name, describe(busy))
		}
		if other.dead() || len(toolstest.Running([]toolstest.Proc{{PID: pid, Start: startOf(pid)}})) == 0 {
			t.Fatalf("%s: the browser of the other job died", page.name)
		}
		b.release(other)
	}
}

// spinning returns the processes of procs that used at least 1/part of
// a core during window.
func spinning(procs []toolstest.Proc, window time.Duration, part int64) []toolstest.Proc {
	before := map[int]int64{}
	for _, p := range procs {
		before[p.PID] = ticks(p.PID)
	}
	time.Sleep(window) // not ordering: the window measured
	var out []toolstest.Proc
	for _, p := range procs {
		if used := ticks(p.PID) - before[p.PID]; before[p.PID] >= 0 && used*10*part >= window.Milliseconds() {
			out = append(out, p)
		}
	}
	return out
}

// ticks is pid's CPU time in clock ticks (1/100 s), -1 when it is gone.
func ticks(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return -1
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return -1
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return u + k
}

// startOf is pid's start time, as toolstest.Proc records it.
func startOf(pid int) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return ""
	}
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])[19]
}

// describe lists procs with their command lines.
func describe(procs []toolstest.Proc) string {
	var lines []string
	for _, p := range procs {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.PID), "cmdline"))
		lines = append(lines, fmt.Sprintf("%v: %.200s", p, strings.ReplaceAll(string(b), "\x00", " ")))
	}
	return strings.Join(lines, "\n")
}

// splitRenderers splits procs into Chromium's renderer processes of web
// pages and the others (the browser, its GPU and utility processes). The
// renderers of the browser's own pages (--top-chrome-webui) are in
// neither: they work for no job.
func splitRenderers(procs []toolstest.Proc) (renderers, others []toolstest.Proc) {
	for _, p := range procs {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.PID), "cmdline"))
		switch cmd := string(b); {
		case strings.Contains(cmd, "--top-chrome-webui"):
		case strings.Contains(cmd, "--type=renderer"):
			renderers = append(renderers, p)
		default:
			others = append(others, p)
		}
	}
	return renderers, others
}
