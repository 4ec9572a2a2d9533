package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/postgres/pgtest"
	"github.com/docmill/docmill/store/storetest"
)

// TestListen checks that finishing and canceling a job notify a listener
// on another connection, after the commit, and that a job that is not
// finished by the call (already final) notifies nothing.
func TestListen(t *testing.T) {
	dbURL := pgtest.SchemaURL(t)
	s := open(t, dbURL)
	other := open(t, dbURL) // the listener of another process
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ids := make(chan string, 1000)
	live := make(chan error, 10)
	go other.Listen(ctx, func(id string) { ids <- id }, func(err error) { live <- err })
	select {
	case err := <-live:
		if err != nil {
			t.Fatalf("listener: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("listener not listening within 10 s")
	}

	a := newAccount(t, s)
	adm := docmill.Admission{Period: "2026-11"}
	done := storetest.NewJob(a)
	if _, err := s.CreateJob(t.Context(), done, adm); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartJob(t.Context(), done.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	done.Status = docmill.StatusFailed
	done.Error = &docmill.JobError{Code: docmill.CodeInternal, Message: "x"}
	if ok, err := s.FinishJob(t.Context(), done); err != nil || !ok {
		t.Fatalf("FinishJob = %v, %v", ok, err)
	}
	expect(t, ids, done.ID)

	canceled := storetest.NewJob(a)
	if _, err := s.CreateJob(t.Context(), canceled, adm); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CancelJob(t.Context(), canceled.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	expect(t, ids, canceled.ID)
	// Neither a second cancel nor finishing a canceled job changes
	// anything, so neither notifies.
	if _, err := s.CancelJob(t.Context(), canceled.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.FinishJob(t.Context(), &docmill.Job{ID: canceled.ID, Status: docmill.StatusDone}); err != nil || ok {
		t.Fatalf("FinishJob of a canceled job = %v, %v", ok, err)
	}
	timeout := time.After(300 * time.Millisecond)
	for {
		select {
		case id := <-ids:
			if id == canceled.ID || id == done.ID {
				t.Errorf("notified %s for a job that did not change", id)
			}
		case <-timeout:
			return
		}
	}
}

// expect waits for the notification of job want. The channel is the
// database's, shared by every schema, so other tests' jobs may be heard
// too; they are skipped (job ids are unique, so they are harmless).
func expect(t *testing.T, ids <-chan string, want string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case id := <-ids:
			if id == want {
				return
			}
		case <-timeout:
			t.Fatalf("no notification for %s within 10 s", want)
		}
	}
}
