package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// admissionTests are the tests of docmill.Admissions.
var admissionTests = []test{
	{"AdmissionInFlight", testAdmissionInFlight},
	{"AdmissionQuota", testAdmissionQuota},
	{"AdmissionOperations", testAdmissionOperations},
	{"ChargedPeriod", testChargedPeriod},
	{"ConcurrentInFlight", testConcurrentInFlight},
	{"ConcurrentQuota", testConcurrentQuota},
	{"Idempotency", testIdempotency},
	{"ConcurrentIdempotency", testConcurrentIdempotency},
	{"IdempotencyLookup", testIdempotencyLookup},
	{"Usage", testUsage},
	{"Waited", testWaited},
}

func testAdmissionInFlight(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	b, _, _ := NewAccount(t, s, docmill.PlanFree)
	adm := docmill.Admission{Period: period, MaxInFlight: 2}
	var jobs []*docmill.Job
	for i := range 2 {
		j, err := s.CreateJob(t.Context(), NewJob(a), adm)
		if err != nil {
			t.Fatalf("CreateJob #%d: %v", i, err)
		}
		jobs = append(jobs, j)
	}
	if _, err := s.StartJob(t.Context(), jobs[0].ID, t0); err != nil {
		t.Fatalf("StartJob: %v", err)
	}
	refused := NewJob(a)
	_, err := s.CreateJob(t.Context(), refused, adm)
	wantErr(t, "CreateJob over MaxInFlight", err, docmill.ErrTooManyInFlight)
	_, err = s.Job(t.Context(), refused.ID)
	wantErr(t, "Job of a refused job", err, docmill.ErrNotFound)

	// Another account has its own jobs in flight.
	if _, err := s.CreateJob(t.Context(), NewJob(b), adm); err != nil {
		t.Errorf("CreateJob of another account: %v", err)
	}
	// A finished job frees its place, whatever its status.
	finish(t, s, jobs[0], docmill.StatusFailed, t0.Add(time.Minute))
	if _, err := s.CreateJob(t.Context(), NewJob(a), adm); err != nil {
		t.Errorf("CreateJob after a job finished: %v", err)
	}
	// MaxInFlight 0 means no limit.
	if _, err := s.CreateJob(t.Context(), NewJob(a), unlimited); err != nil {
		t.Errorf("CreateJob without limits: %v", err)
	}
	if u := mustUsage(t, s, a.ID, period); u.InFlight != 3 {
		t.Errorf("Usage.InFlight = %d, want 3", u.InFlight)
	}
}

func testAdmissionQuota(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	adm := docmill.Admission{Period: period, MaxOperations: 3}
	try := func() (*docmill.Job, error) { return s.CreateJob(t.Context(), NewJob(a), adm) }
	var jobs []*docmill.Job
	for i := range 3 {
		j, err := try()
		if err != nil {
			t.Fatalf("CreateJob #%d: %v", i, err)
		}
		jobs = append(jobs, j)
	}
	// Three in flight use up the quota before any is done.
	_, err := try()
	wantErr(t, "CreateJob with the quota held by jobs in flight", err, docmill.ErrQuotaExceeded)

	// Failed and canceled jobs are not charged: their places come back.
	finish(t, s, jobs[0], docmill.StatusDone, t0.Add(time.Minute))
	finish(t, s, jobs[1], docmill.StatusFailed, t0.Add(time.Minute))
	if _, err := s.CancelJob(t.Context(), jobs[2].ID, t0.Add(time.Minute)); err != nil {
		t.Fatalf("CancelJob: %v", err)
	}
	if u := mustUsage(t, s, a.ID, period); u.Operations != 1 || u.InFlight != 0 {
		t.Fatalf("Usage = %+v, want 1 operation, 0 in flight", u)
	}
	j, err := try()
	if err != nil {
		t.Fatalf("CreateJob after failed and canceled jobs: %v", err)
	}
	finish(t, s, j, docmill.StatusDone, t0.Add(2*time.Minute))
	if _, err := try(); err != nil {
		t.Fatalf("CreateJob for the last operation: %v", err)
	}
	_, err = try()
	wantErr(t, "CreateJob with 2 done and 1 in flight", err, docmill.ErrQuotaExceeded)
	// Another period has its own quota.
	if _, err := s.CreateJob(t.Context(), NewJob(a), docmill.Admission{Period: "2026-12", MaxOperations: 3, MaxInFlight: 0}); err != nil {
		t.Errorf("CreateJob in the next period: %v", err)
	}
}

