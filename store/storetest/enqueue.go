package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/docmill/docmill"
)

// Tx is the part of a store's transaction that an enqueue hook uses.
type Tx interface {
	// Exec runs a statement with args ($1, $2, ...) in the transaction.
	Exec(ctx context.Context, query string, args ...any) error
	// QueryString runs a query of one row and one text column in the
	// transaction and returns that column.
	QueryString(ctx context.Context, query string, args ...any) (string, error)
}

// EnqueueHook is an enqueue hook (the EnqueueFunc of store/sqlite and
// store/postgres) seen through Tx.
type EnqueueHook func(ctx context.Context, tx Tx, j *docmill.Job) error

// enqueue checks that the queue entry is written in CreateJob's
// transaction: the hook sees the job row, nobody else does until the
// commit, the hook's failure rolls the job back, and neither a replay nor a
// refused job is enqueued.
func enqueue(t *testing.T, s DriverStore) {
	if err := s.exec(t.Context(), `CREATE TABLE queue (job_id TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("queue is down")
	var fail bool
	var calls int
	s.SetEnqueue(func(ctx context.Context, tx Tx, j *docmill.Job) error {
		calls++
		status, err := tx.QueryString(ctx, `SELECT status FROM jobs WHERE id = $1`, j.ID)
		if err != nil {
			return fmt.Errorf("job row not visible in the transaction: %w", err)
		}
		if status != string(docmill.StatusQueued) || j.Status != docmill.StatusQueued {
			return fmt.Errorf("status %q, job %q; want queued", status, j.Status)
		}
		if _, err := s.Job(ctx, j.ID); !errors.Is(err, docmill.ErrNotFound) {
			return fmt.Errorf("job visible outside the transaction before commit: %v", err)
		}
		if err := tx.Exec(ctx, `INSERT INTO queue (job_id) VALUES ($1)`, j.ID); err != nil {
			return err
		}
		if fail {
			return boom
		}
		return nil
	})
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	adm := docmill.Admission{Period: period, MaxInFlight: 1}

	ok := NewJob(a)
	ok.IdempotencyKey, ok.RequestHash = "k", "h"
	if _, err := s.CreateJob(t.Context(), ok, adm); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	// Neither a replay nor a refused job is enqueued.
	if _, err := s.CreateJob(t.Context(), ok, adm); err != nil {
		t.Fatalf("CreateJob(replay): %v", err)
	}
	if _, err := s.CreateJob(t.Context(), NewJob(a), adm); !errors.Is(err, docmill.ErrTooManyInFlight) {
		t.Fatalf("CreateJob over the limit: %v", err)
	}
	if calls != 1 {
		t.Errorf("enqueue called %d times, want 1", calls)
	}

	fail = true
	bad := NewJob(a)
	if _, err := s.CreateJob(t.Context(), bad, unlimited); !errors.Is(err, boom) {
		t.Fatalf("CreateJob with a failing enqueue: %v, want %v", err, boom)
	}
	if _, err := s.Job(t.Context(), bad.ID); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("job of a failed enqueue: %v, want ErrNotFound", err)
	}
	queued, err := s.queryStrings(t.Context(), `SELECT job_id FROM queue`)
	if err != nil {
		t.Fatal(err)
	}
	if len(queued) != 1 || queued[0] != ok.ID {
		t.Errorf("queue = %v, want [%s]", queued, ok.ID)
	}
}
