package jobs_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/store/postgres/pgtest"
	"github.com/docmill/docmill/store/sqlite"
)

// laneBench is a store with River's tables and tools that block until the
// test lets them go, recording which account's job started when.
type laneBench struct {
	st     docmill.Store
	sqlite *sqlite.Store // nil on PostgreSQL
	reg    *docmill.Registry
	// start starts a queue working lanes on st (worker).
	start   func(t *testing.T, lanes map[docmill.Lane]int)
	mu      sync.Mutex
	started []string // the "acct" param of each run, in order
	release chan struct{}
}

// blockingTool is a tool of lane that runs until b.release gets a value
// (or is closed) or its context ends.
func (b *laneBench) blockingTool(slug string, lane docmill.Lane) *docmill.Tool {
	return &docmill.Tool{Slug: slug, Lane: lane, MaxFiles: 0, Engine: "test", Timeout: time.Minute,
		Params: []docmill.Param{{Name: "acct", Type: docmill.TypeString}},
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			b.mu.Lock()
			b.started = append(b.started, in.Params.String("acct"))
			b.mu.Unlock()
			select {
			case <-b.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return nil, docmill.Errorf(docmill.CodeInvalidDocument, "done")
		}}
}

func newLaneBench(t *testing.T) *laneBench {
	t.Helper()
	b := &laneBench{release: make(chan struct{})}
	st, bucket := openData(t)
	newQueue(t, st, bucket, &clock{t: time.Now()}) // River's tables
	b.st, b.sqlite = st, st
	b.reg = docmill.NewRegistry(b.blockingTool("quick", docmill.LanePDF), b.blockingTool("doc", docmill.LaneOffice))
	b.start = func(t *testing.T, lanes map[docmill.Lane]int) {
		q, err := jobs.New(riversqlite.New(st.WriteDB()), jobs.Config{
			Store: st, Registry: b.reg, Lanes: lanes, SoleWorker: true,
			PollInterval: 20 * time.Millisecond, ScratchDir: t.TempDir(),
		})
		if err != nil {
			t.Fatal(err)
		}
		st.SetEnqueue(q.InsertTx)
		st.SetEnqueued(q.Enqueued)
		b.run(t, q)
	}
	return b
}

// run starts q and stops it, with every blocked run let go, at the end.
func (b *laneBench) run(t *testing.T, q interface {
	Start(context.Context) error
	Stop(context.Context) error
}) {
	t.Helper()
	if err := q.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		close(b.release)
		q.Stop(context.Background())
	})
}

// worker starts a queue working lanes on b's store.
func (b *laneBench) worker(t *testing.T, lanes map[docmill.Lane]int) {
	t.Helper()
	b.start(t, lanes)
}

func (b *laneBench) account(t *testing.T, id string) *docmill.Account {
	t.Helper()
	a := &docmill.Account{ID: id, Name: id, Plan: docmill.PlanPro, CreatedAt: time.Now()}
	_, key := docmill.NewAPIKey(a.ID, "k", time.Now())
	if err := b.st.CreateAccount(t.Context(), a, &key); err != nil {
		t.Fatal(err)
	}
	return a
}

