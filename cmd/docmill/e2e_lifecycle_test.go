package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/docmill/docmill/tools/toolstest"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
)

// TestQueuedJobSurvivesRestart: a job accepted by a server that stops
// (SIGTERM) before working it completes after the next start. Its sync
// call, answered 202 when its budget ran out, is a waited one (its
// insert's commit need not wait for the disk), so the answer came after
// the store's Durable.
func TestQueuedJobSurvivesRestart(t *testing.T) {
	// Wait-bound (restarts); its directory and nodes are its own.
	t.Parallel()
	testQueuedJobSurvivesRestart(t, sqliteDir)
}

// TestPostgresQueuedJobSurvivesRestart is TestQueuedJobSurvivesRestart on
// PostgreSQL, where a waited call's insert commits without waiting for
// the disk and Durable makes it wait before the 202.
func TestPostgresQueuedJobSurvivesRestart(t *testing.T) {
	t.Parallel() // its schema and nodes are its own
	testQueuedJobSurvivesRestart(t, postgresDir)
}

func testQueuedJobSurvivesRestart(t *testing.T, dataDir dataDirFunc) {
	dir := dataDir(t)
	api := startChild(t, dir, "--role", "api", "--sync-budget", "1s")
	ctx := context.Background()
	j, resp, err := api.client(api.DevKey).Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	if err != nil || resp.StatusCode != 202 || j.Status != "queued" {
		t.Fatalf("want 202 queued from an API-only node after its budget: %v %v", resp, err)
	}
	api.stop(t)

	s := startChild(t, dir)
	done, err := s.client(api.DevKey).Wait(ctx, j.JobID, 100*time.Millisecond)
	if err != nil || done.Status != "done" {
		t.Fatalf("after restart: %+v %v", done, err)
	}
	if len(pdfPages(t, download(t, done.Result.URL))) != 1 {
		t.Fatal("bad result")
	}
}

// TestKillMidJob: a server killed with SIGKILL while working a job loses
// nothing; the job goes back to the queue as the server starts again.
func TestKillMidJob(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Wait-bound (restarts); its directory and nodes are its own. Load
	// only makes the merge outlast the kill more surely.
	t.Parallel()
	dir := t.TempDir()
	big := bigMerge(t)
	s := startChild(t, dir)
	ctx := context.Background()
	c := s.client(s.DevKey)
	j, _, err := c.Process(ctx, "merge-pdf", big, client.ProcessOptions{Prefer: "respond-async"})
	if err != nil {
		t.Fatal(err)
	}
	awaitStatus(t, c, j.JobID, "processing")
	s.kill(t)
	killed := time.Now()
	if st := jobStatus(t, dir, j.JobID); st != "processing" {
		t.Fatalf("killed too late: job is %s", st)
	}

	s2 := startChild(t, dir)
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	done, err := s2.client(s.DevKey).Wait(wctx, j.JobID, 250*time.Millisecond)
	if err != nil || done.Status != "done" {
		t.Fatalf("after kill -9 and restart: %+v %v", done, err)
	}
	t.Logf("rescued and done %s after the kill; the merge took %v ms", time.Since(killed).Round(time.Second), done.Meta["duration_ms"])
}

// TestSIGTERMFinishesJobInProgress: a graceful stop lets the job being
// worked finish before the process exits.
func TestSIGTERMFinishesJobInProgress(t *testing.T) {
	// Its directory and node are its own.
	t.Parallel()
	dir := t.TempDir()
	s := startChild(t, dir)
	c := s.client(s.DevKey)
	ctx := context.Background()
	j, _, err := c.Process(ctx, "merge-pdf", bigMerge(t), client.ProcessOptions{Prefer: "respond-async"})
	if err != nil {
		t.Fatal(err)
	}
	awaitStatus(t, c, j.JobID, "processing")
	s.stop(t) // SIGTERM, and the process must exit 0
	if st := jobStatus(t, dir, j.JobID); st != "done" {
		t.Fatalf("after SIGTERM the job is %s, want done", st)
	}
}

