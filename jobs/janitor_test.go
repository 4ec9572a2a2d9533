package jobs_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/store/sqlite"
)

// clock is a settable clock, the one fake the janitor test needs.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// newQueue is an insert-only queue on st, with River's tables, enqueuing
// the jobs st creates.
func newQueue(t *testing.T, st *sqlite.Store, bucket docmill.BlobStore, clk *clock) *jobs.Queue[*sql.Tx] {
	t.Helper()
	m, err := rivermigrate.New(riversqlite.New(st.WriteDB()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Migrate(t.Context(), rivermigrate.DirectionUp, nil); err != nil {
		t.Fatal(err)
	}
	q, err := jobs.New(riversqlite.New(st.WriteDB()), jobs.Config{
		Store: st, Blob: bucket, Registry: docmill.NewRegistry(), Now: clk.now,
	})
	if err != nil {
		t.Fatal(err)
	}
	st.SetEnqueue(q.InsertTx)
	return q
}

// startWorkers starts a queue that works the jobs of st with cfg: its
// Store and Blob are st and bucket, and what cfg leaves zero is one
// worker polling every 20 ms in a scratch directory of t's. It is the
// sole worker, st's enqueue hook, and woken at each commit of a new job;
// the caller stops it.
func startWorkers(t *testing.T, st *sqlite.Store, bucket docmill.BlobStore, cfg jobs.Config) *jobs.Queue[*sql.Tx] {
	t.Helper()
	cfg.Store, cfg.Blob, cfg.SoleWorker = st, bucket, true
	if cfg.Workers == 0 {
		cfg.Workers = 1
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = 20 * time.Millisecond
	}
	if cfg.ScratchDir == "" {
		cfg.ScratchDir = t.TempDir()
	}
	q, err := jobs.New(riversqlite.New(st.WriteDB()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	st.SetEnqueue(q.InsertTx)
	st.SetEnqueued(q.Enqueued)
	if err := q.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	return q
}

// openData opens a store and a blob directory in a new directory.
func openData(t *testing.T) (*sqlite.Store, *blob.Bucket) {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(t.Context(), dir+"/docmill.db", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	bucket, err := blob.OpenDir(dir + "/blobs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bucket.Close() })
	return st, bucket
}

// newAccount stores a Pro account, acct_1.
func newAccount(t *testing.T, st docmill.Store, clk *clock) *docmill.Account {
	t.Helper()
	acct := &docmill.Account{ID: "acct_1", Name: "a", Plan: docmill.PlanPro, CreatedAt: clk.t}
	_, key := docmill.NewAPIKey(acct.ID, "k", clk.t)
	if err := st.CreateAccount(t.Context(), acct, &key); err != nil {
		t.Fatal(err)
	}
	return acct
}

// sweepData is what a test of the sweep works on: a store and a blob
// directory, an insert-only queue with River's tables on a settable
// clock, and a Pro account.
type sweepData struct {
	st     *sqlite.Store
	bucket *blob.Bucket
	clk    *clock
	q      *jobs.Queue[*sql.Tx]
	acct   *docmill.Account
}

func newSweepData(t *testing.T) *sweepData {
	t.Helper()
	st, bucket := openData(t)
	clk := &clock{t: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	q := newQueue(t, st, bucket, clk)
	return &sweepData{st: st, bucket: bucket, clk: clk, q: q, acct: newAccount(t, st, clk)}
}

// queuedJob stores a queued rotate-pdf job, id, of d's account, created
// now, with its one input in the bucket.
func (d *sweepData) queuedJob(t *testing.T, id string) *docmill.Job {
	t.Helper()
	k := "in/" + id + "/0"
	if _, err := d.bucket.Put(t.Context(), k, strings.NewReader("%PDF-1.7"), "application/pdf"); err != nil {
		t.Fatal(err)
	}
	j := &docmill.Job{ID: id, AccountID: d.acct.ID, Tool: "rotate-pdf", Status: docmill.StatusQueued, Priority: 3,
		ResultTTL: time.Hour, CreatedAt: d.clk.t, Inputs: []docmill.InputFile{{Key: k, Filename: "a.pdf", Size: 8}}}
	if _, err := d.st.CreateJob(t.Context(), j, docmill.Admission{Period: "2026-11"}); err != nil {
		t.Fatal(err)
	}
	return j
}

func TestSweep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := newSweepData(t)
	st, bucket, clk, q := d.st, d.bucket, d.clk, d.q
	put := func(k string) {
		if _, err := bucket.Put(ctx, k, strings.NewReader("%PDF-1.7"), "application/pdf"); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(k string) bool {
		_, err := bucket.Attributes(ctx, k)
		if err != nil && !errors.Is(err, docmill.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	done := d.queuedJob(t, "job_done")
	queued := d.queuedJob(t, "job_queued")
	if _, err := st.StartJob(ctx, done.ID, clk.t); err != nil {
		t.Fatal(err)
	}
	put("out/job_done/a-rotated.pdf")
	finished := clk.t
	done.Status, done.FinishedAt = docmill.StatusDone, &finished
	done.Result = &docmill.Result{Key: "out/job_done/a-rotated.pdf", Filename: "a-rotated.pdf", ContentType: "application/pdf", Size: 8, ExpiresAt: clk.t.Add(time.Hour)}
	if ok, err := st.FinishJob(ctx, done); !ok || err != nil {
		t.Fatalf("finish: %v %v", ok, err)
	}

	// A finished job's leftover inputs go; a queued job's stay; a result
	// before its expiry stays.
	if err := q.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if exists("in/job_done/0") || !exists("in/job_queued/0") || !exists("out/job_done/a-rotated.pdf") {
		t.Fatal("first sweep removed the wrong files")
	}

	// At expires_at the result goes, and the record says so.
	clk.t = clk.t.Add(time.Hour)
	if err := q.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	j, err := st.Job(ctx, done.ID)
	if err != nil || exists("out/job_done/a-rotated.pdf") || j.Result.DeletedAt == nil || j.Status != docmill.StatusDone {
		t.Fatalf("after expiry: %+v %v", j, err)
	}

	// After 30 days the finished record goes; the unfinished one stays.
	clk.t = clk.t.Add(docmill.RecordRetention)
	if err := q.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Job(ctx, done.ID); !errors.Is(err, docmill.ErrNotFound) {
		t.Fatalf("old record kept: %v", err)
	}
	if _, err := st.Job(ctx, queued.ID); err != nil {
		t.Fatalf("queued record: %v", err)
	}
}

// TestSweepAuth: a sweep deletes the mailed tokens and sessions that have
// expired, and only those.
func TestSweepAuth(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	d := newSweepData(t)
	_, expiredTok := docmill.NewAuthToken(docmill.TokenSignup, "a@example.com", d.clk.t.Add(-docmill.AuthTokenTTL-time.Second))
	_, freshTok := docmill.NewAuthToken(docmill.TokenSignup, "b@example.com", d.clk.t)
	for _, tok := range []*docmill.AuthToken{&expiredTok, &freshTok} {
		if err := d.st.CreateAuthToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	_, expiredSess := docmill.NewSession(d.acct.ID, "192.0.2.1", "test", d.clk.t.Add(-docmill.SessionTTL-time.Second))
	_, freshSess := docmill.NewSession(d.acct.ID, "192.0.2.1", "test", d.clk.t)
	for _, sess := range []*docmill.Session{&expiredSess, &freshSess} {
		if err := d.st.CreateSession(ctx, sess); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.q.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.st.SessionByHash(ctx, expiredSess.Hash); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("expired session kept: %v", err)
	}
	if _, _, err := d.st.SessionByHash(ctx, freshSess.Hash); err != nil {
		t.Errorf("fresh session: %v", err)
	}
	// Deleted, not merely refused: a second token with the expired one's
	// hash can be stored again.
	if err := d.st.CreateAuthToken(ctx, &expiredTok); err != nil {
		t.Errorf("expired token kept: %v", err)
	}
	if _, err := d.st.UseAuthToken(ctx, freshTok.Hash, d.clk.t); err != nil {
		t.Errorf("fresh token: %v", err)
	}
}

// TestDeleteJobFiles: every file of a job goes, and the count is what the
// record said was there.
func TestDeleteJobFiles(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	_, bucket := openData(t)
	keys := []string{"in/job_x.0", "in/job_x.1", "out/job_x.a.pdf", "out/job_x.a.pdf.preview.png"}
	for _, k := range keys {
		if _, err := bucket.Put(ctx, k, strings.NewReader("x"), "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
	}
	j := &docmill.Job{ID: "job_x", Inputs: []docmill.InputFile{{Key: keys[0]}, {Key: keys[1]}},
		Result: &docmill.Result{Key: keys[2], Filename: "a.pdf"}, Meta: map[string]any{"preview_size": 1.0}}
	n, err := jobs.DeleteJobFiles(ctx, bucket, j)
	if err != nil || n != 4 {
		t.Errorf("DeleteJobFiles = %d, %v; want 4, nil", n, err)
	}
	for _, k := range keys {
		if _, err := bucket.Attributes(ctx, k); !errors.Is(err, docmill.ErrNotFound) {
			t.Errorf("%s kept: %v", k, err)
		}
	}
	now := time.Now()
	j.InputsDeletedAt, j.Result.DeletedAt = &now, &now
	if n, err := jobs.DeleteJobFiles(ctx, bucket, j); err != nil || n != 0 {
		t.Errorf("DeleteJobFiles(files gone) = %d, %v; want 0, nil", n, err)
	}
}
