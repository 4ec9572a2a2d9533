package jobs

import (
	"context"
	"time"

	"github.com/docmill/docmill"
)

// A job's work budget (docmill.WorkBudget: what its tool allows for the
// size of its inputs, within the tool's timeout) is the deadline of its
// run. It covers all its attempts together: the time an attempt used is
// recorded in the job (Store.RecordUsed) every usedCheckpoint while it
// runs and when it ends without finishing the job, so that a job handed
// back (its node lost, a restart, a shutdown) runs again with only what is
// left, and fails as processing_timeout when nothing is. One that had used
// demoteAfter or more goes back behind the jobs already waiting, a River
// priority lower (demote): the hostile file that held a worker to its
// budget does not take the first worker free after a restart.

// usedCheckpoint is how often a running attempt records the time its job
// has used: what a lost node's job may have used beyond what it recorded.
const usedCheckpoint = 5 * time.Second

// demoteAfter is the used time from which a job handed back goes back
// behind the jobs waiting: one cut short sooner did little work, and
// keeps its place.
const demoteAfter = usedCheckpoint

// budget is j's work budget on this node: WorkBudget of tool for the size
// of j's inputs, within the queue's limit of tool (toolTimeout); that
// limit alone for a tool this node does not serve (nil).
func (q *Queue[TTx]) budget(j *docmill.Job, tool *docmill.Tool) time.Duration {
	limit := q.toolTimeout(tool)
	if tool == nil {
		return limit
	}
	return min(docmill.WorkBudget(tool, docmill.WorkSize{Bytes: j.InputSize()}), limit)
}

// spend gives an attempt of j what is left of its budget as ctx's
// deadline (past, when nothing is left: the run then fails at once as
// processing_timeout), and records the job's used time while the attempt
// runs. The returned end must be called with the attempt's outcome: it
// stops the recording and, for an attempt that did not finish the job
// (err != nil: a retry, a shutdown), records what it used.
func (q *Queue[TTx]) spend(ctx context.Context, j *docmill.Job, tool *docmill.Tool) (context.Context, func(err error)) {
	start := time.Now()
	ctx, cancel := context.WithDeadline(ctx, start.Add(q.budget(j, tool)-j.Used))
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(usedCheckpoint)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				q.recordUsed(j.ID, j.Used+time.Since(start))
			}
		}
	}()
	return ctx, func(err error) {
		cancel()
		close(stop)
		<-done
		if err != nil {
			q.recordUsed(j.ID, j.Used+time.Since(start))
		}
	}
}

// recordUsed records that job id has used used of its budget; best
// effort: a job whose record lags runs again with more than it had left.
func (q *Queue[TTx]) recordUsed(id string, used time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := q.cfg.Store.RecordUsed(ctx, id, used); err != nil {
		q.cfg.Logger.Warn("record used time", "job_id", id, "err", err)
	}
}

// demoteIfUsed puts River job riverID, which works docmill job jobID and
// is handed back, a priority lower (4 at most) when the job has used
// demoteAfter or more of its budget, so that it runs after the jobs
// waiting at its priority. River has no call that changes a job's
// priority, hence the statement on its table (the same in SQLite and
// PostgreSQL); its fetch orders by priority first. Best effort: a job
// left at its priority only runs sooner. It reports whether the job used
// that much (the caller then schedules it behind the jobs waiting).
func (q *Queue[TTx]) demoteIfUsed(ctx context.Context, riverID int64, jobID string) bool {
	if jobID == "" {
		return false
	}
	j, err := q.cfg.Store.Job(ctx, jobID)
	if err != nil || j.Used < demoteAfter {
		return false
	}
	err = q.client.Driver().GetExecutor().Exec(ctx,
		`UPDATE river_job SET priority = CASE WHEN priority < 4 THEN priority + 1 ELSE 4 END WHERE id = $1`, riverID)
	if err != nil {
		q.cfg.Logger.Warn("demote a job handed back", "job_id", jobID, "err", err)
	}
	return true
}
