package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"

	"github.com/docmill/docmill"
)

// JanitorArgs is the periodic River job that removes files and records past
// their time: results at expires_at, inputs of finished jobs (normally
// removed by the worker already), job records after 30 days, and expired
// mailed tokens and browser sessions.
type JanitorArgs struct{}

// Kind names the River job kind.
func (JanitorArgs) Kind() string { return "docmill.janitor" }

type janitorWorker[TTx any] struct {
	river.WorkerDefaults[JanitorArgs]
	q *Queue[TTx]
}

// janitorBatch bounds each sweep's query; a sweep loops until a batch comes
// back short.
const janitorBatch = 500

func (w *janitorWorker[TTx]) Work(ctx context.Context, _ *river.Job[JanitorArgs]) error {
	return w.q.Sweep(ctx)
}

// Sweep removes scratch no job needs (sweepScratch), gives up the jobs
// whose queue entry is gone (settleOrphans), and removes expired sign-in
// data, ended mail's queue entries, expired results, leftover inputs and
// old job records, once.
func (q *Queue[TTx]) Sweep(ctx context.Context) error {
	q.sweepScratch(ctx)
	st, bl := q.cfg.Store, q.cfg.Blob
	if err := q.settleOrphans(ctx); err != nil {
		return err
	}
	if err := q.deleteExpiredAuth(ctx); err != nil {
		return err
	}
	if err := q.forgetEndedMail(ctx); err != nil {
		// Not a reason to keep expired files: the next sweep tries again.
		q.cfg.Logger.Warn("janitor: ended mail not removed", "err", err)
	}
	for {
		now := q.cfg.Now()
		expired, err := st.ExpiredResults(ctx, now, janitorBatch)
		if err != nil {
			return err
		}
		for _, j := range expired {
			if err := deleteResult(ctx, bl, j.ID, j.Result); err != nil {
				return err
			}
			if err := st.MarkResultDeleted(ctx, j.ID, now); err != nil {
				return err
			}
		}
		if len(expired) < janitorBatch {
			break
		}
	}
	for {
		stale, err := st.StaleInputs(ctx, janitorBatch)
		if err != nil {
			return err
		}
		for _, j := range stale {
			q.deleteInputs(ctx, j)
		}
		if len(stale) < janitorBatch {
			break
		}
	}
	for {
		old, err := st.DeleteJobsCreatedBefore(ctx, q.cfg.Now().Add(-docmill.RecordRetention), janitorBatch)
		if err != nil {
			return err
		}
		for _, j := range old {
			_, _ = DeleteJobFiles(ctx, bl, j) // a file left behind is only space
		}
		if len(old) < janitorBatch {
			return nil
		}
	}
}

// janitorTimeout bounds one sweep.
func (w *janitorWorker[TTx]) Timeout(*river.Job[JanitorArgs]) time.Duration { return 5 * time.Minute }

// deleteExpiredAuth removes the mailed tokens and browser sessions that
// have expired: they can no longer be used, and a token names a mailbox.
func (q *Queue[TTx]) deleteExpiredAuth(ctx context.Context) error {
	now := q.cfg.Now()
	tokens, err := q.cfg.Store.DeleteExpiredAuthTokens(ctx, now)
	if err != nil {
		return err
	}
	sessions, err := q.cfg.Store.DeleteExpiredSessions(ctx, now)
	if err != nil {
		return err
	}
	if tokens > 0 || sessions > 0 {
		q.cfg.Logger.Info("janitor: expired sign-in data deleted", "auth_tokens", tokens, "sessions", sessions)
	}
	return nil
}

// DeleteJobFiles removes every file of job j, whose record is deleted:
// its inputs, its result and the result's preview. It tries each file
// whatever fails and returns the errors joined, and how many files the
// record said were there (inputs not yet removed, a result not yet
// removed, and its preview when one was made). The janitor removes old
// records' files with it, and `docmill accounts delete` a deleted
// account's.
func DeleteJobFiles(ctx context.Context, bl docmill.BlobStore, j *docmill.Job) (int, error) {
	var n int
	var errs []error
	if j.Result != nil {
		if j.Result.DeletedAt == nil {
			n++
			if _, ok := j.Meta["preview_size"]; ok {
				n++
			}
		}
		errs = append(errs, deleteResult(ctx, bl, j.ID, j.Result))
	}
	for _, f := range j.Inputs {
		if j.InputsDeletedAt == nil {
			n++
		}
		errs = append(errs, bl.Delete(ctx, f.Key))
	}
	return n, errors.Join(errs...)
}
