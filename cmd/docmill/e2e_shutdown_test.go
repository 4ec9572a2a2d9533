package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
)

// The shutdown tests run the server as a child process and stop it with
// SIGTERM: a process that exits drops the connections it has not answered,
// which an in-process server, whose handlers outlive run, would hide.

// shutdownArgs: a 5 s shutdown, so sync waits are answered 4 s after
// SIGTERM (drainAfter), and one worker, so most jobs are still queued then.
var shutdownArgs = []string{"--shutdown-timeout", "5s", "--workers", "1"}

func TestDrainAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ timeout, want time.Duration }{
		{30 * time.Second, 24 * time.Second},
		{5 * time.Second, 4 * time.Second},
		{2 * time.Second, time.Second},
		{time.Second, 0},
		{500 * time.Millisecond, 0},
		{0, 0},
		{time.Minute, 48 * time.Second},
	} {
		if got := drainAfter(tc.timeout); got != tc.want {
			t.Errorf("drainAfter(%v) = %v, want %v", tc.timeout, got, tc.want)
		}
	}
}

// answer is the outcome of one process call.
type answer struct {
	job  *client.Job
	resp *client.Response
	err  error
	at   time.Time
}

// TestShutdownAnswersWaitingRequests: a node stopped while sync process
// calls wait for their jobs answers every one of them before it exits, 200
// with the finished job or 202 with the job's id and Location; none gets
// a connection error or an empty reply. After a restart on the same data
// every 202'd job is done, and each of the jobs is charged exactly once.
func TestShutdownAnswersWaitingRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Wait-bound (the drain); its directory and node are its own, and its
	// one bound on time (10 s for a 5 s shutdown) is a generous deadline.
	t.Parallel()
	dir := t.TempDir()
	s := startChild(t, dir, shutdownArgs...)
	key := newKey(t, dir, "custom", "--rpm", "1000", "--in-flight", "100")
	c := s.client(key)
	ctx := context.Background()

	// The render lane's one worker is kept busy by Ghostscript drawing
	// 80 MB of lines (a minute's budget), so that the sync compress-pdf
	// calls, in the same lane, are still waiting at the drain point
	// however fast the machine.
	slow := client.File{Name: "slow.pdf", Body: bytes.NewReader(slowPathsPDF(t, 2, 40<<20))}
	blocker, _, err := c.Process(ctx, "compress-pdf", []client.File{slow}, client.ProcessOptions{Prefer: "respond-async"})
	if err != nil {
		t.Fatal(err)
	}
	awaitStatus(t, c, blocker.JobID, "processing")
	const n = 10
	answers := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		f := file(t, "pdf", "base64image.pdf")
		wg.Go(func() {
			j, resp, err := c.Process(ctx, "compress-pdf", []client.File{f}, client.ProcessOptions{})
			answers[i] = answer{j, resp, err, time.Now()}
		})
	}
	awaitInFlight(t, c, n+1) // every request is accepted and waits
	if st := jobStatus(t, dir, blocker.JobID); st != "processing" {
		t.Fatalf("the OCR job is %s already, want processing", st)
	}
	sigterm := time.Now()
	s.stop(t) // SIGTERM; the process must exit 0
	exited := time.Now()
	wg.Wait()
	t.Logf("exited %v after SIGTERM", exited.Sub(sigterm).Round(10*time.Millisecond))
	// The timeout, and some time to stop the engines after it.
	if exited.Sub(sigterm) > 10*time.Second {
		t.Errorf("the server took %v to stop; --shutdown-timeout is 5s", exited.Sub(sigterm))
	}

	var accepted []string
	for i, a := range answers {
		if a.err != nil {
			t.Fatalf("request %d: %v", i, a.err)
		}
		t.Logf("request %d: %d %s after %v", i, a.resp.StatusCode, a.job.Status, a.at.Sub(sigterm).Round(10*time.Millisecond))
		switch {
		case a.resp.StatusCode == 200 && a.job.Status == "done" && a.job.Result != nil:
		case a.resp.StatusCode == 202 && (a.job.Status == "queued" || a.job.Status == "processing") &&
			a.job.JobID != "" && a.resp.Header.Get("Location") == "/v1/jobs/"+a.job.JobID && a.resp.Header.Get("Retry-After") != "":
			accepted = append(accepted, a.job.JobID)
		default:
			t.Fatalf("request %d: %d %+v, want 200 done or 202 with the job", i, a.resp.StatusCode, a.job)
		}
	}
	if len(accepted) == 0 {
		t.Fatal("every job finished before the drain: the test shows nothing")
	}
	// A 202'd job may have finished between the drain and the exit; the
	// others are handed back to the queue, none left running.
	for _, id := range append(accepted, blocker.JobID) {
		st, river := jobStatus(t, dir, id), riverState(t, dir, id)
		if !(st == "done" && river == "completed") && river != "available" && river != "scheduled" {
			t.Errorf("job %s after the stop: %s, its River job %s; want done, or back in the queue", id, st, river)
		}
	}

	s2 := startChild(t, dir)
	c2 := s2.client(key)
	if _, err := c2.CancelJob(ctx, blocker.JobID); err != nil { // not charged
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for _, id := range accepted {
		j, err := c2.Wait(wctx, id, 250*time.Millisecond)
		if err != nil || j.Status != "done" {
			t.Fatalf("job %s after the restart: %+v %v", id, j, err)
		}
	}
	usage := accountUsage(context.Background(), t, c2)
	if usage.OperationsUsed != int64(n) || usage.JobsInFlight != 0 {
		t.Fatalf("usage %v, want %d operations and none in flight", usage, n)
	}
}