// submit creates a job of tool for a at priority.
func (b *laneBench) submit(t *testing.T, a *docmill.Account, tool string, priority int) *docmill.Job {
	t.Helper()
	j := &docmill.Job{ID: docmill.NewJobID(), AccountID: a.ID, Tool: tool, Priority: priority,
		Params: docmill.Params{"acct": a.ID}, CreatedAt: time.Now()}
	j, err := b.st.CreateJob(t.Context(), j, docmill.Admission{Period: "2026-11"})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// waitStarted waits until n runs have started and returns their accounts.
func (b *laneBench) waitStarted(t *testing.T, n int) []string {
	t.Helper()
	var got []string
	poll.Until(t, 20*time.Second, func() (bool, string) {
		b.mu.Lock()
		got = append([]string(nil), b.started...)
		b.mu.Unlock()
		return len(got) >= n, fmt.Sprintf("runs started %v, want %d", got, n)
	})
	return got
}

func (b *laneBench) status(t *testing.T, id string) docmill.Status {
	t.Helper()
	j, err := b.st.Job(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return j.Status
}

// TestLanesWorkOnlyTheirJobs: a node that serves only the office lane
// works the office job and leaves the pdf job queued; a job queued in
// River's default queue before lanes existed is still worked there.
func TestLanesWorkOnlyTheirJobs(t *testing.T) {
	t.Parallel()
	b := newLaneBench(t)
	a := b.account(t, "acct_a")
	// A job queued by an older version: River's default queue, no account.
	b.sqlite.SetEnqueue(nil)
	legacy := b.submit(t, a, "quick", 2)
	old, err := river.NewClient[*sql.Tx](riversqlite.New(b.sqlite.WriteDB()), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.Insert(t.Context(), jobs.ProcessArgs{JobID: legacy.ID, Tool: "quick"}, nil); err != nil {
		t.Fatal(err)
	}
	b.worker(t, map[docmill.Lane]int{docmill.LaneOffice: 1})
	pdf := b.submit(t, a, "quick", 2)
	office := b.submit(t, a, "doc", 2)
	b.waitStarted(t, 1)
	b.release <- struct{}{}
	b.waitStarted(t, 2)
	b.release <- struct{}{}
	// A later office job runs once those two have ended: the node has
	// fetched again since, with the pdf job queued ahead of it all along.
	b.submit(t, a, "doc", 2)
	b.waitStarted(t, 3)
	if s := b.status(t, office.ID); s != docmill.StatusFailed {
		t.Errorf("office job %s, want it worked (failed by the test tool)", s)
	}
	if s := b.status(t, legacy.ID); s != docmill.StatusFailed {
		t.Errorf("legacy default-queue job %s, want it worked", s)
	}
	if s := b.status(t, pdf.ID); s != docmill.StatusQueued {
		t.Errorf("pdf job %s on an office-only node, want it queued", s)
	}
}

// TestFairShareInLane: account A (the highest priority) fills both
// workers of the pdf lane and has more queued; B's job, queued after
// A's, takes the first worker that frees, ahead of A's queued jobs: A
// holds at most one of two workers while B waits.
func TestFairShareInLane(t *testing.T) {
	t.Parallel()
	fairShareCase(t, newLaneBench(t))
}

// TestFairShareInLanePostgres: the same on PostgreSQL, where River's
// args are jsonb.
func TestFairShareInLanePostgres(t *testing.T) {
	t.Parallel()
	fairShareCase(t, newPostgresLaneBench(t))
}

func fairShareCase(t *testing.T, b *laneBench) {
	a, c := b.account(t, "acct_a"), b.account(t, "acct_b")
	b.worker(t, map[docmill.Lane]int{docmill.LanePDF: 2})
	var as []*docmill.Job
	for range 4 {
		as = append(as, b.submit(t, a, "quick", 1))
	}
	if got := b.waitStarted(t, 2); got[0] != a.ID || got[1] != a.ID {
		t.Fatalf("runs %v: want A's two first (nobody else waits)", got)
	}
	// B's job waits in River's queue once submit returns: the store
	// enqueues it in the job's own transaction.
	bj := b.submit(t, c, "quick", 4)
	b.release <- struct{}{} // one of A's ends
	got := b.waitStarted(t, 3)
	if got[2] != c.ID {
		t.Fatalf("runs %v: want B's third, while A's two others wait", got)
	}
	queued := 0
	for _, j := range as {
		if b.status(t, j.ID) == docmill.StatusQueued {
			queued++
		}
	}
	if queued != 2 || b.status(t, bj.ID) != docmill.StatusProcessing {
		t.Fatalf("A has %d jobs queued (want 2) while B's is %s", queued, b.status(t, bj.ID))
	}
}

// newPostgresLaneBench is newLaneBench on a PostgreSQL schema of its own.
func newPostgresLaneBench(t *testing.T) *laneBench {
	t.Helper()
	b := &laneBench{release: make(chan struct{})}
	st := openPostgres(t, pgtest.SchemaURL(t))
	m, err := rivermigrate.New(riverpgxv5.New(st.Pool()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Migrate(t.Context(), rivermigrate.DirectionUp, nil); err != nil {
		t.Fatal(err)
	}
	b.st = st
	b.reg = docmill.NewRegistry(b.blockingTool("quick", docmill.LanePDF), b.blockingTool("doc", docmill.LaneOffice))
	b.start = func(t *testing.T, lanes map[docmill.Lane]int) {
		q, err := jobs.New(riverpgxv5.New(st.Pool()), jobs.Config{
			Store: st, Registry: b.reg, Lanes: lanes, SoleWorker: true, ScratchDir: t.TempDir(),
		})
		if err != nil {
			t.Fatal(err)
		}
		st.SetEnqueue(q.InsertTx)
		b.run(t, q)
	}
	return b
}

// TestFairShareOneWorker: in a lane with one worker the share is that
// worker, so turns alternate: after a job of A (the highest priority),
// B's waiting job goes before A's next.
func TestFairShareOneWorker(t *testing.T) {
	t.Parallel()
	b := newLaneBench(t)
	a, c := b.account(t, "acct_a"), b.account(t, "acct_b")
	b.worker(t, map[docmill.Lane]int{docmill.LaneOffice: 1})
	for range 3 {
		b.submit(t, a, "doc", 1)
	}
	b.waitStarted(t, 1)
	b.submit(t, c, "doc", 4) // waits in River's queue once this returns
	b.release <- struct{}{}
	if got := b.waitStarted(t, 2); got[1] != c.ID {
		t.Fatalf("runs %v: want B's second, between A's", got)
	}
	b.release <- struct{}{}
	if got := b.waitStarted(t, 3); got[2] != a.ID {
		t.Fatalf("runs %v: want A's again once B's ended", got)
	}
}
