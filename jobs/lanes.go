package jobs

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/docmill/docmill"
)

// Each lane (docmill.Lane) is a River queue of its own, named after it,
// with its own MaxWorkers: jobs of one lane never wait behind another's.
// River's own "default" queue holds the janitor's periodic job and any
// job queued before lanes existed; every worker node works it.

// workedLanes is cfg's lanes: Lanes, or every lane with Workers workers
// when Lanes is empty; lanes with no worker are dropped.
func workedLanes(cfg Config) map[docmill.Lane]int {
	out := map[docmill.Lane]int{}
	for l, n := range cfg.Lanes {
		if n > 0 && l.Valid() {
			out[l] = n
		}
	}
	if len(cfg.Lanes) == 0 && cfg.Workers > 0 {
		for _, l := range docmill.Lanes {
			out[l] = cfg.Workers
		}
	}
	return out
}

// works reports whether this node works jobs (else it only inserts).
func (q *Queue[TTx]) works() bool { return len(q.cfg.Lanes) > 0 }

// laneQueues are River's queues for the lanes worked, and the default
// queue with as many workers as the smallest lane: the janitor, and jobs
// queued before lanes existed, which may be of any lane and so must not
// exceed any engine's pool.
func laneQueues(lanes map[docmill.Lane]int) map[string]river.QueueConfig {
	qs := map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: slices.Min(slices.Collect(maps.Values(lanes)))}}
	for l, n := range lanes {
		qs[string(l)] = river.QueueConfig{MaxWorkers: n}
	}
	return qs
}

// queueOf is the River queue of j: its lane's, or the default queue for a
// tool this node does not know (any worker fails it as unknown_tool).
func (q *Queue[TTx]) queueOf(j *docmill.Job) string {
	t, ok := q.cfg.Registry.Lookup(j.Tool)
	if !ok {
		return river.QueueDefault
	}
	if l := t.LaneOf(j.Params); l.Valid() {
		return string(l)
	}
	return river.QueueDefault
}

// shareSnooze is how long a job put back for the fair share waits before
// River may hand it out again: River then orders it behind the jobs
// already waiting at its priority, and the slot it left goes to another
// account's job. Snoozing does not use up an attempt (River counts it in
// the job's metadata, "snoozes").
const shareSnooze = time.Second

// overShare reports whether an account that holds held of a lane's
// workers on this node must let another account go first: only while
// another account waits in the lane, and only at its share. With one
// worker the share (one) is never held when the worker is free, so there
// the account whose job started last (hadLast) yields instead: turns
// alternate, and a higher priority cannot starve the rest.
func overShare(held, workers int, hadLast, othersWait bool) bool {
	return othersWait && (held >= docmill.FairShare(workers) || workers == 1 && hadLast)
}

// laneShares counts, by lane and account, the jobs this node runs, and
// remembers whose job started last in each lane and which accounts' jobs
// it put back (yielded) and until when.
type laneShares struct {
	mu      sync.Mutex
	held    map[docmill.Lane]map[string]int
	last    map[docmill.Lane]string
	yielded map[docmill.Lane]map[string]time.Time
}

func newLaneShares() *laneShares {
	return &laneShares{held: map[docmill.Lane]map[string]int{}, last: map[docmill.Lane]string{},
		yielded: map[docmill.Lane]map[string]time.Time{}}
}

// yield records that a job of account in lane was put back here until
// until. River writes a put-back job's new state (scheduled) a moment
// after the worker returns (its completer works in batches, up to a
// quarter of a second apart), while the worker it left takes the next
// job at once: until then River's record shows the job running, not
// waiting, and othersWaiting would miss it.
func (s *laneShares) yield(lane docmill.Lane, account string, until time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.yielded[lane]
	if m == nil {
		m = map[string]time.Time{}
		s.yielded[lane] = m
	}
	m[account] = until
}

// othersYielded reports whether this node put back a job of lane of
// another account than account that is still to be handed out again
// (before its until, as of now). Expired records are forgotten.
func (s *laneShares) othersYielded(lane docmill.Lane, account string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	found := false
	for a, until := range s.yielded[lane] {
		switch {
		case !now.Before(until):
			delete(s.yielded[lane], a)
		case a != account:
			found = true
		}
	}
	return found
}

