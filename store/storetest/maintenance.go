package storetest

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// maintenanceTests are the tests of docmill.JobMaintenance.
var maintenanceTests = []test{
	{"ExpiredResults", testExpiredResults},
	{"StaleInputs", testStaleInputs},
	{"DeleteJobsCreatedBefore", testDeleteJobsCreatedBefore},
	{"CountByStatus", testCountByStatus},
	{"UnfinishedJobs", testUnfinishedJobs},
}

// createAt stores a new job of a created at at.
func createAt(t *testing.T, s docmill.Store, a *docmill.Account, at time.Time) *docmill.Job {
	t.Helper()
	j := NewJob(a)
	j.CreatedAt = at
	got, err := s.CreateJob(t.Context(), j, unlimited)
	if err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	return got
}

func testExpiredResults(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	// finish gives results an hour to live.
	doneAt := func(d time.Duration) *docmill.Job {
		return finish(t, s, create(t, s, a), docmill.StatusDone, t0.Add(d))
	}
	second := doneAt(-2 * time.Hour) // expired at t0-1h
	first := doneAt(-3 * time.Hour)  // expired at t0-2h
	atNow := doneAt(-time.Hour)      // expires at t0 exactly
	doneAt(0)                        // expires at t0+1h
	gone := doneAt(-4 * time.Hour)
	if err := s.MarkResultDeleted(t.Context(), gone.ID, t0.Add(-3*time.Hour)); err != nil {
		t.Fatalf("MarkResultDeleted: %v", err)
	}
	finish(t, s, create(t, s, a), docmill.StatusFailed, t0.Add(-5*time.Hour))
	create(t, s, a)

	expired := func(limit int) ([]*docmill.Job, error) { return s.ExpiredResults(t.Context(), t0, limit) }
	if got := wantListed(t, "ExpiredResults", expired, []*docmill.Job{first, second, atNow}, "soonest expired first", 2); got != nil {
		same(t, "ExpiredResults[0]", got[0], first)
	}
}

func testStaleInputs(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	create(t, s, a)
	processing := create(t, s, a)
	if _, err := s.StartJob(t.Context(), processing.ID, t0); err != nil {
		t.Fatalf("StartJob: %v", err)
	}
	failed := finish(t, s, create(t, s, a), docmill.StatusFailed, t0.Add(time.Minute))
	done := finish(t, s, create(t, s, a), docmill.StatusDone, t0.Add(2*time.Minute))
	canceled, err := s.CancelJob(t.Context(), create(t, s, a).ID, t0.Add(3*time.Minute))
	if err != nil {
		t.Fatalf("CancelJob: %v", err)
	}
	cleaned := finish(t, s, create(t, s, a), docmill.StatusDone, t0)
	if err := s.MarkInputsDeleted(t.Context(), cleaned.ID, t0); err != nil {
		t.Fatalf("MarkInputsDeleted: %v", err)
	}

	stale := func(limit int) ([]*docmill.Job, error) { return s.StaleInputs(t.Context(), limit) }
	if got := wantListed(t, "StaleInputs", stale, []*docmill.Job{failed, done, canceled}, "earliest finished first", 1); got != nil {
		same(t, "StaleInputs[1]", got[1], done)
	}
}

// wantListed checks a listing of jobs for the janitor or the node sweep:
// list with room for all (10) gives want, in order (order says which), and
// list with limit gives the first limit of them. It returns the full
// listing when it is want, else nil.
func wantListed(t *testing.T, name string, list func(limit int) ([]*docmill.Job, error), want []*docmill.Job, order string, limit int) []*docmill.Job {
	t.Helper()
	got, err := list(10)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !slices.Equal(ids(got), ids(want)) {
		t.Errorf("%s = %v, want %v (%s)", name, ids(got), ids(want), order)
		got = nil
	}
	first, err := list(limit)
	if err != nil || !slices.Equal(ids(first), ids(want[:limit])) {
		t.Errorf("%s(limit %d) = %v, %v; want %v", name, limit, ids(first), err, ids(want[:limit]))
	}
	return got
}

