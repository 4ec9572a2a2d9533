package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"time"

	"github.com/docmill/docmill"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// A worker node proves it is alive with a heartbeat in the store. When a
// node dies (kill -9, a lost machine), the jobs it was running are handed
// back to the queue as soon as its heartbeat is NodeTimeout old, by
// whichever live node claims it first, rather than after River's rescue
// window (the job timeout plus a margin, ten minutes by default). A node
// that is the only worker of its database (SoleWorker: the embedded
// server, which locks its data directory) has no heartbeat; it hands
// back, when it starts, every job left running: they were its own, from a
// previous life.
//
// A job handed back counts as an attempt. One whose worker was lost on its
// last attempt fails with worker_lost, uncharged, its slot freed and its
// inputs deleted.

// newNodeID names a node: its host and a random suffix, new at each start,
// since a node that starts again is a new node (its old self is dead).
func newNodeID() string {
	host, _ := os.Hostname()
	if len(host) > 60 {
		host = host[:60]
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return host + "_" + hex.EncodeToString(b)
}

// startNode hands back the jobs of its previous life when it is the sole
// worker; else it registers this node and starts the heartbeat. A sole
// worker neither registers nor beats: no other node reads its beats, and
// the only node whose death could leave its jobs running is itself, which
// hands them back when it starts again. (Its beat, two writes every 2 s,
// was most of an idle embedded server's CPU after River's own polls.)
func (q *Queue[TTx]) startNode(ctx context.Context) error {
	if q.cfg.SoleWorker {
		return q.handBack(ctx, func(*rivertype.JobRow) bool { return true })
	}
	if err := q.cfg.Store.Heartbeat(ctx, q.cfg.NodeID, q.cfg.Now()); err != nil {
		return err
	}
	nctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	q.stopNode, q.nodeDone = cancel, make(chan struct{})
	go q.heartbeat(nctx)
	return nil
}

// heartbeat beats every Config.Heartbeat until ctx is done, and hands
// back the jobs of every node it finds dead.
func (q *Queue[TTx]) heartbeat(ctx context.Context) {
	defer close(q.nodeDone)
	t := time.NewTicker(q.cfg.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := q.cfg.Store.Heartbeat(ctx, q.cfg.NodeID, q.cfg.Now()); err != nil {
			q.cfg.Logger.Warn("node heartbeat", "node", q.cfg.NodeID, "err", err)
			continue
		}
		dead, err := q.cfg.Store.ClaimDeadNodes(ctx, q.cfg.Now().Add(-q.cfg.NodeTimeout))
		if err != nil {
			q.cfg.Logger.Warn("claim dead nodes", "err", err)
			continue
		}
		if len(dead) == 0 {
			continue
		}
		q.cfg.Logger.Warn("worker nodes stopped beating; handing back their jobs", "nodes", dead)
		err = q.handBack(ctx, func(r *rivertype.JobRow) bool {
			return len(r.AttemptedBy) > 0 && slices.Contains(dead, r.AttemptedBy[len(r.AttemptedBy)-1])
		})
		if err != nil {
			q.cfg.Logger.Error("hand back the jobs of dead nodes", "nodes", dead, "err", err)
		}
	}
}

// stopNodeBeat stops the heartbeat, if any, and removes the node's record:
// a node that stops cleanly has handed back its jobs already.
func (q *Queue[TTx]) stopNodeBeat() {
	if q.stopNode == nil {
		return
	}
	q.stopNode()
	<-q.nodeDone
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := q.cfg.Store.ForgetNode(ctx, q.cfg.NodeID); err != nil {
		q.cfg.Logger.Warn("forget node", "node", q.cfg.NodeID, "err", err)
	}
}

// handBack returns to the queue, at once, the running jobs that lost match
// says were lost with their worker: available again, or discarded (and
// their docmill job failed with worker_lost) when that was their last
// attempt.
func (q *Queue[TTx]) handBack(ctx context.Context, lost func(*rivertype.JobRow) bool) error {
	rows, err := q.listJobs(ctx, rivertype.JobStateRunning)
	if err != nil {
		return err
	}
	now := time.Now().UTC()
	p := riverdriver.JobRescueManyParams{}
	var given []string
	for _, r := range rows {
		if !lost(r) {
			continue
		}
		msg, _ := json.Marshal(rivertype.AttemptError{At: now, Attempt: r.Attempt, Error: "worker node lost"})
		state, finalized := rivertype.JobStateAvailable, (*time.Time)(nil)
		if r.Attempt >= r.MaxAttempts {
			state, finalized = rivertype.JobStateDiscarded, &now
			if id := docmillJobID(r); id != "" {
				given = append(given, id)
			}
		}
		p.ID = append(p.ID, r.ID)
		p.Error = append(p.Error, msg)
		p.FinalizedAt = append(p.FinalizedAt, finalized)
		// Its first schedule keeps its place ahead of the jobs queued
		// after it, unless it used much of its budget (budget.go): then
		// it goes behind the jobs waiting, a priority lower.
		scheduled := r.ScheduledAt
		if state == rivertype.JobStateAvailable && q.demoteIfUsed(ctx, r.ID, docmillJobID(r)) {
			scheduled = now
		}
		p.ScheduledAt = append(p.ScheduledAt, scheduled)
		p.State = append(p.State, string(state))
	}
	if len(p.ID) == 0 {
		return nil
	}
	if _, err := q.client.Driver().GetExecutor().JobRescueMany(ctx, &p); err != nil {
		return err
	}
	q.metrics.handedBack.Add(float64(len(p.ID)))
	q.cfg.Logger.Info("jobs handed back after their worker was lost", "count", len(p.ID), "given_up", len(given))
	for _, id := range given {
		if err := q.settleLost(ctx, id); err != nil {
			return err
		}
	}
	return nil
}

// listJobs returns every River job in one of states.
func (q *Queue[TTx]) listJobs(ctx context.Context, states ...rivertype.JobState) ([]*rivertype.JobRow, error) {
	var out []*rivertype.JobRow
	params := river.NewJobListParams().States(states...).First(1000)
	for {
		res, err := q.client.JobList(ctx, params)
		if err != nil {
			return nil, err
		}
		out = append(out, res.Jobs...)
		if len(res.Jobs) < 1000 {
			return out, nil
		}
		params = params.After(res.LastCursor)
	}
}

// docmillJobID is the docmill job a River job works, or "" for other
// kinds (the janitor).
func docmillJobID(r *rivertype.JobRow) string {
	if r.Kind != (ProcessArgs{}).Kind() {
		return ""
	}
	var a ProcessArgs
	if json.Unmarshal(r.EncodedArgs, &a) != nil {
		return ""
	}
	return a.JobID
}

// settleLost fails docmill job id with worker_lost, unless it has reached
// a final status meanwhile: its River job is gone or given up, so nothing
// else would ever finish it.
func (q *Queue[TTx]) settleLost(ctx context.Context, id string) error {
	j, err := q.cfg.Store.StartJob(ctx, id, q.cfg.Now())
	if errors.Is(err, docmill.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if j.Status.Finished() {
		return nil
	}
	e := docmill.Errorf(docmill.CodeWorkerLost, "The server working on this job stopped before it finished, on each attempt; the job was given up and not charged. Sending it again is safe.")
	tool, _ := q.cfg.Registry.Lookup(j.Tool)
	return q.fail(j, tool, e, 0)
}

// orphanAge is how old an unfinished job must be before the janitor asks
// whether its River job still exists: younger ones may be in the middle of
// being created.
const orphanAge = time.Minute

// settleOrphans fails with worker_lost the unfinished docmill jobs whose
// River job is no longer going to run: discarded or cancelled by River
// (its own rescuer gives up on a job whose worker died on every attempt),
// or gone altogether.
func (q *Queue[TTx]) settleOrphans(ctx context.Context) error {
	unfinished, err := q.cfg.Store.UnfinishedJobs(ctx, q.cfg.Now().Add(-orphanAge), janitorBatch)
	if err != nil || len(unfinished) == 0 {
		return err
	}
	// Listed after the docmill jobs: a River job seen here as live may
	// finish later, but then it finishes its docmill job itself.
	live, err := q.listJobs(ctx, rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
		rivertype.JobStateRunning, rivertype.JobStateScheduled)
	if err != nil {
		return err
	}
	alive := map[string]bool{}
	for _, r := range live {
		alive[docmillJobID(r)] = true
	}
	for _, j := range unfinished {
		if alive[j.ID] {
			continue
		}
		q.cfg.Logger.Warn("job has no live queue entry; giving it up", "job_id", j.ID, "status", j.Status)
		if err := q.settleLost(ctx, j.ID); err != nil {
			return err
		}
	}
	return nil
}
