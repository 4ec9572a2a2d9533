package sqlstore

import (
	"context"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqltext"
)

// MarkResultDeleted records that job id's result file is gone; the first
// time recorded stands.
func (s *Store) MarkResultDeleted(ctx context.Context, id string, now time.Time) error {
	return s.mark(ctx, "mark result deleted", id, sqltext.MarkResultDeleted, now)
}

// MarkInputsDeleted records that job id's input files are gone; the first
// time recorded stands.
func (s *Store) MarkInputsDeleted(ctx context.Context, id string, now time.Time) error {
	return s.mark(ctx, "mark inputs deleted", id, sqltext.MarkInputsDeleted, now)
}

func (s *Store) mark(ctx context.Context, op, id, q string, now time.Time) error {
	err := s.db.InTx(ctx, func(tx Tx) error {
		n, err := tx.Exec(ctx, q, id, millis(now))
		if err != nil {
			return err
		}
		if n == 0 {
			return docmill.ErrNotFound
		}
		return nil
	})
	if err != nil {
		return s.errorf("%s %s: %w", op, id, err)
	}
	return nil
}

// ExpiredResults returns up to limit done jobs whose result expired at or
// before now and is not marked deleted, soonest expired first.
func (s *Store) ExpiredResults(ctx context.Context, now time.Time, limit int) ([]*docmill.Job, error) {
	return s.listJobs(ctx, "expired results", sqltext.ExpiredResults, limit, millis(now))
}

// StaleInputs returns up to limit finished jobs whose inputs are not marked
// deleted, earliest finished first.
func (s *Store) StaleInputs(ctx context.Context, limit int) ([]*docmill.Job, error) {
	return s.listJobs(ctx, "stale inputs", sqltext.StaleInputs, limit)
}

// DeleteJobsCreatedBefore deletes up to limit finished jobs created before t,
// oldest first, with their webhook attempts, and returns them as they were. Unfinished jobs are kept
// whatever their age.
func (s *Store) DeleteJobsCreatedBefore(ctx context.Context, t time.Time, limit int) ([]*docmill.Job, error) {
	if limit <= 0 {
		return nil, nil
	}
	var jobs []*docmill.Job
	err := s.db.InTx(ctx, func(tx Tx) error {
		var err error
		if jobs, err = queryJobs(ctx, tx, sqltext.OldJobs, millis(t), limit); err != nil {
			return err
		}
		for _, j := range jobs {
			if _, err := tx.Exec(ctx, sqltext.DeleteJob, j.ID); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, sqltext.DeleteJobWebhookAttempts, j.ID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, s.errorf("delete old jobs: %w", err)
	}
	return jobs, nil
}

// CountByStatus returns how many jobs are queued and processing; both keys
// are always present.
func (s *Store) CountByStatus(ctx context.Context) (map[docmill.Status]int64, error) {
	rows, err := s.db.Read().Query(ctx, sqltext.CountByStatus)
	if err != nil {
		return nil, s.errorf("count by status: %w", err)
	}
	defer rows.Close()
	counts := map[docmill.Status]int64{docmill.StatusQueued: 0, docmill.StatusProcessing: 0}
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			return nil, s.errorf("count by status: %w", err)
		}
		counts[docmill.Status(st)] = n
	}
	if err := rows.Err(); err != nil {
		return nil, s.errorf("count by status: %w", err)
	}
	return counts, nil
}

// UnfinishedJobs returns up to limit queued or processing jobs created
// before t, oldest first.
func (s *Store) UnfinishedJobs(ctx context.Context, t time.Time, limit int) ([]*docmill.Job, error) {
	return s.listJobs(ctx, "unfinished jobs", sqltext.UnfinishedJobs, limit, millis(t))
}