func testDeleteJobsCreatedBefore(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	cutoff := t0.Add(-docmill.RecordRetention)
	oldest := finish(t, s, createAt(t, s, a, cutoff.Add(-10*24*time.Hour)), docmill.StatusDone, t0)
	old := finish(t, s, createAt(t, s, a, cutoff.Add(-time.Millisecond)), docmill.StatusFailed, t0)
	oldQueued := createAt(t, s, a, cutoff.Add(-20*24*time.Hour))
	oldProcessing := createAt(t, s, a, cutoff.Add(-20*24*time.Hour))
	if _, err := s.StartJob(t.Context(), oldProcessing.ID, t0); err != nil {
		t.Fatalf("StartJob: %v", err)
	}
	atCutoff := finish(t, s, createAt(t, s, a, cutoff), docmill.StatusDone, t0)

	got, err := s.DeleteJobsCreatedBefore(t.Context(), cutoff, 1)
	if err != nil {
		t.Fatalf("DeleteJobsCreatedBefore: %v", err)
	}
	if len(got) != 1 {
		t.Fatalf("DeleteJobsCreatedBefore(limit 1) returned %v, want [%s]", ids(got), oldest.ID)
	}
	same(t, "DeleteJobsCreatedBefore(limit 1)", got[0], oldest)
	got, err = s.DeleteJobsCreatedBefore(t.Context(), cutoff, 10)
	if err != nil || !slices.Equal(ids(got), []string{old.ID}) {
		t.Errorf("DeleteJobsCreatedBefore = %v, %v; want [%s]", ids(got), err, old.ID)
	}
	for _, j := range []*docmill.Job{oldest, old} {
		_, err := s.Job(t.Context(), j.ID)
		wantErr(t, "Job of a deleted job", err, docmill.ErrNotFound)
	}
	for _, j := range []*docmill.Job{oldQueued, oldProcessing, atCutoff} {
		mustJob(t, s, j.ID)
	}
	// Usage outlives the job records.
	if u := mustUsage(t, s, a.ID, period); u.Operations != 2 {
		t.Errorf("Usage.Operations = %d, want 2", u.Operations)
	}
}

func testCountByStatus(t *testing.T, s docmill.Store) {
	want := map[docmill.Status]int64{docmill.StatusQueued: 0, docmill.StatusProcessing: 0}
	check := func(what string) {
		t.Helper()
		got, err := s.CountByStatus(t.Context())
		if err != nil || !maps.Equal(got, want) {
			t.Errorf("CountByStatus %s = %v, %v; want %v", what, got, err, want)
		}
	}
	check("of an empty store")
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	b, _, _ := NewAccount(t, s, docmill.PlanFree)
	create(t, s, a)
	create(t, s, b)
	if _, err := s.StartJob(t.Context(), create(t, s, b).ID, t0); err != nil {
		t.Fatalf("StartJob: %v", err)
	}
	finish(t, s, create(t, s, a), docmill.StatusDone, t0)
	finish(t, s, create(t, s, a), docmill.StatusFailed, t0)
	if _, err := s.CancelJob(t.Context(), create(t, s, a).ID, t0); err != nil {
		t.Fatalf("CancelJob: %v", err)
	}
	want = map[docmill.Status]int64{docmill.StatusQueued: 2, docmill.StatusProcessing: 1}
	check("")
}

func testUnfinishedJobs(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	queued := createAt(t, s, a, t0.Add(-2*time.Hour))
	processing := createAt(t, s, a, t0.Add(-3*time.Hour))
	if _, err := s.StartJob(t.Context(), processing.ID, t0); err != nil {
		t.Fatalf("StartJob: %v", err)
	}
	createAt(t, s, a, t0) // not before t0
	finish(t, s, createAt(t, s, a, t0.Add(-4*time.Hour)), docmill.StatusDone, t0)
	if _, err := s.CancelJob(t.Context(), createAt(t, s, a, t0.Add(-5*time.Hour)).ID, t0); err != nil {
		t.Fatalf("CancelJob: %v", err)
	}

	unfinished := func(limit int) ([]*docmill.Job, error) { return s.UnfinishedJobs(t.Context(), t0, limit) }
	if got := wantListed(t, "UnfinishedJobs", unfinished, []*docmill.Job{processing, queued}, "oldest first", 1); got != nil && got[0].Status != docmill.StatusProcessing {
		t.Errorf("UnfinishedJobs[0] is %s, want processing", got[0].Status)
	}
}
