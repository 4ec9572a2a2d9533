package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/docmill/docmill/tools/toolstest"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/diskspace"
	"github.com/docmill/docmill/internal/poll"
)

// TestDataDirLocked: while a server works a data directory, a second one
// on it is refused at start with a message naming the directory and the
// holder's pid, and exits non-zero; `docmill keys` still works beside it;
// once the first stops, the directory is free again.
func TestDataDirLocked(t *testing.T) {
	// Its directory and nodes are its own.
	t.Parallel()
	dir := t.TempDir()
	first := startChild(t, dir)
	want := fmt.Sprintf("another docmill server is using the data directory %s (pid %d)", dir, first.cmd.Process.Pid)

	// A second server as its own process: exit status 1, the message on
	// standard error.
	args, _ := json.Marshal(serveArgs(dir, nil))
	second := exec.Command(os.Args[0], "-test.run=^$")
	second.Env = append(os.Environ(), childArgsEnv+"="+string(args))
	var stderr bytes.Buffer
	second.Stderr = &stderr
	err := second.Run()
	if code := second.ProcessState.ExitCode(); err == nil || code != 1 {
		t.Fatalf("second server: %v (exit %d), want exit 1", err, code)
	}
	if got := strings.TrimSpace(stderr.String()); got != "docmill: "+want {
		t.Fatalf("second server said %q, want %q", got, "docmill: "+want)
	}

	// The admin commands share the database with the running server.
	key := newKey(t, dir, "free")
	if _, err := first.client(key).Account(context.Background()); err != nil {
		t.Fatalf("a key created beside the server: %v", err)
	}

	first.stop(t)
	s := startServer(t, dir)
	if _, err := s.client(key).Account(context.Background()); err != nil {
		t.Fatalf("after the first server stopped: %v", err)
	}
}

