package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// jobTests are the tests of docmill.Jobs.
var jobTests = []test{
	{"JobRoundTrip", testJobRoundTrip},
	{"JobEmptyValues", testJobEmptyValues},
	{"JobFailed", testJobFailed},
	{"JobNotFound", testJobNotFound},
	{"Export", testExport},
	{"StartJob", testStartJob},
	{"RequeueJob", testRequeueJob},
	{"RecordUsed", testRecordUsed},
	{"CancelJob", testCancelJob},
	{"FinishAfterCancel", testFinishAfterCancel},
	{"ListJobs", testListJobs},
	{"ListJobsFilters", testListJobsFilters},
	{"ListJobsWhilePaging", testListJobsWhilePaging},
}

func testJobRoundTrip(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanPro)
	in := NewJob(a)
	in.Params = docmill.Params{"preset": "extreme", "quality": "70", "pages": "1-3,5"}
	in.Inputs = []docmill.InputFile{
		{Key: "in/a", Filename: "a b.pdf", ContentType: "application/pdf", Size: 2931102},
		{Key: "in/b", Filename: "é.pdf", ContentType: "application/pdf", Size: 1},
	}
	in.Priority = 2
	in.ResultTTL = 90 * time.Minute
	in.IdempotencyKey, in.RequestHash = "idem-1", "hash-1"
	in.CreatedAt = time.Date(2026, 11, 22, 12, 0, 0, 123_456_789, time.FixedZone("X", -5*3600))
	in.Meta = map[string]any{"note": "x"}
	in.Preview = true
	in.Status = docmill.StatusDone // ignored: a new job is queued

	got, err := s.CreateJob(t.Context(), in, docmill.Admission{Period: period, MaxOperations: 10, MaxInFlight: 2})
	if err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	want := *in
	want.Status = docmill.StatusQueued
	want.CreatedAt = ms(in.CreatedAt)
	same(t, "CreateJob", got, &want)
	same(t, "Job after CreateJob", mustJob(t, s, in.ID), &want)

	started := t0.Add(time.Second + 999*time.Microsecond)
	got, err = s.StartJob(t.Context(), in.ID, started)
	if err != nil {
		t.Fatalf("StartJob: %v", err)
	}
	want.Status = docmill.StatusProcessing
	want.StartedAt = ptr(ms(started))
	same(t, "StartJob", got, &want)

	finished := t0.Add(2*time.Second + 1500*time.Microsecond)
	f := want
	f.Status = docmill.StatusDone
	f.FinishedAt = &finished
	f.Result = &docmill.Result{Key: "out/x", Filename: "report-compressed.pdf", ContentType: "application/pdf",
		Size: 482113, ExpiresAt: finished.Add(f.ResultTTL)}
	// Meta is JSON: numbers come back as float64, arrays as []any.
	f.Meta = map[string]any{"duration_ms": float64(812), "ratio": 0.25, "name": "r",
		"nested": map[string]any{"list": []any{"x", true, nil}}}
	f.Params = docmill.Params{"kept": "1"} // a finished job's params replace the stored ones (secrets scrubbed)
	if ok, err := s.FinishJob(t.Context(), &f); err != nil || !ok {
		t.Fatalf("FinishJob = %v, %v; want true, nil", ok, err)
	}
	want = f
	want.FinishedAt = ptr(ms(finished))
	want.Result = ptr(*f.Result)
	want.Result.ExpiresAt = ms(f.Result.ExpiresAt)
	same(t, "Job after FinishJob", mustJob(t, s, in.ID), &want)
	if u := mustUsage(t, s, a.ID, period); u.Operations != 1 || u.InFlight != 0 {
		t.Errorf("Usage = %+v, want 1 operation, 0 in flight", u)
	}

	deleted := t0.Add(3 * time.Hour)
	if err := s.MarkResultDeleted(t.Context(), in.ID, deleted); err != nil {
		t.Fatalf("MarkResultDeleted: %v", err)
	}
	if err := s.MarkInputsDeleted(t.Context(), in.ID, deleted.Add(time.Second)); err != nil {
		t.Fatalf("MarkInputsDeleted: %v", err)
	}
	want.Result.DeletedAt = ptr(deleted)
	want.InputsDeletedAt = ptr(deleted.Add(time.Second))
	same(t, "Job after Mark*Deleted", mustJob(t, s, in.ID), &want)
}

func testJobEmptyValues(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	for _, empty := range []bool{false, true} {
		in := NewJob(a)
		in.Params, in.Inputs, in.Meta = nil, nil, nil
		if empty {
			in.Params, in.Inputs, in.Meta = docmill.Params{}, []docmill.InputFile{}, map[string]any{}
		}
		got, err := s.CreateJob(t.Context(), in, unlimited)
		if err != nil {
			t.Fatalf("CreateJob: %v", err)
		}
		want := *in
		want.Status = docmill.StatusQueued
		same(t, "CreateJob", got, &want)
		same(t, "Job", mustJob(t, s, in.ID), &want)
	}
}

