package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobs"
)

// TestEnqueuedWakesWorkers: on SQLite, which cannot notify workers, a job
// created on a server that works jobs is picked up because the store's
// commit wakes them (Store.SetEnqueued with Queue.Enqueued), not because
// they poll: here they poll once an hour, so without the wake-up (a River
// upgrade that stops handing our pilot its NotifyNonTxJobInsert, say) the
// job would sit queued and Wait would give up after 20 s.
func TestEnqueuedWakesWorkers(t *testing.T) {
	t.Parallel()
	st, bucket := openData(t)
	clk := &clock{t: time.Now()}
	newQueue(t, st, bucket, clk) // River's tables
	q := startWorkers(t, st, bucket, jobs.Config{
		Workers: 4,
		// A tool of the render lane whose run fails at once; jobs of
		// no-such-tool go to River's default queue.
		Registry: docmill.NewRegistry(&docmill.Tool{Slug: "render-tool", Lane: docmill.LaneRender, Engine: "test",
			Run: func(context.Context, *docmill.RunInput) (*docmill.RunOutput, error) {
				return nil, docmill.Errorf(docmill.CodeInvalidDocument, "no")
			}}),
		PollInterval: time.Hour,
	})
	defer q.Stop(context.Background())
	acct := newAccount(t, st, clk)

	// The first job may be found by the workers' fetch at start; the
	// second comes when they are idle, with nothing left to trigger a
	// fetch but its commit. (River fetches again when a job ends only if
	// its last fetch filled every slot: never here, with 4 slots.)
	for i, tool := range []string{"no-such-tool", "render-tool", "render-tool"} {
		j := &docmill.Job{AccountID: acct.ID, Tool: tool, CreatedAt: time.Now()}
		created, err := st.CreateJob(t.Context(), j, docmill.Admission{Period: "2026-11"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := q.Wait(t.Context(), created.ID, 20*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		// A worker fails the job (unknown_tool, or the tool's refusal),
		// which proves it ran.
		if got.Status != docmill.StatusFailed || got.StartedAt == nil {
			t.Fatalf("job %d: %s, started %v; want it worked (failed, unknown tool) within 20 s", i, got.Status, got.StartedAt)
		}
		t.Logf("job %d picked up %s after its creation", i, got.StartedAt.Sub(got.CreatedAt))
	}
}
