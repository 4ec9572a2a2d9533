package jobs

import (
	"context"
	"time"

	"github.com/riverqueue/river"

	"github.com/docmill/docmill"
)

// JanitorArgs is the periodic River job that removes files and records past
// their time: results at expires_at, inputs of finished jobs (normally
// removed by the worker already), and job records after 30 days.
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
// whose queue entry is gone (settleOrphans), and removes expired results,
// leftover inputs and old job records, once.
func (q *Queue[TTx]) Sweep(ctx context.Context) error {
	q.sweepScratch(ctx)
	st, bl := q.cfg.Store, q.cfg.Blob
	if err := q.settleOrphans(ctx); err != nil {
		return err
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
			if j.Result != nil && j.Result.DeletedAt == nil {
				_ = deleteResult(ctx, bl, j.ID, j.Result)
			}
			for _, f := range j.Inputs {
				_ = bl.Delete(ctx, f.Key)
			}
		}
		if len(old) < janitorBatch {
			return nil
		}
	}
}

// janitorTimeout bounds one sweep.
func (w *janitorWorker[TTx]) Timeout(*river.Job[JanitorArgs]) time.Duration { return 5 * time.Minute }