func testJobFailed(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	j := finish(t, s, create(t, s, a), docmill.StatusFailed, t0.Add(time.Minute))
	if j.Status != docmill.StatusFailed || j.Result != nil || j.FinishedAt == nil {
		t.Errorf("failed job = %+v", j)
	}
	same(t, "Error", j.Error, &docmill.JobError{Code: docmill.CodeInvalidDocument, Message: "damaged"})
	if u := mustUsage(t, s, a.ID, period); u.Operations != 0 || u.InFlight != 0 {
		t.Errorf("Usage after a failed job = %+v, want nothing charged", u)
	}
}

func testJobNotFound(t *testing.T, s docmill.Store) {
	const id = "job_missing"
	_, err := s.Job(t.Context(), id)
	wantErr(t, "Job", err, docmill.ErrNotFound)
	_, err = s.StartJob(t.Context(), id, t0)
	wantErr(t, "StartJob", err, docmill.ErrNotFound)
	_, err = s.CancelJob(t.Context(), id, t0)
	wantErr(t, "CancelJob", err, docmill.ErrNotFound)
	ok, err := s.FinishJob(t.Context(), &docmill.Job{ID: id, Status: docmill.StatusDone, FinishedAt: &t0})
	if ok {
		t.Errorf("FinishJob(missing) = true")
	}
	wantErr(t, "FinishJob", err, docmill.ErrNotFound)
	wantErr(t, "MarkResultDeleted", s.MarkResultDeleted(t.Context(), id, t0), docmill.ErrNotFound)
	wantErr(t, "MarkInputsDeleted", s.MarkInputsDeleted(t.Context(), id, t0), docmill.ErrNotFound)

	j := NewJob(&docmill.Account{ID: "acct_missing"})
	if _, err := s.CreateJob(t.Context(), j, unlimited); err == nil {
		t.Errorf("CreateJob for an unknown account succeeded")
	}
	_, err = s.Job(t.Context(), j.ID)
	wantErr(t, "Job of an unknown account", err, docmill.ErrNotFound)
}

func testStartJob(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	j := create(t, s, a)
	want := *j
	want.Status = docmill.StatusProcessing
	want.StartedAt = ptr(t0.Add(time.Second))
	// A retried job is started again; it keeps the time of its first start.
	for i := range 2 {
		got, err := s.StartJob(t.Context(), j.ID, t0.Add(time.Duration(i+1)*time.Second))
		if err != nil {
			t.Fatalf("StartJob #%d: %v", i, err)
		}
		same(t, fmt.Sprint("StartJob #", i), got, &want)
	}
	for _, status := range []docmill.Status{docmill.StatusDone, docmill.StatusFailed, docmill.StatusCanceled} {
		j := create(t, s, a)
		if status == docmill.StatusCanceled {
			if _, err := s.CancelJob(t.Context(), j.ID, t0); err != nil {
				t.Fatalf("CancelJob: %v", err)
			}
		} else {
			finish(t, s, j, status, t0.Add(time.Minute))
		}
		before := mustJob(t, s, j.ID)
		got, err := s.StartJob(t.Context(), j.ID, t0.Add(time.Hour))
		if err != nil {
			t.Fatalf("StartJob(%s): %v", status, err)
		}
		same(t, "StartJob of a "+string(status)+" job", got, before)
	}
}

func testRequeueJob(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	j := create(t, s, a)
	queued := mustJob(t, s, j.ID)
	got, err := s.RequeueJob(t.Context(), j.ID)
	if err != nil {
		t.Fatalf("RequeueJob(queued): %v", err)
	}
	same(t, "RequeueJob of a queued job", got, queued)
	started, err := s.StartJob(t.Context(), j.ID, t0.Add(time.Second))
	if err != nil {
		t.Fatalf("StartJob: %v", err)
	}
	want := *started
	want.Status = docmill.StatusQueued
	if got, err = s.RequeueJob(t.Context(), j.ID); err != nil {
		t.Fatalf("RequeueJob: %v", err)
	}
	same(t, "RequeueJob of a processing job", got, &want)
	if u := mustUsage(t, s, a.ID, period); u.Operations != 0 || u.InFlight != 1 {
		t.Errorf("Usage = %+v, want a job in flight, nothing charged", u)
	}
	// Started again, it keeps its first start.
	if got, err = s.StartJob(t.Context(), j.ID, t0.Add(time.Hour)); err != nil {
		t.Fatalf("StartJob(again): %v", err)
	}
	same(t, "StartJob after RequeueJob", got, started)
	done := finish(t, s, got, docmill.StatusDone, t0.Add(2*time.Hour))
	if got, err = s.RequeueJob(t.Context(), j.ID); err != nil {
		t.Fatalf("RequeueJob(done): %v", err)
	}
	same(t, "RequeueJob of a done job", got, done)
	_, err = s.RequeueJob(t.Context(), "job_missing")
	wantErr(t, "RequeueJob of a missing job", err, docmill.ErrNotFound)
}