// mountTmpfs mounts a tmpfs of size (such as "64m") for the test and
// unmounts it at the end, after the servers started later stopped. Where
// mounting is not permitted the test is skipped, except in CI.
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0755", "tmpfs", dir).CombinedOutput(); err != nil {
		toolstest.NeedCapability(t, "mount a tmpfs", fmt.Errorf("%v: %s", err, out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// sizedBodies buffers each request body so that it is sent with a
// Content-Length, as browsers and curl send files (the Go client streams
// them chunked).
type sizedBodies struct{}

func (sizedBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.ContentLength <= 0 {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}

// readiness is /readyz's answer.
type readiness struct {
	status int
	Checks map[string]string `json:"checks"`
	Disk   map[string]struct {
		Free int64 `json:"free_bytes"`
		Min  int64 `json:"min_free_bytes"`
		OK   bool  `json:"ok"`
	} `json:"disk"`
}

func ready(t *testing.T, s *testServer) readiness {
	t.Helper()
	resp, err := http.Get(s.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := readiness{status: resp.StatusCode}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

// settle waits until the free space under dir stops changing: a sync
// job's answer reaches the client before its worker has removed the job's
// scratch directory, whose input link frees an input's size when it goes.
func settle(t *testing.T, dir string) {
	t.Helper()
	last, same := int64(-1), 0
	// Three equal readings; it does not fail at its deadline.
	watch, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	poll.Sample(watch, 50*time.Millisecond, func() bool {
		u, err := diskspace.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		if u.Free == last {
			same++
		} else {
			last, same = u.Free, 0
		}
		return same >= 3
	})
}

// leaveFree sizes the filler file in dir (a tmpfs) so that about free
// bytes are left on its file system.
func leaveFree(t *testing.T, dir string, free int64) {
	t.Helper()
	settle(t, dir)
	f, err := os.OpenFile(filepath.Join(dir, "filler"), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	u, err := diskspace.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	size := max(fi.Size()+u.Free-free, 0)
	if size < fi.Size() {
		err = f.Truncate(size)
	} else if size > fi.Size() {
		err = syscall.Fallocate(int(f.Fd()), 0, 0, size) // tmpfs allocates it now
	}
	if err != nil {
		t.Fatalf("filler of %d bytes: %v", size, err)
	}
}

// operationsUsed is the account's usage this period.
func operationsUsed(t *testing.T, c *client.Client) int {
	t.Helper()
	a, err := c.Account(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(a.Usage.OperationsUsed)
}

// storageRefusal asserts that err is a clean 507 insufficient_storage
// answer that shows nothing of the server's paths.
func storageRefusal(t *testing.T, err error, dir string) {
	t.Helper()
	e := apiError(t, err, http.StatusInsufficientStorage, "insufficient_storage")
	if e.Header.Get("Retry-After") != "60" {
		t.Errorf("Retry-After %q, want 60", e.Header.Get("Retry-After"))
	}
	if strings.Contains(e.Detail, "/") || strings.Contains(e.Detail, dir) {
		t.Errorf("detail shows a path: %q", e.Detail)
	}
}

// TestDiskFull fills a 64 MB data directory (a tmpfs) with the results of
// real jobs until the server refuses uploads, then below its minimum free
// space with a filler file, and checks every answer on the way: clean 507
// insufficient_storage problems with Retry-After (up front by
// Content-Length, mid-stream on ENOSPC, and for a job whose engine ran out
// of room), nothing charged for them, /readyz not ready; then, with space
// freed through the API and the filler gone, ready again and working.
func TestDiskFull(t *testing.T) {
	// Its tmpfs and server are its own, and it bounds no time.
	t.Parallel()
	const minFree = 4 << 20
	dir := mountTmpfs(t, "64m")
	s := startServer(t, dir, "--min-free-space", "4MB", "--workers", "1")
	c := s.client(s.DevKey)
	c.HTTP = &http.Client{Transport: sizedBodies{}}
	ctx := context.Background()
	if r := ready(t, s); r.status != 200 || r.Checks["disk"] != "ok" || !r.Disk["files"].OK || r.Disk["scratch"].Min != minFree {
		t.Fatalf("readyz on an empty disk: %+v", r)
	}

	// Fill the file store with results (each about as large as its 2.2 MB
	// input) until an upload no longer fits with 4 MB to spare.
	var done []string
	var refused error
	for i := 0; i < 40 && refused == nil; i++ {
		j, _, err := c.Process(ctx, "rotate-pdf", []client.File{file(t, "pdf", "base64image.pdf")}, client.ProcessOptions{Params: map[string]string{"angle": "90"}})
		switch {
		case err != nil:
			refused = err
		case j.Status != "done":
			t.Fatalf("job %d: %+v", i, j)
		default:
			done = append(done, j.JobID)
		}
	}
	t.Logf("%d results stored before the first refusal", len(done))
	if len(done) < 10 {
		t.Fatalf("only %d jobs fit in 64 MB", len(done))
	}
	storageRefusal(t, refused, dir)
	if got := operationsUsed(t, c); got != len(done) {
		t.Fatalf("charged %d operations for %d done jobs", got, len(done))
	}

	// Below the minimum: not ready, and even a small upload is refused,
	// with or without a Content-Length.
	leaveFree(t, dir, minFree/2)
	if r := ready(t, s); r.status != 503 || r.Checks["disk"] != "low" || r.Disk["files"].OK || r.Disk["files"].Free >= minFree {
		t.Fatalf("readyz below the minimum: %+v", r)
	}
	small := []client.File{pdfFile("one-page.pdf", onePagePDF())}
	_, _, err := c.Process(ctx, "rotate-pdf", small, client.ProcessOptions{})
	storageRefusal(t, err, dir)
	_, _, err = s.client(s.DevKey).Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	storageRefusal(t, err, dir)

	// Above the minimum but too little for a chunked upload of unknown
	// length: the write itself runs out of room (ENOSPC), and the partial
	// file goes.
	leaveFree(t, dir, minFree+(1<<20))
	before, _ := diskspace.Stat(dir)
	big := io.MultiReader(strings.NewReader("%PDF-1.7\n"), bytes.NewReader(make([]byte, 8<<20)))
	_, _, err = s.client(s.DevKey).Process(ctx, "rotate-pdf", []client.File{{Name: "big.pdf", Body: big}}, client.ProcessOptions{})
	storageRefusal(t, err, dir)
	if after, _ := diskspace.Stat(dir); after.Free < before.Free-(256<<10) {
		t.Fatalf("the refused upload left %d bytes behind", before.Free-after.Free)
	}
	// A subtest: without pdf-to-png, only this case stops (Lacking).
	t.Run("engine out of room", func(t *testing.T) { testEngineOutOfRoom(t, s, c, dir, minFree) })
	if got := operationsUsed(t, c); got != len(done) {
		t.Fatalf("charged %d operations for %d done jobs after the refusals", got, len(done))
	}

	testSpaceFreed(t, s, c, dir, done)
}

// testSpaceFreed frees space through the API (deleting half the results)
// and removes the filler: the server is ready again, and jobs run and are
// charged.
func testSpaceFreed(t *testing.T, s *testServer, c *client.Client, dir string, done []string) {
	t.Helper()
	ctx := context.Background()
	for _, id := range done[:len(done)/2] {
		if _, err := c.CancelJob(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	if r := ready(t, s); r.status != 200 || r.Checks["disk"] != "ok" {
		t.Fatalf("readyz after freeing space: %+v", r)
	}
	j, _, err := c.Process(ctx, "rotate-pdf", []client.File{file(t, "pdf", "base64image.pdf")}, client.ProcessOptions{})
	if err != nil || j.Status != "done" {
		t.Fatalf("after freeing space: %+v %v", j, err)
	}
	if got := operationsUsed(t, c); got != len(done)+1 {
		t.Fatalf("charged %d operations for %d done jobs", got, len(done)+1)
	}
}

// testEngineOutOfRoom runs pdf-to-png at 600 dpi with too little room for
// its pages: the engine fails for want of space, which is the disk's fault,
// not the input's, so the job fails at once (no retries) as
// insufficient_storage and the sync answer is a 507.
func testEngineOutOfRoom(t *testing.T, s *testServer, c *client.Client, dir string, minFree int64) {
	t.Helper()
	leaveFree(t, dir, minFree+(512<<10))
	start := time.Now()
	_, _, err := c.Process(context.Background(), "pdf-to-png", []client.File{file(t, "pdf", "pdflatex-4-pages.pdf")},
		client.ProcessOptions{Params: map[string]string{"dpi": "600"}, Prefer: "wait=120"})
	if e, ok := err.(*client.Problem); ok && e.Code == "engine_unavailable" {
		toolstest.Lacking(t, "pdf-to-png is not available here: %s", e.Detail)
	}
	storageRefusal(t, err, dir)
	e := err.(*client.Problem)
	failed, err := c.Job(context.Background(), e.JobID)
	if err != nil || failed.Status != "failed" || failed.Error == nil || failed.Error.Code != "insufficient_storage" {
		t.Fatalf("job record: %+v %v", failed, err)
	}
	t.Logf("engine out of room: failed in %s", time.Since(start))
}
