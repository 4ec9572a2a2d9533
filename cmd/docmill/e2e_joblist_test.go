package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/tools/toolstest"
)

// listKey creates an account whose limits a test creating many jobs at
// once cannot reach, and returns its key.
func listKey(t *testing.T, dir string) string {
	return newKey(t, dir, "custom", "--rpm", "100000", "--in-flight", "100", "--ops", "5000000")
}

// makeJobs runs n sync jobs on pdf with c, 4 at a time: every fifth is
// extract-pages, the others rotate-pdf. It returns their ids.
func makeJobs(t *testing.T, c *client.Client, pdf []byte, n int) []string {
	t.Helper()
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				tool, params := "rotate-pdf", map[string]string{"angle": "90"}
				if i%5 == 0 {
					tool, params = "extract-pages", map[string]string{"pages": "1"}
				}
				j, _, err := c.Process(context.Background(), tool, []client.File{{Name: "in.pdf", Body: bytes.NewReader(pdf)}},
					client.ProcessOptions{Params: params})
				if err == nil && j.Status != "done" {
					err = fmt.Errorf("%s: status %s", tool, j.Status)
				}
				if err == nil {
					ids[i] = j.JobID
				}
				errs[i] = err
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return ids
}

// listAll pages through c's jobs matching opts, checking each page, and
// returns the ids in the order listed.
func listAll(t *testing.T, c *client.Client, opts client.ListOptions) []string {
	t.Helper()
	var ids []string
	var prev *client.Job
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatal("the cursor never ends")
		}
		page, err := c.ListJobs(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		want := opts.Limit
		if want == 0 {
			want = 20
		}
		if len(page.Jobs) > want || (page.NextCursor != "" && len(page.Jobs) != want) {
			t.Fatalf("page %d: %d jobs, limit %d, next %q", pages, len(page.Jobs), want, page.NextCursor)
		}
		for i := range page.Jobs {
			j := &page.Jobs[i]
			if prev != nil && j.CreatedAt.After(prev.CreatedAt) {
				t.Fatalf("%s (%v) listed after the older %s (%v)", j.JobID, j.CreatedAt, prev.JobID, prev.CreatedAt)
			}
			ids = append(ids, j.JobID)
			prev = j
		}
		if page.NextCursor == "" {
			return ids
		}
		opts.Cursor = page.NextCursor
	}
}

