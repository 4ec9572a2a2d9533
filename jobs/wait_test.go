package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/store/postgres"
	"github.com/docmill/docmill/store/postgres/pgtest"
)

// TestWaitNotified: on PostgreSQL, an insert-only queue's Wait is woken by
// the NOTIFY of a job finished through another pool (as a worker in another
// process finishes it), not by its safety poll; the metrics say which.
// The job is finished only after Wait's first poll, so that Wait has
// surely seen it unfinished.
func TestWaitNotified(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.SchemaURL(t)
	api, worker := openPostgres(t, dbURL), openPostgres(t, dbURL)
	reg := prometheus.NewRegistry()
	q, err := jobs.New(riverpgxv5.New(api.Pool()), jobs.Config{
		Store: api, Registry: docmill.NewRegistry(), Notifications: api, Registerer: reg,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer q.Stop(context.Background())
	poll.Until(t, 10*time.Second, func() (bool, string) {
		return gauge(t, reg, "docmill_job_notifications_listening", "") == 1, "not listening"
	})

	acct := &docmill.Account{ID: docmill.NewID("acct_"), Name: "a", Plan: docmill.PlanPro, CreatedAt: time.Now()}
	_, key := docmill.NewAPIKey(acct.ID, "k", time.Now())
	if err := api.CreateAccount(t.Context(), acct, &key); err != nil {
		t.Fatal(err)
	}
	j := &docmill.Job{ID: docmill.NewJobID(), AccountID: acct.ID, Tool: "rotate-pdf", CreatedAt: time.Now()}
	if _, err := api.CreateJob(t.Context(), j, docmill.Admission{Period: "2026-11"}); err != nil {
		t.Fatal(err)
	}
	if _, err := worker.StartJob(t.Context(), j.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	// The job is finished once Wait has looked at it, found it unfinished
	// and waited: its first safety poll (listenPoll, 2 s) is the sign.
	type waited struct {
		j   *docmill.Job
		err error
	}
	result := make(chan waited, 1)
	start := time.Now()
	go func() {
		got, err := q.Wait(t.Context(), j.ID, 20*time.Second)
		result <- waited{got, err}
	}()
	poll.Until(t, 10*time.Second, func() (bool, string) {
		return gauge(t, reg, "docmill_job_wait_wakeups_total", "poll") >= 1, "Wait never polled"
	})
	if n := gauge(t, reg, "docmill_job_wait_requests", ""); n != 1 {
		t.Errorf("%v requests counted waiting, want 1", n)
	}
	done := *j
	done.Status, done.Error = docmill.StatusFailed, &docmill.JobError{Code: docmill.CodeInternal, Message: "x"}
	if _, err := worker.FinishJob(context.Background(), &done); err != nil {
		t.Fatalf("FinishJob: %v", err)
	}
	r := <-result
	if r.err != nil || r.j.Status != docmill.StatusFailed {
		t.Fatalf("Wait = %+v, %v; want the failed job", r.j, r.err)
	}
	t.Logf("Wait returned after %s", time.Since(start))
	if n := gauge(t, reg, "docmill_job_wait_requests", ""); n != 0 {
		t.Errorf("%v requests counted waiting after the wait, want 0", n)
	}
	if n := gauge(t, reg, "docmill_job_wait_wakeups_total", "notification"); n < 1 {
		t.Errorf("woken %v times by a notification, want at least 1", n)
	}
}

// gauge returns the value of the metric name (with label by, if given)
// from reg; 0 if absent.
func gauge(t *testing.T, reg *prometheus.Registry, name, by string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if by != "" && (len(m.GetLabel()) == 0 || m.GetLabel()[0].GetValue() != by) {
				continue
			}
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return 0
}

// openPostgres opens and migrates the store at dbURL.
func openPostgres(t *testing.T, dbURL string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), dbURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s
}
