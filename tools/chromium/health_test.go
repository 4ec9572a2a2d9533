package chromium

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/tools/toolstest"
)

// framesAndWindows is a page that once broke the browser for every
// later job: a thousand iframes and a thousand windows.
var framesAndWindows = `<!doctype html><title>w</title><body><script>
for (let i = 0; i < 1000; i++) {
  const f = document.createElement("iframe");
  f.srcdoc = "<p>frame " + i + "</p><script>for(;;){}<\/script>";
  document.body.appendChild(f);
  window.open("about:blank#" + i, "w" + i);
}
</script></body>`

// endless is a page whose script never ends.
const endless = `<script>while(true){}</script>`

// runWithin runs tl on page under a deadline of d.
func runWithin(t *testing.T, tl *docmill.Tool, page string, d time.Duration) error {
	t.Helper()
	params, _ := tl.ParseParams(nil)
	dir := t.TempDir()
	path := filepath.Join(dir, "input-0.html")
	if err := os.WriteFile(path, []byte(page), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	_, err := tl.Invoke(ctx, &docmill.RunInput{Files: []docmill.LocalFile{{Path: path, Filename: "a.html", ContentType: "text/html"}}, Params: params, WorkDir: dir})
	return err
}

// TestBrowserHealthyAfterBadPages: after the frames-and-windows page and
// two endless-script pages time out, the next ordinary job prints
// normally.
func TestBrowserHealthyAfterBadPages(t *testing.T) {
	b, tl := ownBrowser(t, Options{MaxTabs: 2})
	start := time.Now()
	mustRun(t, tl, "a.html", "text/html", []byte(twoPages), nil)
	t.Logf("the first job, starting the browser, took %s", time.Since(start))
	b.mu.Lock()
	pid := b.cur.pid
	b.mu.Unlock()
	old := toolstest.ProcessTree(pid)
	if err := runWithin(t, tl, framesAndWindows, 5*time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("frames and windows: %v, want the deadline", err)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if err := runWithin(t, tl, endless, 3*time.Second); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("endless script: %v, want the deadline", err)
			}
		})
	}
	wg.Wait()
	ended := time.Now()
	// The browser that served them was replaced, and is gone whole.
	var left []toolstest.Proc
	// Measures how long the browser takes to go; a miss is t.Errorf.
	watch, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if poll.Sample(watch, 100*time.Millisecond, func() bool {
		left = toolstest.Running(old)
		return len(left) == 0
	}) {
		t.Logf("the browser of the bad pages is gone %s after they ended", time.Since(ended).Round(time.Millisecond))
	}
	if len(left) > 0 {
		t.Errorf("10 s after the bad pages, %d processes of their browser remain: %v", len(left), left)
	}
	start = time.Now()
	out := mustRun(t, tl, "a.html", "text/html", []byte(twoPages), nil)
	if !strings.HasSuffix(out.Path, ".pdf") {
		t.Fatalf("output %s", out.Path)
	}
	t.Logf("the next ordinary job took %s", time.Since(start))
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cur.pid == pid {
		t.Error("the browser that served the bad pages serves the next job")
	}
}

// TestBrowserKeptAfterOrdinaryFailure: a job that fails on its own (a
// page selection past the page's end, which Chromium refuses after
// loading the page) leaves a healthy browser in service: the check after
// it passes, and the next job runs in the same browser.
func TestBrowserKeptAfterOrdinaryFailure(t *testing.T) {
	b, tl := ownBrowser(t, Options{MaxTabs: 2})
	mustRun(t, tl, "a.html", "text/html", []byte(twoPages), nil)
	b.mu.Lock()
	pid := b.cur.pid
	b.mu.Unlock()
	_, err := run(t, tl, "twelve.html", "text/html", twelvePages(), map[string]string{"page_ranges": "20-30"})
	wantCode(t, err, docmill.CodeInvalidParameter)
	mustRun(t, tl, "b.html", "text/html", []byte(twoPages), nil)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cur.pid != pid {
		t.Error("a healthy browser was replaced after an ordinary failure")
	}
}

// TestCanceledDuringStart: a job canceled while the browser starts
// returns at once; the start goes on, and the next job gets that browser.
func TestCanceledDuringStart(t *testing.T) {
	b, tl := ownBrowser(t, Options{MaxTabs: 2})
	params, _ := tl.ParseParams(nil)
	dir := t.TempDir()
	path := filepath.Join(dir, "input-0.html")
	if err := os.WriteFile(path, []byte(twoPages), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := tl.Invoke(ctx, &docmill.RunInput{Files: []docmill.LocalFile{{Path: path, Filename: "a.html", ContentType: "text/html"}}, Params: params, WorkDir: dir})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled job: %v", err)
	}
	t.Logf("the canceled job returned %s after it started", time.Since(start).Round(time.Millisecond))
	mustRun(t, tl, "a.html", "text/html", []byte(twoPages), nil)
	b.mu.Lock()
	defer b.mu.Unlock()
	if n := b.cur.jobs; n != 2 {
		t.Errorf("the browser served %d jobs, want 2: the one started for the canceled job serves the next", n)
	}
}
