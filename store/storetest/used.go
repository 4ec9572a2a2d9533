package storetest

import (
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// testRecordUsed: a processing job's used time is recorded, never lowered,
// kept through RequeueJob and the StartJob after it (a job handed back runs
// again with what is left of its budget), and ignored for a job that is not
// processing or does not exist.
func testRecordUsed(t *testing.T, s docmill.Store) {
	ctx := t.Context()
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	j := create(t, s, a)
	if err := s.RecordUsed(ctx, j.ID, time.Second); err != nil {
		t.Fatalf("RecordUsed(queued): %v", err)
	}
	if got := mustJob(t, s, j.ID).Used; got != 0 {
		t.Errorf("Used of a queued job after RecordUsed = %v, want 0", got)
	}
	if _, err := s.StartJob(ctx, j.ID, t0.Add(time.Second)); err != nil {
		t.Fatalf("StartJob: %v", err)
	}
	steps := []struct {
		record, want time.Duration
	}{
		{1500 * time.Millisecond, 1500 * time.Millisecond},
		{time.Second, 1500 * time.Millisecond}, // never lowered
		{2*time.Second + 345*time.Millisecond, 2*time.Second + 345*time.Millisecond},
	}
	for _, st := range steps {
		if err := s.RecordUsed(ctx, j.ID, st.record); err != nil {
			t.Fatalf("RecordUsed(%v): %v", st.record, err)
		}
		if got := mustJob(t, s, j.ID).Used; got != st.want {
			t.Errorf("Used after RecordUsed(%v) = %v, want %v", st.record, got, st.want)
		}
	}
	requeued, err := s.RequeueJob(ctx, j.ID)
	if err != nil {
		t.Fatalf("RequeueJob: %v", err)
	}
	started, err := s.StartJob(ctx, j.ID, t0.Add(time.Hour))
	if err != nil {
		t.Fatalf("StartJob(again): %v", err)
	}
	for what, got := range map[string]time.Duration{"RequeueJob": requeued.Used, "StartJob after it": started.Used} {
		if got != 2345*time.Millisecond {
			t.Errorf("Used after %s = %v, want 2.345s", what, got)
		}
	}
	done := finish(t, s, started, docmill.StatusDone, t0.Add(2*time.Hour))
	if err := s.RecordUsed(ctx, j.ID, time.Hour); err != nil {
		t.Fatalf("RecordUsed(done): %v", err)
	}
	same(t, "a done job after RecordUsed", mustJob(t, s, j.ID), done)
	if err := s.RecordUsed(ctx, "job_missing", time.Second); err != nil {
		t.Errorf("RecordUsed of a missing job: %v, want nil", err)
	}
}