// awaitStatus polls until the job has status (failing if it finishes
// otherwise first).
func awaitStatus(t *testing.T, c *client.Client, id, status string) {
	t.Helper()
	poll.Until(t, 30*time.Second, func() (bool, string) {
		p, err := c.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if string(p.Status) == status {
			return true, ""
		}
		if p.Finished() {
			t.Fatalf("job never seen %s: %s", status, p.Status)
		}
		return false, fmt.Sprintf("job never seen %s: %s", status, p.Status)
	})
}

// bigMerge returns the inputs of a merge that takes pdfcpu a while: the
// image-heavy corpus PDFs, many times over.
func bigMerge(t *testing.T) []client.File {
	var files []client.File
	for i := 0; i < 15; i++ {
		name := []string{"GeoTopo-komprimiert.pdf", "base64image.pdf", "cmyk-image.pdf"}[i%3]
		files = append(files, file(t, "pdf", name))
	}
	return files
}

// TestUploadGigabyteStreams uploads 1 GB generated on the fly to a server
// process and checks its peak RSS stays under 150 MB: the body streams to
// disk and is never held in memory.
func TestUploadGigabyteStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Its directory and node are its own; the peak RSS it bounds is its
	// node's alone.
	t.Parallel()
	dir := t.TempDir()
	s := startChild(t, dir)
	key := newKey(t, dir, "custom", "--max-file-mb", "2048")
	const size = 1 << 30
	start := time.Now()
	_, _, err := s.client(key).Process(context.Background(), "rotate-pdf",
		[]client.File{{Name: "huge.pdf", Body: io.MultiReader(strings.NewReader("%PDF-1.7\n"), io.LimitReader(zeros{}, size))}},
		client.ProcessOptions{})
	elapsed := time.Since(start)
	// The upload is accepted whole (the plan allows 2 GB); the PDF tool
	// then refuses a file past its own cap before parsing it.
	apiErrorDetail(t, err, 400, "file_too_large", "512 MB")
	peak := toolstest.PeakRSS(t, s.cmd.Process.Pid)
	t.Logf("1 GB upload: %.0f MB/s, server peak RSS %d MB", float64(size)/(1<<20)/elapsed.Seconds(), peak>>20)
	if peak > 150<<20 {
		t.Fatalf("server peak RSS %d MB, want < 150 MB", peak>>20)
	}
	assertNoInputs(t, dir)
}

// TestUploadTooLargeStopsStreaming: the plan limit is enforced while
// streaming and the partial file is removed.
func TestUploadTooLargeStopsStreaming(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	key := newKey(t, s.DataDir, "custom", "--max-file-mb", "5")
	_, _, err := s.client(key).Process(context.Background(), "rotate-pdf",
		[]client.File{{Name: "big.pdf", Body: io.MultiReader(strings.NewReader("%PDF-1.7\n"), io.LimitReader(zeros{}, 64<<20))}},
		client.ProcessOptions{})
	apiErrorDetail(t, err, 400, "file_too_large", "5 MB")
	assertNoInputs(t, s.DataDir)
}

// TestUploadTotalIsCapped: the server's cap bounds the files of one
// request together, not only each file.
func TestUploadTotalIsCapped(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "--max-upload-mb", "3")
	key := newKey(t, s.DataDir, "custom")                                          // no plan limit: the server cap applies
	geo := func() client.File { return pdfFile("pictures.pdf", webPicturesPDF()) } // 2.2 MB
	_, _, err := s.client(key).Process(context.Background(), "merge-pdf", []client.File{geo(), geo()}, client.ProcessOptions{})
	apiErrorDetail(t, err, 400, "file_too_large", "total")
	assertNoInputs(t, s.DataDir)
}