func testCancelJob(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	queued := create(t, s, a)
	processing := create(t, s, a)
	if _, err := s.StartJob(t.Context(), processing.ID, t0); err != nil {
		t.Fatalf("StartJob: %v", err)
	}
	at := t0.Add(time.Minute + 7*time.Microsecond)
	for _, j := range []*docmill.Job{queued, processing} {
		want := mustJob(t, s, j.ID)
		want.Status = docmill.StatusCanceled
		want.FinishedAt = ptr(ms(at))
		got, err := s.CancelJob(t.Context(), j.ID, at)
		if err != nil {
			t.Fatalf("CancelJob: %v", err)
		}
		same(t, "CancelJob", got, want)
		// A second cancel changes nothing.
		got, err = s.CancelJob(t.Context(), j.ID, at.Add(time.Hour))
		if err != nil {
			t.Fatalf("CancelJob(again): %v", err)
		}
		same(t, "CancelJob(again)", got, want)
	}
	done := finish(t, s, create(t, s, a), docmill.StatusDone, t0.Add(time.Minute))
	got, err := s.CancelJob(t.Context(), done.ID, t0.Add(time.Hour))
	if err != nil {
		t.Fatalf("CancelJob(done): %v", err)
	}
	same(t, "CancelJob(done)", got, done)
	if u := mustUsage(t, s, a.ID, period); u.Operations != 1 || u.InFlight != 0 {
		t.Errorf("Usage = %+v, want 1 operation (canceled jobs are free), 0 in flight", u)
	}
}

func testFinishAfterCancel(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	j := create(t, s, a)
	if _, err := s.StartJob(t.Context(), j.ID, t0); err != nil {
		t.Fatalf("StartJob: %v", err)
	}
	canceled, err := s.CancelJob(t.Context(), j.ID, t0.Add(time.Second))
	if err != nil {
		t.Fatalf("CancelJob: %v", err)
	}
	f := *canceled
	f.Status = docmill.StatusDone
	f.FinishedAt = ptr(t0.Add(time.Minute))
	f.Result = &docmill.Result{Key: "out/x", Filename: "x.pdf", ContentType: "application/pdf", Size: 1, ExpiresAt: t0.Add(time.Hour)}
	ok, err := s.FinishJob(t.Context(), &f)
	if err != nil || ok {
		t.Fatalf("FinishJob after CancelJob = %v, %v; want false, nil", ok, err)
	}
	same(t, "Job after a refused FinishJob", mustJob(t, s, j.ID), canceled)
	if u := mustUsage(t, s, a.ID, period); u.Operations != 0 || u.InFlight != 0 {
		t.Errorf("Usage = %+v, want nothing charged", u)
	}
}

// testExport: a job's export is stored with the job, read back as it was,
// and replaced by SetExport whatever the job's status.
func testExport(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanPro)
	in := NewJob(a)
	in.Export = &docmill.Export{URL: "https://bucket.example.com/k?X-Amz-Signature=abc", KeepResult: true, Status: docmill.ExportPending}
	got, err := s.CreateJob(t.Context(), in, docmill.Admission{Period: period})
	if err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	if got.Export == nil || *got.Export != *in.Export {
		t.Fatalf("CreateJob: export %+v, want %+v", got.Export, in.Export)
	}
	done := &docmill.Export{URL: "https://bucket.example.com/k", Status: docmill.ExportFailed, Reason: "HTTP 403", Attempts: 1}
	if err := s.SetExport(t.Context(), in.ID, done); err != nil {
		t.Fatalf("SetExport: %v", err)
	}
	if j := mustJob(t, s, in.ID); j.Export == nil || *j.Export != *done {
		t.Errorf("after SetExport: %+v, want %+v", j.Export, done)
	}
	if err := s.SetExport(t.Context(), "job_none", done); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("SetExport of an unknown job: %v, want ErrNotFound", err)
	}
	plain := NewJob(a)
	if _, err := s.CreateJob(t.Context(), plain, docmill.Admission{Period: period}); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	if j := mustJob(t, s, plain.ID); j.Export != nil {
		t.Errorf("a job without export reads back with %+v", j.Export)
	}
}

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