func testChargedPeriod(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	j, err := s.CreateJob(t.Context(), NewJob(a), docmill.Admission{Period: "2026-10"})
	if err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	// Finished in the next month, it is charged to the month it was created.
	finish(t, s, j, docmill.StatusDone, time.Date(2026, 11, 1, 0, 0, 1, 0, time.UTC))
	if u := mustUsage(t, s, a.ID, "2026-10"); u.Operations != 1 || u.Period != "2026-10" {
		t.Errorf("Usage(2026-10) = %+v, want 1 operation", u)
	}
	if u := mustUsage(t, s, a.ID, "2026-11"); u.Operations != 0 {
		t.Errorf("Usage(2026-11) = %+v, want 0 operations", u)
	}
}

// createConcurrently runs n CreateJob calls of account a at once and
// returns the jobs admitted and the errors of the others.
func createConcurrently(t *testing.T, s docmill.Store, a *docmill.Account, n int, adm docmill.Admission, prepare func(*docmill.Job)) ([]*docmill.Job, []error) {
	t.Helper()
	var (
		mu    sync.Mutex
		jobs  []*docmill.Job
		errs  []error
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	for range n {
		wg.Go(func() {
			j := NewJob(a)
			if prepare != nil {
				prepare(j)
			}
			<-start
			got, err := s.CreateJob(t.Context(), j, adm)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			jobs = append(jobs, got)
		})
	}
	close(start)
	wg.Wait()
	return jobs, errs
}

func testConcurrentInFlight(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	jobs, errs := createConcurrently(t, s, a, 20, docmill.Admission{Period: period, MaxInFlight: 5}, nil)
	wantAdmitted(t, jobs, errs, 5, 15, docmill.ErrTooManyInFlight)
	if u := mustUsage(t, s, a.ID, period); u.InFlight != 5 {
		t.Errorf("Usage.InFlight = %d, want 5", u.InFlight)
	}
}

func testConcurrentQuota(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	finish(t, s, create(t, s, a), docmill.StatusDone, t0)
	jobs, errs := createConcurrently(t, s, a, 20, docmill.Admission{Period: period, MaxOperations: 8}, nil)
	wantAdmitted(t, jobs, errs, 7, 13, docmill.ErrQuotaExceeded)
}

// wantAdmitted checks the outcome of createConcurrently: admitted jobs
// created and refused attempts refused, each with refusal.
func wantAdmitted(t *testing.T, jobs []*docmill.Job, errs []error, admitted, refused int, refusal error) {
	t.Helper()
	if len(jobs) != admitted || len(errs) != refused {
		t.Errorf("admitted %d jobs and refused %d, want %d and %d", len(jobs), len(errs), admitted, refused)
	}
	for _, err := range errs {
		if !errors.Is(err, refusal) {
			t.Errorf("CreateJob: %v, want %v", err, refusal)
		}
	}
}

func testIdempotency(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	b, _, _ := NewAccount(t, s, docmill.PlanFree)
	adm := docmill.Admission{Period: period, MaxInFlight: 1, MaxOperations: 1}
	keyed := func(acc *docmill.Account, hash string) *docmill.Job {
		j := NewJob(acc)
		j.IdempotencyKey, j.RequestHash = "idem", hash
		return j
	}
	first, err := s.CreateJob(t.Context(), keyed(a, "h1"), adm)
	if err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	// A replay returns the job that stands, even with the limits used up
	// by that very job.
	replay, err := s.CreateJob(t.Context(), keyed(a, "h1"), adm)
	if err != nil {
		t.Fatalf("CreateJob(replay): %v", err)
	}
	same(t, "replay", replay, first)
	_, err = s.CreateJob(t.Context(), keyed(a, "h2"), adm)
	wantErr(t, "CreateJob(same key, other request)", err, docmill.ErrIdempotencyConflict)
	if u := mustUsage(t, s, a.ID, period); u.InFlight != 1 {
		t.Errorf("Usage.InFlight = %d, want 1", u.InFlight)
	}
	// Keys are per account.
	other, err := s.CreateJob(t.Context(), keyed(b, "h2"), adm)
	if err != nil || other.ID == first.ID {
		t.Errorf("CreateJob(other account, same key) = %v, %v; want a new job", other, err)
	}
	// A finished job is replayed as it now stands.
	done := finish(t, s, first, docmill.StatusDone, t0.Add(time.Minute))
	replay, err = s.CreateJob(t.Context(), keyed(a, "h1"), adm)
	if err != nil {
		t.Fatalf("CreateJob(replay of a done job): %v", err)
	}
	same(t, "replay of a done job", replay, done)
	// Jobs without a key are never replays.
	for range 2 {
		if _, err := s.CreateJob(t.Context(), NewJob(b), unlimited); err != nil {
			t.Errorf("CreateJob without key: %v", err)
		}
	}
}

// testIdempotencyLookup: JobByIdempotencyKey finds a key's job as it now
// stands, per account, whatever the account's limits, and nothing for an
// unknown or empty key.
func testIdempotencyLookup(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	b, _, _ := NewAccount(t, s, docmill.PlanFree)
	_, err := s.JobByIdempotencyKey(t.Context(), a.ID, "idem")
	wantErr(t, "JobByIdempotencyKey(unused key)", err, docmill.ErrNotFound)

	j := NewJob(a)
	j.IdempotencyKey, j.RequestHash = "idem", "h1"
	first, err := s.CreateJob(t.Context(), j, docmill.Admission{Period: period, MaxInFlight: 1, MaxOperations: 1})
	if err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	if _, err := s.CreateJob(t.Context(), NewJob(a), unlimited); err != nil { // without a key
		t.Fatalf("CreateJob: %v", err)
	}
	got, err := s.JobByIdempotencyKey(t.Context(), a.ID, "idem")
	if err != nil {
		t.Fatalf("JobByIdempotencyKey: %v", err)
	}
	same(t, "JobByIdempotencyKey", got, first)

	tests := []struct {
		name, account, key string
	}{
		{"other account", b.ID, "idem"},
		{"other key", a.ID, "idem2"},
		{"key in another case", a.ID, "IDEM"},
		{"empty key", a.ID, ""},
		{"unknown account", "acct_none", "idem"},
	}
	for _, tc := range tests {
		_, err := s.JobByIdempotencyKey(t.Context(), tc.account, tc.key)
		wantErr(t, "JobByIdempotencyKey("+tc.name+")", err, docmill.ErrNotFound)
	}

	// The job is found as it now stands.
	done := finish(t, s, first, docmill.StatusDone, t0.Add(time.Minute))
	got, err = s.JobByIdempotencyKey(t.Context(), a.ID, "idem")
	if err != nil {
		t.Fatalf("JobByIdempotencyKey(done): %v", err)
	}
	same(t, "JobByIdempotencyKey(done)", got, done)
}

func testConcurrentIdempotency(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	jobs, errs := createConcurrently(t, s, a, 10, unlimited, func(j *docmill.Job) {
		j.IdempotencyKey, j.RequestHash = "idem", "h"
	})
	if len(errs) > 0 {
		t.Fatalf("CreateJob: %v", errs)
	}
	for _, j := range jobs {
		if j.ID != jobs[0].ID {
			t.Errorf("replays returned jobs %s and %s", jobs[0].ID, j.ID)
		}
	}
	if u := mustUsage(t, s, a.ID, period); u.InFlight != 1 {
		t.Errorf("Usage.InFlight = %d, want 1", u.InFlight)
	}
}

// testAdmissionOperations: a job of several operations (a pipeline, one a
// step) is admitted only if all of them fit in what is left of the
// quota, holds them while in flight, and is charged them when done, and
// nothing when it fails.
func testAdmissionOperations(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	adm := docmill.Admission{Period: period, MaxOperations: 7}
	job := func(ops int) *docmill.Job {
		j := NewJob(a)
		j.Tool, j.Operations = docmill.PipelineSlug, ops
		return j
	}
	five, err := s.CreateJob(t.Context(), job(5), adm)
	if err != nil {
		t.Fatalf("CreateJob of 5 operations: %v", err)
	}
	if five.Operations != 5 || five.Charge() != 5 {
		t.Errorf("stored Operations = %d, want 5", five.Operations)
	}
	_, err = s.CreateJob(t.Context(), job(3), adm)
	wantErr(t, "CreateJob of 3 operations with 5 of 7 held", err, docmill.ErrQuotaExceeded)
	two, err := s.CreateJob(t.Context(), job(2), adm)
	if err != nil {
		t.Fatalf("CreateJob of 2 operations with 5 of 7 held: %v", err)
	}
	finish(t, s, five, docmill.StatusDone, t0.Add(time.Minute))
	finish(t, s, two, docmill.StatusFailed, t0.Add(time.Minute))
	if u := mustUsage(t, s, a.ID, period); u.Operations != 5 || u.InFlight != 0 {
		t.Fatalf("Usage = %+v, want 5 operations charged, 0 in flight", u)
	}
	_, err = s.CreateJob(t.Context(), job(3), adm)
	wantErr(t, "CreateJob of 3 operations with 5 of 7 used", err, docmill.ErrQuotaExceeded)
	if _, err := s.CreateJob(t.Context(), NewJob(a), adm); err != nil {
		t.Fatalf("CreateJob of 1 operation with 5 of 7 used: %v", err)
	}
}

func testUsage(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	if u, err := s.Usage(t.Context(), a.ID, period); err != nil || u != (docmill.Usage{Period: period}) {
		t.Errorf("Usage of a new account = %+v, %v; want zero", u, err)
	}
	finish(t, s, create(t, s, a), docmill.StatusDone, t0)
	finish(t, s, create(t, s, a), docmill.StatusDone, t0)
	create(t, s, a)
	if _, err := s.StartJob(t.Context(), create(t, s, a).ID, t0); err != nil {
		t.Fatalf("StartJob: %v", err)
	}
	want := docmill.Usage{Period: period, Operations: 2, InFlight: 2}
	if u := mustUsage(t, s, a.ID, period); u != want {
		t.Errorf("Usage = %+v, want %+v", u, want)
	}
	want = docmill.Usage{Period: "2026-12", Operations: 0, InFlight: 2}
	if u := mustUsage(t, s, a.ID, "2026-12"); u != want {
		t.Errorf("Usage(next period) = %+v, want %+v", u, want)
	}
}

// testWaited: a Waited CreateJob (whose commit may not wait for the disk)
// is held to the same limits and makes the same job; Durable leaves the
// job as it is, and an unknown id is no error.
func testWaited(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	adm := docmill.Admission{Period: period, MaxInFlight: 1, Waited: true}
	j, err := s.CreateJob(t.Context(), NewJob(a), adm)
	if err != nil {
		t.Fatalf("Waited CreateJob: %v", err)
	}
	_, err = s.CreateJob(t.Context(), NewJob(a), adm)
	wantErr(t, "Waited CreateJob over MaxInFlight", err, docmill.ErrTooManyInFlight)
	if err := s.Durable(t.Context(), j.ID); err != nil {
		t.Fatalf("Durable: %v", err)
	}
	got, err := s.Job(t.Context(), j.ID)
	if err != nil || got.Status != docmill.StatusQueued || !got.CreatedAt.Equal(j.CreatedAt) || got.Used != 0 {
		t.Errorf("job after Durable = %+v, %v; want it as created", got, err)
	}
	if err := s.Durable(t.Context(), "job_unknown"); err != nil {
		t.Errorf("Durable of an unknown job: %v", err)
	}
}
