package jobs_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/store/sqlite"
)

// startedTool is a test tool, slug "work", that sends name on started
// when it runs; block ones run until their run is cancelled, others
// write a result at once.
func startedTool(name string, block bool, started chan<- string) *docmill.Tool {
	return &docmill.Tool{
		Slug: "work", Accepts: []string{"text/plain"}, MinFiles: 1, MaxFiles: 1,
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			started <- name
			if block {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			out := filepath.Join(in.WorkDir, "out.txt")
			if err := os.WriteFile(out, []byte("done by "+name), 0o600); err != nil {
				return nil, err
			}
			return &docmill.RunOutput{Path: out, Filename: "out.txt", ContentType: "text/plain"}, nil
		},
	}
}

// startWorkerNode starts a worker node (not the sole worker: it beats
// every 20 ms and takes a node silent for 1 s for dead) named id on st,
// with its own clock and metrics; it is stopped at the test's end.
func startWorkerNode(t *testing.T, st *sqlite.Store, bucket *blob.Bucket, id string, clk *clock, reg prometheus.Registerer, tools ...*docmill.Tool) *jobs.Queue[*sql.Tx] {
	t.Helper()
	q, err := jobs.New(riversqlite.New(st.WriteDB()), jobs.Config{
		Store: st, Blob: bucket, Registry: docmill.NewRegistry(tools...), Workers: 1, NodeID: id, Now: clk.now,
		Heartbeat: 20 * time.Millisecond, NodeTimeout: time.Second, PollInterval: 20 * time.Millisecond,
		ScratchDir: t.TempDir(), Registerer: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_ = q.Stop(ctx)
	})
	return q
}