// take counts one more job of lane for account here and returns how many
// it held before, and whether the lane's last job to start here was the
// account's. Counting and reading are one step: jobs of one account that
// River hands out in one fetch, started at once, each see the others.
func (s *laneShares) take(lane docmill.Lane, account string) (held int, hadLast bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.held[lane]
	if m == nil {
		m = map[string]int{}
		s.held[lane] = m
	}
	held, hadLast = m[account], s.last[lane] == account
	m[account]++
	return held, hadLast
}

// drop counts one job of lane for account less.
func (s *laneShares) drop(lane docmill.Lane, account string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.held[lane]; m[account] <= 1 {
		delete(m, account)
	} else {
		m[account]--
	}
}

// started records account's job as the lane's last to start here; the
// account's put-back job is taken to be this one, so it no longer waits.
func (s *laneShares) started(lane docmill.Lane, account string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last[lane] = account
	delete(s.yielded[lane], account)
}

// running is how many jobs of lane this node runs, all accounts together.
func (s *laneShares) running(lane docmill.Lane) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.held[lane] {
		n += c
	}
	return n
}

// takeShare is the fair share at the start of a River job of account in
// River queue queue, whose workers on this node are workers: ok is false
// when the account already holds its share and another account waits
// there (the caller snoozes the job); else the job is counted until
// release is called. A queue that is no lane (default) and a job of no
// account are not shared. Who waits is waitingBeside's to say.
func (q *Queue[TTx]) takeShare(ctx context.Context, queue, account string, workers int) (release func(), ok bool) {
	lane := docmill.Lane(queue)
	if account == "" || workers <= 0 {
		return func() {}, true
	}
	// The job is counted before the look at the waiting jobs, so that
	// another job of the account starting meanwhile counts it.
	release = func() { q.shares.drop(lane, account) }
	if held, hadLast := q.shares.take(lane, account); overShare(held, workers, hadLast, true) {
		if overShare(held, workers, hadLast, q.waitingBeside(ctx, queue, account)) {
			release()
			q.shares.yield(lane, account, time.Now().Add(shareSnooze))
			q.metrics.shareYields.WithLabelValues(queue).Inc()
			return nil, false
		}
	}
	q.shares.started(lane, account)
	return release, true
}

// waitingBeside reports whether a job of another account than account
// waits in River queue queue: one this node put back that River may not
// show as waiting yet (laneShares.yield), or one River's record shows. A
// failed look counts as nobody waiting: fairness must never stop the work.
func (q *Queue[TTx]) waitingBeside(ctx context.Context, queue, account string) bool {
	if q.shares.othersYielded(docmill.Lane(queue), account, time.Now()) {
		return true
	}
	waiting, err := q.othersWaiting(ctx, queue, account)
	if err != nil {
		q.cfg.Logger.Warn("fair share: cannot list waiting jobs", "queue", queue, "err", err)
	}
	return waiting
}

// othersWaiting reports whether a job of another account than account
// waits in River queue queue, in any process's view: River's own record,
// through its job list (args' account_id; ->> reads JSON in both
// PostgreSQL and SQLite). A job snoozed for its own share (scheduled)
// waits too: were it left out, an account at its share whose next job
// yielded would let another account take more than its share meanwhile.
func (q *Queue[TTx]) othersWaiting(ctx context.Context, queue, account string) (bool, error) {
	p := river.NewJobListParams().Queues(queue).States(rivertype.JobStateAvailable, rivertype.JobStateScheduled).
		Where("args ->> 'account_id' <> @account", river.NamedArgs{"account": account}).First(1)
	res, err := q.client.JobList(ctx, p)
	if err != nil {
		return false, err
	}
	return len(res.Jobs) > 0, nil
}

// laneWorkers is how many workers this node has for River queue queue
// (0 for a queue that is no lane: no fair share there).
func (q *Queue[TTx]) laneWorkers(queue string) int {
	if queue == webhookQueue {
		return q.cfg.Webhooks.Workers
	}
	return q.cfg.Lanes[docmill.Lane(queue)]
}
