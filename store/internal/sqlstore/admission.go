package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqltext"
)

// CreateJob admits and inserts j as a queued job charged to adm.Period, and
// calls Config.Enqueue in the same transaction (and Config.Enqueued once it
// has committed). An empty j.ID gets a fresh
// id and a zero j.CreatedAt the current time; j itself is not modified. The
// returned job is read back from the transaction, so it equals what Job
// returns later. An unknown account is docmill.ErrNotFound.
//
// The transaction first locks the account row (sqltext.LockAccount), so the
// idempotency, in-flight and quota checks and the insert of one account are
// serialized: in SQLite the transaction begins IMMEDIATE (the write lock of
// the whole file), atomic with respect to every other writer, in this
// process or another; in PostgreSQL, under READ COMMITTED, each check, run
// after the row lock is granted, sees every earlier admission committed.
func (s *Store) CreateJob(ctx context.Context, j *docmill.Job, adm docmill.Admission) (*docmill.Job, error) {
	c, err := encodeJob(j)
	if err != nil {
		return nil, s.errorf("create job: %w", err)
	}
	id := j.ID
	if id == "" {
		id = docmill.NewJobID()
	}
	created := j.CreatedAt
	if created.IsZero() {
		created = time.Now()
	}
	var out *docmill.Job
	enqueued := false
	err = s.inTx(ctx, adm.Waited, func(tx Tx) error {
		if err := lockAccount(ctx, tx, j.AccountID); err != nil {
			return err
		}
		if j.IdempotencyKey != "" {
			prev, err := scanJob(tx.QueryRow(ctx, sqltext.JobByIdemKey, j.AccountID, j.IdempotencyKey))
			switch {
			case err == nil && prev.RequestHash == j.RequestHash:
				out = prev // a replay: the earlier job stands, nothing is enqueued
				return nil
			case err == nil:
				return docmill.ErrIdempotencyConflict
			case !s.cfg.IsNoRows(err):
				return err
			}
		}
		if err := admit(ctx, tx, j.AccountID, adm, int64(j.Charge())); err != nil {
			return err
		}
		var err error
		out, err = scanJob(tx.QueryRow(ctx, sqltext.InsertJob, id, j.AccountID, j.Tool, c.params, c.inputs,
			j.Priority, j.ResultTTL.Milliseconds(), nullString(j.IdempotencyKey), j.RequestHash,
			millis(created), c.meta, adm.Period, c.export, j.Charge(), boolInt(j.Preview)))
		if err != nil {
			return err
		}
		if s.cfg.Enqueue != nil {
			if err := s.cfg.Enqueue(ctx, tx, out); err != nil {
				return fmt.Errorf("enqueue: %w", err)
			}
			enqueued = true
		}
		return nil
	})
	if err != nil {
		return nil, s.errorf("create job: %w", err)
	}
	if enqueued && s.cfg.Enqueued != nil {
		s.cfg.Enqueued(out)
	}
	return out, nil
}

// Durable makes job id's record durable, with every commit before: a
// write to it in a transaction whose commit waits for the disk, which
// writes the log up to its own commit. Where every commit waits for the
// disk already (no Config.LazyTx), there is nothing to do.
func (s *Store) Durable(ctx context.Context, id string) error {
	if s.cfg.LazyTx == nil {
		return nil
	}
	err := s.db.InTx(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, sqltext.TouchJob, id)
		return err
	})
	if err != nil {
		return s.errorf("durable %s: %w", id, err)
	}
	return nil
}

// admit checks adm against the account's jobs in flight and usage for a
// job of ops operations. Jobs in flight hold their operations against the
// quota: each may still end done and be charged them.
func admit(ctx context.Context, tx Tx, accountID string, adm docmill.Admission, ops int64) error {
	var inFlight, held, used int64
	if err := tx.QueryRow(ctx, sqltext.AdmissionCounts, accountID, adm.Period).Scan(&inFlight, &held, &used); err != nil {
		return err
	}
	if adm.MaxInFlight > 0 && inFlight >= int64(adm.MaxInFlight) {
		return docmill.ErrTooManyInFlight
	}
	if adm.MaxOperations > 0 && used+held+ops > adm.MaxOperations {
		return docmill.ErrQuotaExceeded
	}
	return nil
}

// JobByIdempotencyKey returns the job that accountID created with the
// Idempotency-Key key, as it stands now; none (an empty key included) is
// docmill.ErrNotFound. It reads outside any transaction: CreateJob still
// settles a concurrent first use of the key under the account's lock.
func (s *Store) JobByIdempotencyKey(ctx context.Context, accountID, key string) (*docmill.Job, error) {
	if key == "" {
		return nil, docmill.ErrNotFound
	}
	j, err := scanJob(s.db.Read().QueryRow(ctx, sqltext.JobByIdemKey, accountID, key))
	if err != nil {
		return nil, s.errorf("job by idempotency key: %w", s.notFound(err))
	}
	return j, nil
}

// Usage returns the operations accountID was charged in period and its jobs
// in flight now, read in one statement so that they are consistent.
func (s *Store) Usage(ctx context.Context, accountID, period string) (docmill.Usage, error) {
	u := docmill.Usage{Period: period}
	err := s.db.Read().QueryRow(ctx, sqltext.Usage, accountID, period).Scan(&u.Operations, &u.InFlight)
	if err != nil {
		return docmill.Usage{}, s.errorf("usage: %w", err)
	}
	return u, nil
}