// sameSet fails t unless got holds each of want exactly once and nothing
// else.
func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("%s: %s listed %d times", what, id, n)
		}
		if !slices.Contains(want, id) {
			t.Errorf("%s: %s listed, not expected", what, id)
		}
	}
	for _, id := range want {
		if seen[id] == 0 {
			t.Errorf("%s: %s not listed", what, id)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
}

// TestJobList pages through 250 jobs of an account over HTTP, on SQLite
// and on PostgreSQL: no job twice or left out, newest first, filters, and
// another account's jobs never listed. (store/storetest covers jobs
// created in one millisecond and created between pages exactly; here
// four clients at once make such ties likely, not certain.)
func TestJobList(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Each variant's data directory (and schema) is its own, and no time
	// is bounded.
	t.Parallel()
	for name, dirOf := range map[string]dataDirFunc{"sqlite": sqliteDir, "postgres": postgresDir} {
		t.Run(name, func(t *testing.T) { testJobList(t, dirOf) })
	}
}

func testJobList(t *testing.T, dirOf dataDirFunc) {
	dir := dirOf(t)
	s := startServer(t, dir)
	a, b := s.client(listKey(t, dir)), s.client(listKey(t, dir))
	pdf := fourPagePDF
	ctx := context.Background()
	mine := makeJobs(t, a, pdf, 250)
	theirs := makeJobs(t, b, pdf, 10)
	// Two canceled jobs of a long tool.
	var canceled []string
	for range 2 {
		j, _, err := a.Process(ctx, "ocr-pdf", []client.File{{Name: "in.pdf", Body: bytes.NewReader(pdf)}}, client.ProcessOptions{Prefer: "respond-async"})
		if err != nil {
			t.Fatal(err)
		}
		if j, err = a.CancelJob(ctx, j.JobID); err != nil || j.Status != "canceled" {
			t.Fatalf("cancel: %+v %v", j, err)
		}
		canceled = append(canceled, j.JobID)
	}
	all := append(slices.Clone(mine), canceled...)

	got := listAll(t, a, client.ListOptions{Limit: 7})
	sameSet(t, "limit 7", got, all)
	if !slices.Contains(got[:2], canceled[0]) || !slices.Contains(got[:2], canceled[1]) {
		t.Errorf("the newest jobs, listed first, are %v; want %v", got[:2], canceled)
	}
	var byIter []string
	for j, err := range a.AllJobs(ctx, client.ListOptions{Limit: 100}) {
		if err != nil {
			t.Fatal(err)
		}
		byIter = append(byIter, j.JobID)
	}
	if !slices.Equal(byIter, got) {
		t.Errorf("pages of 100 list %d jobs in another order than pages of 7", len(byIter))
	}
	sameSet(t, "default limit", listAll(t, a, client.ListOptions{}), all)
	sameSet(t, "the other account", listAll(t, b, client.ListOptions{Limit: 3}), theirs)

	// Filters, alone and together.
	var extracted, rotated []string
	for i, id := range mine {
		if i%5 == 0 {
			extracted = append(extracted, id)
		} else {
			rotated = append(rotated, id)
		}
	}
	sameSet(t, "tool extract-pages", listAll(t, a, client.ListOptions{Tool: "extract-pages", Limit: 9}), extracted)
	sameSet(t, "done rotate-pdf", listAll(t, a, client.ListOptions{Status: "done", Tool: "rotate-pdf", Limit: 100}), rotated)
	sameSet(t, "canceled", listAll(t, a, client.ListOptions{Status: "canceled"}), canceled)
	sameSet(t, "canceled ocr-pdf", listAll(t, a, client.ListOptions{Status: "canceled", Tool: "ocr-pdf"}), canceled)
	sameSet(t, "failed", listAll(t, a, client.ListOptions{Status: "failed"}), nil)

	// A listed record is the poll's record.
	page, err := a.ListJobs(ctx, client.ListOptions{Limit: 1, Tool: "rotate-pdf"})
	if err != nil {
		t.Fatal(err)
	}
	poll, err := a.Job(ctx, page.Jobs[0].JobID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(page.Jobs[0], *poll) {
		t.Errorf("listed %+v\npolled %+v", page.Jobs[0], *poll)
	}

	for _, tc := range []struct {
		opts  client.ListOptions
		field string
	}{
		{client.ListOptions{Limit: 101}, "limit"},
		{client.ListOptions{Status: "finished"}, "status"},
		{client.ListOptions{Tool: "no-such-tool"}, "tool"},
		{client.ListOptions{Cursor: "bm90LWEtY3Vyc29y"}, "cursor"},
	} {
		_, err := a.ListJobs(ctx, tc.opts)
		e := apiError(t, err, 400, "invalid_parameter")
		if len(e.Fields) != 1 || e.Fields[0].Field != tc.field {
			t.Errorf("%+v: errors %+v, want field %s", tc.opts, e.Fields, tc.field)
		}
	}
}

// ocrScan renders a generated page of 50 lines of text as a 150 dpi PNG:
// an OCR of a few seconds.
func ocrScan(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	page := toolstest.WriteTemp(t, "scan.pdf", denseTextPDF(50))
	if out, err := exec.Command("pdftoppm", "-r", "150", "-png", "-singlefile", page, filepath.Join(dir, "scan")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "scan.png"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// finishedAtMillis reads a job's finish time at the store's precision
// (the job record shows whole seconds).
func finishedAtMillis(t *testing.T, dataDir, id string) time.Time {
	t.Helper()
	var ms int64
	if err := openDB(t, dataDir).QueryRow(`SELECT finished_at FROM jobs WHERE id = $1`, id).Scan(&ms); err != nil {
		t.Fatal(err)
	}
	return time.UnixMilli(ms)
}

// TestWaitPoll: GET /v1/jobs/{id}?wait=N on a running OCR job answers
// after N seconds while it runs, and as soon as it finishes when that is
// sooner, woken by the worker's notification rather than a timer; an
// unknown job or another account's is 404 at once; N over 60 is 400.
func TestWaitPoll(t *testing.T) {
	// Serial: it bounds the lag from a job's finish to the long poll's
	// answer (500 ms), which a parallel test's CPU would stretch.
	if testing.Short() {
		t.Skip("slow")
	}
	dir := t.TempDir()
	s := startServer(t, dir)
	c := s.client(listKey(t, dir))
	other := s.client(listKey(t, dir))
	ctx := context.Background()
	j, resp, err := c.Process(ctx, "ocr-pdf", []client.File{{Name: "scan.png", Body: bytes.NewReader(ocrScan(t))}}, client.ProcessOptions{Params: map[string]string{"lang": "eng"}})
	if err != nil || resp.StatusCode != 202 {
		t.Fatalf("ocr-pdf: %v %v", resp, err)
	}

	// While it runs: the answer comes after the wait, unfinished.
	start := time.Now()
	short, resp, err := c.GetJob(ctx, j.JobID, time.Second)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if !short.Finished() {
		if took < 900*time.Millisecond || took > 5*time.Second || resp.Header.Get("Retry-After") == "" {
			t.Errorf("?wait=1 on a running job answered %s after %v (Retry-After %q), want about 1s",
				short.Status, took, resp.Header.Get("Retry-After"))
		}
	}

	// Others wait for nothing: 404 at once.
	for _, tc := range []struct {
		c  *client.Client
		id string
	}{{other, j.JobID}, {c, "job_aaaaaaaaaaaaaaaaaaaaaaaaaa"}} {
		start := time.Now()
		_, _, err := tc.c.GetJob(ctx, tc.id, 30*time.Second)
		apiError(t, err, 404, "not_found")
		if time.Since(start) > 5*time.Second {
			t.Errorf("404 after %v", time.Since(start))
		}
	}
	_, _, err = c.GetJob(ctx, j.JobID, 61*time.Second)
	if e := apiError(t, err, 400, "invalid_parameter"); len(e.Fields) != 1 || e.Fields[0].Field != "wait" {
		t.Errorf("wait=61: %+v", e.Fields)
	}

	before := scrape(t, s.URL)[`docmill_job_wait_wakeups_total{by="notification"}`]
	sent := time.Now()
	done, _, err := c.GetJob(ctx, j.JobID, 30*time.Second)
	answered := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if done.Status != "done" || done.Result == nil {
		t.Fatalf("after ?wait=30: %+v (the OCR of one page takes seconds, not 30)", done)
	}
	finished := finishedAtMillis(t, dir, j.JobID)
	if !finished.After(sent) {
		t.Fatalf("the job finished (%v) before the long poll was sent (%v): the test shows nothing", finished, sent)
	}
	// The target is 100 ms from the finish to the answer; measured lags
	// are a few ms (the worker wakes the waiter in-process). The bound
	// adds 400 ms of slack for a loaded shared machine; a waiter that
	// slept to its deadline would be late by the rest of the 30 s, and
	// the metric shows the wake-up came from the finish, not a timer.
	lag := answered.Sub(finished)
	t.Logf("OCR ran %v after the poll was sent; answered %v after the finish", finished.Sub(sent).Round(time.Millisecond), lag.Round(time.Millisecond))
	if lag > 500*time.Millisecond {
		t.Errorf("the long poll answered %v after the job finished, want within 100 ms (+400 ms slack)", lag)
	}
	if after := scrape(t, s.URL)[`docmill_job_wait_wakeups_total{by="notification"}`]; after <= before {
		t.Errorf("no wake-up by notification during the long poll (%v -> %v)", before, after)
	}

	// A client that gives up ends its wait; the server is unharmed.
	long, _, err := c.Process(ctx, "ocr-pdf", []client.File{{Name: "scan.png", Body: bytes.NewReader(ocrScan(t))}}, client.ProcessOptions{Prefer: "respond-async"})
	if err != nil {
		t.Fatal(err)
	}
	gone, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, _, err = c.GetJob(gone, long.JobID, 30*time.Second)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a client's own timeout: %v", err)
	}
	if _, err := c.CancelJob(ctx, long.JobID); err != nil {
		t.Fatal(err)
	}
}

// TestWaitPollDrain: a long poll waiting when the server shuts down is
// answered at the drain point, 200 with the job as it stands, not cut.
func TestWaitPollDrain(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Wait-bound (the 3 s shutdown); its server, directory and page are
	// its own, and its one bound on time (5 s for a 2 s drain point) is
	// a generous deadline.
	t.Parallel()
	dir := t.TempDir()
	s := startServer(t, dir, "--shutdown-timeout", "3s", "--workers", "1", "--allow-private-urls")
	c := s.client(listKey(t, dir))
	ctx := context.Background()
	// A stalled page: tens of seconds, still running at the drain point.
	j := startBlocker(t, c)
	type reply struct {
		j   *client.Job
		err error
		at  time.Time
	}
	got := make(chan reply, 1)
	go func() {
		j, _, err := c.GetJob(ctx, j.JobID, 60*time.Second)
		got <- reply{j, err, time.Now()}
	}()
	poll.Until(t, 30*time.Second, func() (bool, string) {
		n := scrape(t, s.URL)["docmill_job_wait_requests"]
		return n == 1, fmt.Sprintf("%v requests waiting, want the poll", n)
	})
	stopped := time.Now()
	s.stop(t)
	r := <-got
	if r.err != nil {
		t.Fatalf("the long poll during shutdown: %v", r.err)
	}
	t.Logf("answered %s %v after the stop began", r.j.Status, r.at.Sub(stopped).Round(10*time.Millisecond))
	if r.j.JobID != j.JobID || r.j.Finished() {
		t.Errorf("answer %+v, want the unfinished job", r.j)
	}
	// The drain point of a 3 s shutdown is at 2 s.
	if d := r.at.Sub(stopped); d > 5*time.Second {
		t.Errorf("answered %v after the stop began, want at the drain point (2s)", d)
	}
}

// TestWaitPollHoldsNoConnection: long polls hold no database connection
// while they wait. Three times as many as the database pools have
// connections (4 on this machine, in SQLite's read pool and pgxpool's
// default) wait on a running job, and meanwhile a list and a poll are
// answered at once; had each wait held a connection, they would queue
// behind the waits.
func TestWaitPollHoldsNoConnection(t *testing.T) {
	// Serial: a list and a poll must be answered within 2 s while the
	// long polls wait, a bound a parallel test's load would stretch. Its
	// two variants, each mostly waiting, run beside each other.
	if testing.Short() {
		t.Skip("slow")
	}
	for name, dirOf := range map[string]dataDirFunc{"sqlite": sqliteDir, "postgres": postgresDir} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := dirOf(t)
			s := startServer(t, dir, "--workers", "1", "--allow-private-urls")
			c := s.client(listKey(t, dir))
			ctx := context.Background()
			long := startBlocker(t, c)
			const waiters = 12
			errs := make(chan error, waiters)
			for range waiters {
				go func() {
					j, _, err := c.GetJob(ctx, long.JobID, 4*time.Second)
					if err == nil && j.Finished() {
						err = fmt.Errorf("the stalled page's job finished within 4 s: %s", j.Status)
					}
					errs <- err
				}()
			}
			poll.Until(t, 30*time.Second, func() (bool, string) {
				n := scrape(t, s.URL)["docmill_job_wait_requests"]
				return n == waiters, fmt.Sprintf("%v requests waiting, want every poll (%d)", n, waiters)
			})
			start := time.Now()
			if _, err := c.ListJobs(ctx, client.ListOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Job(ctx, long.JobID); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("a list and a poll took %v while %d long polls waited", took, waiters)
			}
			for range waiters {
				if err := <-errs; err != nil {
					t.Error(err)
				}
			}
			if _, err := c.CancelJob(ctx, long.JobID); err != nil {
				t.Fatal(err)
			}
		})
	}
}