// TestShutdownHandsBackJobInProgress: a job still running at the shutdown
// deadline is canceled and handed back to the queue (its record queued
// again, not processing); its client got 202 at the drain point. After a
// restart it runs again, and is charged once.
func TestShutdownHandsBackJobInProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Wait-bound; its directory and node are its own. Load only makes the
	// compress-pdf outlast the 1 s deadline more surely.
	t.Parallel()
	dir := t.TempDir()
	// Drain at once, deadline at 1 s: less than this compress-pdf takes
	// (1.6 s for gs alone on a quiet 2-core machine).
	s := startChild(t, dir, "--shutdown-timeout", "1s", "--workers", "1")
	c := s.client(s.DevKey)
	got := make(chan answer, 1)
	f := file(t, "pdf", "GeoTopo-komprimiert.pdf")
	go func() {
		j, resp, err := c.Process(context.Background(), "compress-pdf", []client.File{f}, client.ProcessOptions{})
		got <- answer{j, resp, err, time.Now()}
	}()
	id := awaitProcessing(t, dir)
	s.stop(t)
	a := <-got
	if a.err != nil || a.resp.StatusCode != 202 || a.job.JobID != id || a.job.Status != "processing" {
		t.Fatalf("answer %+v %v, want 202 processing for %s", a.resp, a.err, id)
	}
	if st, river := jobStatus(t, dir, id), riverState(t, dir, id); st != "queued" || (river != "available" && river != "scheduled") {
		t.Fatalf("after the stop the job is %s, its River job %s; want queued, back in the queue", st, river)
	}

	s2 := startChild(t, dir)
	c2 := s2.client(s.DevKey)
	wctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if j, err := c2.Wait(wctx, id, 250*time.Millisecond); err != nil || j.Status != "done" {
		t.Fatalf("after the restart: %+v %v", j, err)
	}
	if u := accountUsage(context.Background(), t, c2); u.OperationsUsed != 1 {
		t.Fatalf("usage %v, want 1 operation", u)
	}
}

// awaitProcessing waits until a job of dataDir's server is processing and
// returns its id.
func awaitProcessing(t *testing.T, dataDir string) string {
	t.Helper()
	db := openDB(t, dataDir)
	var id string
	poll.Until(t, 30*time.Second, func() (bool, string) {
		err := db.QueryRow(`SELECT id FROM jobs WHERE status = 'processing'`).Scan(&id)
		return err == nil, fmt.Sprintf("no job processing: %v", err)
	})
	return id
}