// queueJob creates a job of tool on a text input for acct, charged to
// 2026-11, and returns its id.
func queueJob(t *testing.T, st docmill.Store, bucket docmill.BlobStore, acct *docmill.Account, tool string) string {
	t.Helper()
	id := docmill.NewJobID()
	key := docmill.InputKey(id, 0)
	if _, err := bucket.Put(t.Context(), key, strings.NewReader("input"), "text/plain"); err != nil {
		t.Fatal(err)
	}
	j := &docmill.Job{ID: id, AccountID: acct.ID, Tool: tool, CreatedAt: time.Now(), ResultTTL: time.Hour,
		Inputs: []docmill.InputFile{{Key: key, Filename: "in.txt", ContentType: "text/plain", Size: 5}}}
	if _, err := st.CreateJob(t.Context(), j, docmill.Admission{Period: "2026-11"}); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestDeadNodeJobsHandedBack: two worker nodes on one database. Node A
// takes a job and stops beating mid-job (its clock stands still, so its
// beats are as old as a dead node's last one); node B, a minute later by
// its clock, finds A's beat older than NodeTimeout, hands A's job back at
// once (long before River's rescue window) and finishes it. A stopping
// afterwards does not undo B's work.
func TestDeadNodeJobsHandedBack(t *testing.T) {
	t.Parallel()
	st, bucket := openData(t)
	base := time.Now()
	newQueue(t, st, bucket, &clock{t: base}) // River's tables; enqueues
	acct := newAccount(t, st, &clock{t: base})
	started := make(chan string, 4)
	regA, regB := prometheus.NewRegistry(), prometheus.NewRegistry()
	a := startWorkerNode(t, st, bucket, "node-a", &clock{t: base}, regA, startedTool("a", true, started))
	id := queueJob(t, st, bucket, acct, "work")
	if got := <-started; got != "a" {
		t.Fatalf("first run on %q, want node a", got)
	}
	b := startWorkerNode(t, st, bucket, "node-b", &clock{t: base.Add(time.Minute)}, regB, startedTool("b", false, started))
	j, err := b.Wait(t.Context(), id, 30*time.Second) // a guard only
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != docmill.StatusDone {
		t.Fatalf("job %s %+v, want done by node b", j.Status, j.Error)
	}
	if got := <-started; got != "b" {
		t.Errorf("second run on %q, want node b", got)
	}
	if n := gauge(t, regB, "docmill_jobs_handed_back_total", ""); n != 1 {
		t.Errorf("node b handed back %v jobs, want 1", n)
	}
	if n := gauge(t, regA, "docmill_jobs_handed_back_total", ""); n != 0 {
		t.Errorf("node a handed back %v jobs, want 0 (node b is alive)", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_ = a.Stop(ctx) // cancels A's run of the job B finished
	after, err := st.Job(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if after.Status != docmill.StatusDone || after.Result == nil {
		t.Errorf("after node a stopped: %s %+v, want still done", after.Status, after.Error)
	}
	u, err := st.Usage(t.Context(), acct.ID, "2026-11")
	if err != nil {
		t.Fatal(err)
	}
	if u.Operations != 1 {
		t.Errorf("usage %+v, want the job charged once", u)
	}
}

// TestLostOnLastAttempt: a job whose worker was lost on its last attempt
// is not run again when the sole worker starts: it fails as worker_lost,
// uncharged, and its inputs are deleted.
func TestLostOnLastAttempt(t *testing.T) {
	t.Parallel()
	st, bucket := openData(t)
	newQueue(t, st, bucket, &clock{t: time.Now()}) // River's tables; enqueues
	acct := newAccount(t, st, &clock{t: time.Now()})
	id := queueJob(t, st, bucket, acct, "work")
	if _, err := st.StartJob(t.Context(), id, time.Now()); err != nil {
		t.Fatal(err)
	}
	// The previous life ran it on its last attempt and died.
	res, err := st.WriteDB().ExecContext(t.Context(), `UPDATE river_job SET state = 'running', attempt = max_attempts,
attempted_at = CURRENT_TIMESTAMP WHERE json_extract(json(args), '$.job_id') = ?`, id)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("mark running: %d rows, %v", n, err)
	}
	started := make(chan string, 1)
	reg := prometheus.NewRegistry()
	q, err := jobs.New(riversqlite.New(st.WriteDB()), jobs.Config{
		Store: st, Blob: bucket, Registry: docmill.NewRegistry(startedTool("sole", false, started)), Workers: 1,
		SoleWorker: true, PollInterval: 20 * time.Millisecond, ScratchDir: t.TempDir(), Registerer: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(t.Context()); err != nil { // hands back at start
		t.Fatal(err)
	}
	defer q.Stop(context.Background())
	j, err := st.Job(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != docmill.StatusFailed || j.Error == nil || j.Error.Code != docmill.CodeWorkerLost {
		t.Fatalf("job %s %+v, want failed worker_lost", j.Status, j.Error)
	}
	if n := gauge(t, reg, "docmill_jobs_handed_back_total", ""); n != 1 {
		t.Errorf("handed back %v jobs, want 1", n)
	}
	if _, err := bucket.Attributes(t.Context(), docmill.InputKey(id, 0)); err == nil {
		t.Error("the input of a job given up is still stored")
	}
	u, err := st.Usage(t.Context(), acct.ID, "2026-11")
	if err != nil {
		t.Fatal(err)
	}
	if u.Operations != 0 {
		t.Errorf("usage %+v, want nothing charged", u)
	}
	select {
	case <-started:
		t.Error("the tool ran a job given up")
	default:
	}
}

// TestStoppedNodeJobFinishedElsewhere: a node stopped mid-job (a
// shutdown whose grace ran out) puts the job back in the queue, queued
// and uncharged, and another node on the database finishes it.
func TestStoppedNodeJobFinishedElsewhere(t *testing.T) {
	t.Parallel()
	st, bucket := openData(t)
	clk := &clock{t: time.Now()}
	newQueue(t, st, bucket, clk) // River's tables; enqueues
	acct := newAccount(t, st, clk)
	started := make(chan string, 4)
	a := startWorkerNode(t, st, bucket, "node-a", clk, nil, startedTool("a", true, started))
	id := queueJob(t, st, bucket, acct, "work")
	if got := <-started; got != "a" {
		t.Fatalf("first run on %q, want node a", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_ = a.Stop(ctx) // the grace runs out: the run is cut short
	j, err := st.Job(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != docmill.StatusQueued {
		t.Fatalf("after node a stopped: %s %+v, want queued again", j.Status, j.Error)
	}
	b := startWorkerNode(t, st, bucket, "node-b", clk, nil, startedTool("b", false, started))
	done, err := b.Wait(t.Context(), id, 30*time.Second) // a guard only
	if err != nil || done.Status != docmill.StatusDone {
		t.Fatalf("job %+v, %v; want done by node b", done, err)
	}
	if got := <-started; got != "b" {
		t.Errorf("second run on %q, want node b", got)
	}
	u, err := st.Usage(t.Context(), acct.ID, "2026-11")
	if err != nil {
		t.Fatal(err)
	}
	if u.Operations != 1 {
		t.Errorf("usage %+v, want the job charged once", u)
	}
}
