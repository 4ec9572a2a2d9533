package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobs"
)

// TestCancelQueued: a job canceled while queued is canceled at once and
// never runs: the worker started afterwards takes it first (it was queued
// first), deletes its input and runs only the job queued after it.
func TestCancelQueued(t *testing.T) {
	t.Parallel()
	st, bucket := openData(t)
	clk := &clock{t: time.Now()}
	api := newQueue(t, st, bucket, clk) // insert-only, as an API node
	acct := newAccount(t, st, clk)
	first := queueJob(t, st, bucket, acct, "work")
	j, err := st.Job(t.Context(), first)
	if err != nil {
		t.Fatal(err)
	}
	c, err := api.Cancel(t.Context(), j)
	if err != nil || c.Status != docmill.StatusCanceled {
		t.Fatalf("Cancel = %+v, %v; want canceled", c, err)
	}
	second := queueJob(t, st, bucket, acct, "work")
	started := make(chan string, 2)
	w := startWorkerNode(t, st, bucket, "node-w", clk, nil, startedTool("w", false, started))
	done, err := w.Wait(t.Context(), second, 20*time.Second) // a guard only
	if err != nil || done.Status != docmill.StatusDone {
		t.Fatalf("the job after: %+v, %v; want done", done, err)
	}
	if n := len(started); n != 1 {
		t.Errorf("the tool ran %d times, want once (the canceled job never)", n)
	}
	if _, err := bucket.Attributes(t.Context(), docmill.InputKey(first, 0)); err == nil {
		t.Error("the canceled job's input is still stored")
	}
	if got, _ := st.Job(t.Context(), first); got.Status != docmill.StatusCanceled {
		t.Errorf("the canceled job is %s", got.Status)
	}
}

// TestCancelRunning: Cancel stops the tool of a job running in this
// process at once (its context ends), and the job ends canceled,
// uncharged, its Wait woken.
func TestCancelRunning(t *testing.T) {
	t.Parallel()
	st, bucket := openData(t)
	clk := &clock{t: time.Now()}
	newQueue(t, st, bucket, clk) // River's tables; enqueues
	acct := newAccount(t, st, clk)
	started, stopped := make(chan struct{}), make(chan error, 1)
	blocking := &docmill.Tool{
		Slug: "work", Accepts: []string{"text/plain"}, MinFiles: 1, MaxFiles: 1,
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			close(started)
			<-ctx.Done()
			stopped <- ctx.Err()
			return nil, ctx.Err()
		},
	}
	q := startWorkerNode(t, st, bucket, "node-w", clk, nil, blocking)
	id := queueJob(t, st, bucket, acct, "work")
	<-started
	waited := make(chan *docmill.Job, 1)
	go func() {
		j, err := q.Wait(context.Background(), id, 20*time.Second) // a guard only
		if err != nil {
			t.Error(err)
		}
		waited <- j
	}()
	j, err := st.Job(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	c, err := q.Cancel(t.Context(), j)
	if err != nil || c.Status != docmill.StatusCanceled {
		t.Fatalf("Cancel = %+v, %v; want canceled", c, err)
	}
	if err := <-stopped; err == nil {
		t.Error("the tool's context ended without an error")
	}
	if got := <-waited; got == nil || got.Status != docmill.StatusCanceled {
		t.Fatalf("Wait = %+v, want the canceled job", got)
	}
	u, err := st.Usage(t.Context(), acct.ID, "2026-11")
	if err != nil {
		t.Fatal(err)
	}
	if u.Operations != 0 {
		t.Errorf("usage %+v, want nothing charged", u)
	}
}

// TestCancelDone: Cancel of a done job deletes its result now; of a job
// already canceled it changes nothing.
func TestCancelDone(t *testing.T) {
	t.Parallel()
	st, bucket := openData(t)
	clk := &clock{t: time.Now()}
	newQueue(t, st, bucket, clk)
	acct := newAccount(t, st, clk)
	started := make(chan string, 1)
	q, err := jobs.New(riversqlite.New(st.WriteDB()), jobs.Config{
		Store: st, Blob: bucket, Registry: docmill.NewRegistry(startedTool("w", false, started)), Workers: 1,
		SoleWorker: true, PollInterval: 20 * time.Millisecond, ScratchDir: t.TempDir(),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer q.Stop(context.Background())
	j := finishedJob(t, st, bucket, acct, "work", nil)
	if j.Status != docmill.StatusDone || j.Result == nil {
		t.Fatalf("job %s %+v, want done", j.Status, j.Error)
	}
	c, err := q.Cancel(t.Context(), j)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != docmill.StatusDone || c.Result == nil || c.Result.DeletedAt == nil {
		t.Fatalf("after Cancel: %s, result %+v; want done, its result deleted", c.Status, c.Result)
	}
	if _, err := bucket.Attributes(t.Context(), c.Result.Key); err == nil {
		t.Error("the result is still stored")
	}
	again, err := q.Cancel(t.Context(), c)
	if err != nil || again.Result.DeletedAt == nil || !again.Result.DeletedAt.Equal(*c.Result.DeletedAt) {
		t.Errorf("Cancel again = %+v, %v; want the job unchanged", again, err)
	}
}