// TestShutdownRefusesUnfinishedUpload: an upload still arriving when the
// node drains is answered 503 service_unavailable with a Retry-After, not
// dropped; nothing of it is kept or charged.
func TestShutdownRefusesUnfinishedUpload(t *testing.T) {
	// Wait-bound (the drain); its directory and node are its own.
	t.Parallel()
	dir := t.TempDir()
	s := startChild(t, dir, shutdownArgs...)
	c := s.client(s.DevKey)
	pr, pw := io.Pipe()
	defer pw.Close()
	go trickleUpload(pw)
	got := make(chan answer, 1)
	go func() {
		j, resp, err := c.Process(context.Background(), "rotate-pdf", []client.File{{Name: "slow.pdf", Body: pr}}, client.ProcessOptions{})
		got <- answer{j, resp, err, time.Now()}
	}()
	awaitUploadStored(t, dir)
	s.stop(t)
	a := <-got
	pw.Close()
	e := apiError(t, a.err, 503, "service_unavailable")
	if e.Header.Get("Retry-After") == "" {
		t.Errorf("no Retry-After: %v", e.Header)
	}
	assertNoInputs(t, dir)
	if st := countJobs(t, dir); st != 0 {
		t.Fatalf("%d jobs recorded, want none", st)
	}
}

// awaitUploadStored waits until the server of dataDir has stored the
// first bytes of an upload: the upload is under way.
func awaitUploadStored(t *testing.T, dataDir string) {
	t.Helper()
	poll.Until(t, 30*time.Second, func() (bool, string) {
		stored := false
		filepath.WalkDir(filepath.Join(dataDir, "blobs", "in"), func(_ string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if info, err := d.Info(); err == nil && info.Size() > 0 {
					stored = true
				}
			}
			return nil
		})
		return stored, "no byte of the upload stored"
	})
}

// trickleUpload writes the start of a PDF, then a byte every 50 ms until
// the pipe is closed.
func trickleUpload(pw *io.PipeWriter) {
	if _, err := fmt.Fprintf(pw, "%%PDF-1.7\n%s", strings.Repeat("%", 4096)); err != nil {
		return
	}
	for {
		time.Sleep(50 * time.Millisecond) // not ordering: pacing a slow client
		if _, err := pw.Write([]byte("%")); err != nil {
			return
		}
	}
}

// awaitInFlight waits until the account has n jobs in flight.
func awaitInFlight(t *testing.T, c *client.Client, n int) {
	t.Helper()
	poll.Until(t, 30*time.Second, func() (bool, string) {
		u := accountUsage(context.Background(), t, c)
		return u.JobsInFlight == int64(n), fmt.Sprintf("usage %v, want %d jobs in flight", u, n)
	})
}

// riverState is the state of the River job that works docmill job id.
func riverState(t *testing.T, dataDir, id string) string {
	t.Helper()
	var st string
	err := openDB(t, dataDir).QueryRow(`SELECT state FROM river_job WHERE kind = 'docmill.process' AND json_extract(args, '$.job_id') = $1`, id).Scan(&st)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// countJobs counts the job records.
func countJobs(t *testing.T, dataDir string) int {
	t.Helper()
	var n int
	if err := openDB(t, dataDir).QueryRow(`SELECT count(*) FROM jobs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestShutdownWithUnusedConnection: a connection that carried no request
// (one a client's pool dialed and never used, or a scanner's) is closed
// at the shutdown deadline and does not fail the stop: the process exits
// 0, as it does when every connection is idle. A connection with a
// request in progress at the deadline still fails it (its answer is cut
// off), which TestShutdownAnswersWaitingRequests's exit 0 rules out for
// the requests it sends.
func TestShutdownWithUnusedConnection(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Wait-bound (the 2 s shutdown); its directory and node are its own.
	t.Parallel()
	s := startChild(t, t.TempDir(), "--shutdown-timeout", "2s")
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	getJSON(t, s.URL+"/healthz", 200) // the server has accepted the silent connection by now
	start := time.Now()
	s.stop(t) // SIGTERM; the process must exit 0
	t.Logf("stopped %v after SIGTERM", time.Since(start).Round(10*time.Millisecond))
	if _, err := conn.Read(make([]byte, 1)); err == nil {
		t.Error("the unused connection is still open after the stop")
	}
}
