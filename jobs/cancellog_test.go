package jobs_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/internal/testserver"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/store/sqlite"
)

// TestCancelLoggedAtInfo: a job its owner cancels while its tool runs is
// logged at INFO as canceled, and no ERROR "job failed ... context
// canceled" is written; the job stays canceled.
func TestCancelLoggedAtInfo(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st, bucket := openData(t)
	var logs testserver.Buffer
	j, _ := startHeldJob(t, st, bucket, slog.New(slog.NewJSONHandler(&logs, nil)),
		func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	if _, err := st.CancelJob(ctx, j.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	poll.Until(t, 10*time.Second, func() (bool, string) {
		lines = lines[:0]
		finished := false
		for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil {
				lines = append(lines, m)
				finished = finished || m["msg"] == "job finished"
			}
		}
		return finished, "no job finished line:\n" + logs.String()
	})
	canceledAtInfo := false
	for _, m := range lines {
		if m["level"] == "ERROR" {
			t.Errorf("an ERROR line for a user's cancel: %v", m)
		}
		canceledAtInfo = canceledAtInfo || (m["level"] == "INFO" && strings.Contains(m["msg"].(string), "canceled") && m["job_id"] == j.ID)
	}
	if !canceledAtInfo {
		t.Errorf("no INFO line says the job was canceled:\n%s", logs.String())
	}
	if got, err := st.Job(ctx, j.ID); err != nil || got.Status != docmill.StatusCanceled {
		t.Errorf("the job: %+v %v", got, err)
	}
}

// startHeldJob starts a sole-worker queue on st and bucket whose one tool,
// "held", runs run, submits one job of a new account with a stored input,
// and returns the job and its input's key once run has been called.
// logger may be nil (the default logger).
func startHeldJob(t *testing.T, st *sqlite.Store, bucket *blob.Bucket, logger *slog.Logger,
	run func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error)) (*docmill.Job, string) {
	t.Helper()
	ctx := t.Context()
	newQueue(t, st, bucket, &clock{t: time.Now()}) // River's tables
	started := make(chan struct{})
	tool := &docmill.Tool{
		Slug: "held", Accepts: []string{"application/pdf"}, MinFiles: 1, MaxFiles: 1,
		Timeout: time.Minute, Rates: docmill.WorkRates{Base: 30 * time.Second},
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			close(started)
			return run(ctx, in)
		},
	}
	q, err := jobs.New(riversqlite.New(st.WriteDB()), jobs.Config{
		Store: st, Blob: bucket, Registry: docmill.NewRegistry(tool), Logger: logger,
		Workers: 1, PollInterval: 50 * time.Millisecond, ScratchDir: t.TempDir(), SoleWorker: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	st.SetEnqueue(q.InsertTx)
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = q.Stop(context.Background()) })
	acct := newAccount(t, st, &clock{t: time.Now()})
	in := "in/job_held.0"
	if _, err := bucket.Put(ctx, in, strings.NewReader("%PDF-1.7"), "application/pdf"); err != nil {
		t.Fatal(err)
	}
	j := &docmill.Job{ID: "job_held", AccountID: acct.ID, Tool: "held", Priority: 3, ResultTTL: time.Hour, CreatedAt: time.Now(),
		Inputs: []docmill.InputFile{{Key: in, Filename: "a.pdf", ContentType: "application/pdf", Size: 8}}}
	if _, err := st.CreateJob(ctx, j, docmill.Admission{Period: time.Now().Format("2006-01")}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the job did not start")
	}
	return j, in
}