// TestStalledUploadIsDropped: a client that stops sending mid-upload is
// answered (408 upload_too_slow) and cut off after the idle timeout, and
// its partial file goes. On the same server, the other edge limits are
// wired: a Free key's 150 MB Content-Length is refused from the headers
// (nothing of the body sent), and one address holds --max-conns-per-ip
// connections at most.
func TestStalledUploadIsDropped(t *testing.T) {
	// Wait-bound (the idle timeout); its server is its own, and its bound
	// (10 s for a 1 s timeout) is a generous deadline.
	t.Parallel()
	s := startServer(t, "", "--upload-idle-timeout", "1s", "--max-conns-per-ip", "4")
	addr := strings.TrimPrefix(s.URL, "http://")
	post := func(key string, length int, body string) *http.Response {
		t.Helper()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		fmt.Fprintf(conn, "POST /v1/rotate-pdf/process HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
			"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: %d\r\n\r\n%s", key, length, body)
		_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		resp.Body.Close()
		return resp
	}
	body := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\n%PDF-1.7\n" + strings.Repeat("x", 4096)
	start := time.Now()
	if resp := post(s.DevKey, 100000, body); resp.StatusCode != http.StatusRequestTimeout || time.Since(start) > 10*time.Second {
		t.Fatalf("stalled upload: %d after %s", resp.StatusCode, time.Since(start))
	}
	assertNoInputs(t, s.DataDir)

	if resp := post(newKey(t, s.DataDir, "free"), 150<<20, ""); resp.StatusCode != http.StatusBadRequest || !resp.Close {
		t.Errorf("150 MB Content-Length on a Free key, no body sent: %d (close %v), want 400 and the connection closed", resp.StatusCode, resp.Close)
	}

	kept := 0
	for range 10 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := conn.Read(make([]byte, 1)); errors.Is(err, os.ErrDeadlineExceeded) {
			kept++ // still open: the server waits for its request
		}
	}
	if kept != 4 {
		t.Errorf("of 10 connections from one address the server kept %d, want --max-conns-per-ip 4", kept)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestInternalFailureIs500: when processing fails for a reason that is not
// the input (here the scratch disk is unusable), River retries, and the
// job then fails with 500 internal and a message that leaks nothing.
func TestInternalFailureIs500(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Wait-bound (the failed attempts' retries); its data directory is
	// its own.
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, dir)
	// A file where the scratch directory belongs: every attempt fails.
	if err := os.RemoveAll(dir + "/tmp"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/tmp", []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := s.client(s.DevKey).Process(context.Background(), "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())},
		client.ProcessOptions{Prefer: "wait=60"})
	e := apiError(t, err, http.StatusInternalServerError, "internal")
	if e.JobID == "" || strings.Contains(e.Detail, dir) || strings.Contains(e.Detail, "not a directory") {
		t.Fatalf("problem %+v", e)
	}
	j, err := s.client(s.DevKey).Job(context.Background(), e.JobID)
	if err != nil || j.Status != "failed" || j.Error.Code != "internal" {
		t.Fatalf("job %+v %v", j, err)
	}
	acct, _ := s.client(s.DevKey).Account(context.Background())
	if acct.Usage.OperationsUsed != 0 {
		t.Fatal("a failed job was charged")
	}
}

// TestWaitAcrossProcesses: an API-only process and a worker process share
// the data; a sync call to the API waits for the job the other process
// works, and answers 200. It returns the API process.
func TestWaitAcrossProcesses(t *testing.T) {
	t.Parallel() // its directory and nodes are its own; it bounds no time
	testWaitAcrossProcesses(t, sqliteDir)
}

func testWaitAcrossProcesses(t *testing.T, newDir dataDirFunc) *testServer {
	dir := newDir(t)
	// A sync budget past the default 10 s: the test runs beside others,
	// and what it checks is who answers the wait, not how soon.
	api := startChild(t, dir, "--role", "api", "--sync-budget", "2m")
	startChild(t, dir, "--role", "worker")
	start := time.Now()
	j, resp, err := api.client(api.DevKey).Process(context.Background(), "rotate-pdf",
		[]client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	t.Logf("sync call answered by another process's worker in %s", time.Since(start))
	if err != nil || resp.StatusCode != 200 || j.Status != "done" {
		t.Fatalf("want 200 done through another process's worker: %v %+v", err, j)
	}
	if len(pdfPages(t, download(t, j.Result.URL))) != 1 {
		t.Fatal("bad result")
	}
	return api
}
