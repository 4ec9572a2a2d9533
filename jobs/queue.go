// Package jobs runs docmill jobs on River: it inserts queue entries in the
// store's transaction, works them (download inputs, run the tool, upload the
// result, record the outcome), lets the HTTP API wait for and cancel them,
// sweeps expired files with a periodic janitor, and sends queued mail
// (mail.go).
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docmill/docmill"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
)

// Config is what a Queue needs. Zero durations take the defaults noted.
type Config struct {
	Store    docmill.Store
	Blob     docmill.BlobStore
	Registry *docmill.Registry
	Logger   *slog.Logger
	// Lanes are the lanes this node works, each with how many of its jobs
	// it works at once (lanes.go); a lane absent is not worked here. When
	// empty, every lane is worked with Workers workers; with neither the
	// queue is insert-only (an API node).
	Lanes map[docmill.Lane]int
	// Workers is each lane's worker count when Lanes is empty.
	Workers int
	// JobTimeout bounds one attempt of any job (default 10 min); a tool may
	// set a lower limit of its own. Stuck jobs of a dead process are rescued
	// once they have run longer than JobTimeout plus RescueMargin.
	JobTimeout time.Duration
	// RescueMargin (default 30 s) is added to the longest timeout before
	// River considers a running job abandoned and retries it.
	RescueMargin time.Duration
	// PollInterval is how often idle workers look for jobs (zero: River's
	// default, 1 s). It is a safety net: riverpgxv5 notifies every node's
	// workers of a new job (LISTEN/NOTIFY), and on SQLite, which cannot,
	// the store's commit of a job wakes this node's workers (Enqueued).
	// It bounds only the pickup of jobs made available otherwise (a retry
	// due, a job handed back), and each poll costs CPU while idle.
	PollInterval time.Duration
	// Notifications, if set, reports jobs finished by any process, so that
	// Wait wakes at once for a job worked elsewhere and a running job
	// canceled elsewhere stops at once. Without it, or while it is
	// disconnected, both fall back to polling the store.
	Notifications Notifications
	// ScratchDir holds each job's working directory, job-<jobID>-<random>
	// (default os.TempDir): the node's own directory (ClaimScratch),
	// whose root the janitor sweeps (sweepScratch).
	ScratchDir string
	// Limits are the node's processing limits, handed to every run.
	Limits docmill.Limits
	// JanitorInterval is how often expired files are swept (default 1 min).
	JanitorInterval time.Duration
	// Registerer receives the job metrics; nil registers none.
	Registerer prometheus.Registerer
	// Now is the clock (default time.Now); tests move it.
	Now func() time.Time
	// Trace, if set, is told each stage of a job's run on this node as
	// the job reaches it (worker.go: stage names); benchmarks time the
	// stages with it. Nil in production.
	Trace func(jobID, stage string)

	// NodeID names this worker node in the store's heartbeats and as
	// River's client (default: host name and a random suffix, new at each
	// start).
	NodeID string
	// Heartbeat is how often a worker node proves it is alive and looks
	// for dead nodes (default 2 s).
	Heartbeat time.Duration
	// NodeTimeout is how long a node may miss its heartbeat before it is
	// taken for dead and its running jobs are handed back (default 8 s).
	NodeTimeout time.Duration
	// Webhooks delivers the events of finished jobs (see WebhookConfig).
	Webhooks WebhookConfig
	// Exports sends results to their export_url (see ExportConfig).
	Exports ExportConfig
	// Mail sends the mail queued by QueueMail (mail.go). Nil: this node
	// sends none and does not work the mail queue (it may still queue
	// mail). It is worked only by a node that works jobs.
	Mail docmill.MailSender
	// MailSchedule are the delays before the second, third, ... attempt
	// to send a mail (default MailSchedule); a mail is tried
	// len(MailSchedule)+1 times.
	MailSchedule []time.Duration

	// SoleWorker says this node is the only one working its database (the
	// embedded server): at start it hands back every job left running, and
	// it has no heartbeat (Heartbeat and NodeTimeout do not apply).
	SoleWorker bool
}

// Notifications is a source of the ids of jobs that reach a final status in
// any process sharing the store (store/postgres: LISTEN/NOTIFY).
type Notifications interface {
	// Listen runs until ctx is done, calling done with the id of each job
	// finished anywhere, and state with nil whenever it starts hearing every
	// finish and with the cause whenever it stops (it retries by itself).
	// Finishes while it does not hear them are lost. done and state are
	// called from Listen's goroutine.
	Listen(ctx context.Context, done func(jobID string), state func(err error))
}

// DefaultJobTimeout is Config.JobTimeout when none is set.
const DefaultJobTimeout = 10 * time.Minute

// maxAttempts is how many times a job is tried when its engine fails in a
// way that is not the input's fault (a crash, a lost worker). It is the
// queue's recovery rule, not a cost of a job: the job's budget and
// timeout bound what the attempts spend together, and the API reference
// promises this count.
const maxAttempts = 3

// Queue is the River-backed job queue; TTx is the driver's transaction type
// (*sql.Tx for SQLite, pgx.Tx for PostgreSQL).
type Queue[TTx any] struct {
	cfg     Config
	client  *river.Client[TTx]
	wake    *wakePilot
	notify  *notifier
	metrics *metrics
	// listening is true while Notifications hears every finish; Wait then
	// relies on it and polls only as a safety net.
	listening  atomic.Bool
	stopListen context.CancelFunc
	listenDone chan struct{}

	// stopNode stops the heartbeat, which closes nodeDone.
	stopNode context.CancelFunc
	nodeDone chan struct{}

	mu      sync.Mutex
	running map[string]context.CancelFunc
	// shares counts, by lane and account, the jobs this node runs, for
	// the fair share (lanes.go).
	shares *laneShares

	// queuedDeliveries holds the ids of jobs whose ending transaction
	// queued webhook deliveries, until it commits (deliveriesCommitted).
	queuedDeliveries sync.Map
}

var _ docmill.Queue = (*Queue[any])(nil)

// New builds a queue on a River driver. Call Start to work jobs.
func New[TTx any](driver riverdriver.Driver[TTx], cfg Config) (*Queue[TTx], error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.JobTimeout = orDefault(cfg.JobTimeout, DefaultJobTimeout)
	cfg.RescueMargin = orDefault(cfg.RescueMargin, 30*time.Second)
	cfg.JanitorInterval = orDefault(cfg.JanitorInterval, time.Minute)
	cfg.Heartbeat = orDefault(cfg.Heartbeat, 2*time.Second)
	cfg.NodeTimeout = orDefault(cfg.NodeTimeout, 8*time.Second)
	if cfg.NodeID == "" {
		cfg.NodeID = newNodeID()
	}
	if cfg.Exports.Schedule == nil {
		cfg.Exports.Schedule = ExportSchedule
	}
	if len(cfg.Webhooks.Schedule) == 0 {
		cfg.Webhooks.Schedule = RetrySchedule
	}
	if cfg.Webhooks.Workers <= 0 {
		cfg.Webhooks.Workers = 8
	}
	if len(cfg.MailSchedule) == 0 {
		cfg.MailSchedule = MailSchedule
	}

	cfg.Lanes = workedLanes(cfg)
	q := &Queue[TTx]{cfg: cfg, wake: &wakePilot{}, notify: newNotifier(), running: map[string]context.CancelFunc{}, shares: newLaneShares()}
	q.metrics = newMetrics(cfg.Registerer, cfg.Store)

	rc := &river.Config{
		ID:                cfg.NodeID,
		Logger:            riverLogger(cfg.Logger),
		FetchPollInterval: cfg.PollInterval,
		// River debounces fetches by this much; a worker that frees its slot
		// should take the next job at once, not up to a cooldown later.
		FetchCooldown:        river.FetchCooldownMin,
		JobTimeout:           -1, // each job's timeout comes from its tool (processWorker.Timeout)
		RescueStuckJobsAfter: cfg.JobTimeout + cfg.RescueMargin,
		MaxAttempts:          maxAttempts,
		RetryPolicy:          retryPolicy{},
	}
	if q.works() {
		workers := river.NewWorkers()
		river.AddWorker(workers, &processWorker[TTx]{q: q})
		river.AddWorker(workers, &janitorWorker[TTx]{q: q})
		rc.Workers = workers
		rc.Queues = laneQueues(cfg.Lanes)
		if cfg.Webhooks.Client != nil {
			river.AddWorker(workers, &deliverWorker[TTx]{q: q})
			rc.Queues[webhookQueue] = river.QueueConfig{MaxWorkers: cfg.Webhooks.Workers, FetchPollInterval: webhookPoll(cfg)}
		}
		// Registered even where Mail is nil, so that QueueMail passes
		// River's check of known kinds; the queue is worked only with Mail.
		river.AddWorker(workers, &mailWorker[TTx]{q: q})
		if q.sendsMail() {
			rc.Queues[mailQueue] = river.QueueConfig{MaxWorkers: mailWorkers, FetchPollInterval: mailPoll(cfg)}
		}
		rc.PeriodicJobs = []*river.PeriodicJob{river.NewPeriodicJob(
			river.PeriodicInterval(cfg.JanitorInterval),
			func() (river.JobArgs, *river.InsertOpts) { return JanitorArgs{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true},
		)}
	}
	client, err := river.NewClient[TTx](&wakeDriver[TTx]{Driver: driver, pilot: q.wake}, rc)
	if err != nil {
		return nil, fmt.Errorf("jobs: river client: %w", err)
	}
	q.client = client
	q.metrics.registerLanes(cfg.Registerer, cfg.Lanes, q.shares, q.laneCounts)
	return q, nil
}

// toolTimeout is the limit of one attempt of t's jobs: the tool's own,
// within JobTimeout; JobTimeout alone for a tool this node does not serve
// (nil).
func (q *Queue[TTx]) toolTimeout(t *docmill.Tool) time.Duration {
	if t != nil && t.Timeout > 0 {
		return min(t.Timeout, q.cfg.JobTimeout)
	}
	return q.cfg.JobTimeout
}

// retryPolicy retries failed attempts after 1 s, 4 s, 9 s...: an engine
// crash is worth a quick second try, and a client may be waiting in a sync
// call. River's default (attempt^4 s) suits background work, not this.
type retryPolicy struct{}

func (retryPolicy) NextRetry(j *rivertype.JobRow) time.Time {
	n := time.Duration(max(1, j.Attempt))
	return time.Now().Add(min(n*n*time.Second, 5*time.Minute))
}

// InsertTx adds the queue entry of j inside tx, the transaction that
// inserts j's row; it is the store's enqueue hook.
func (q *Queue[TTx]) InsertTx(ctx context.Context, tx TTx, j *docmill.Job) error {
	args := ProcessArgs{JobID: j.ID, Tool: j.Tool, AccountID: j.AccountID}
	_, err := q.client.InsertTx(ctx, tx, args, &river.InsertOpts{Priority: j.Priority, Queue: q.queueOf(j)})
	return err
}

// NodeID names this node in heartbeats and as River's client.
func (q *Queue[TTx]) NodeID() string { return q.cfg.NodeID }

// Start begins listening for finished jobs (if Config.Notifications is
// set) and working jobs (unless the queue is insert-only).
func (q *Queue[TTx]) Start(ctx context.Context) error {
	if q.cfg.Notifications != nil && q.stopListen == nil {
		lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		q.stopListen, q.listenDone = cancel, make(chan struct{})
		go func() {
			defer close(q.listenDone)
			q.cfg.Notifications.Listen(lctx, q.notify.publish, q.listenState)
		}()
	}
	if !q.works() {
		return nil
	}
	if err := q.startNode(ctx); err != nil {
		return fmt.Errorf("jobs: start node: %w", err)
	}
	return q.client.Start(ctx)
}

// listenState records whether Notifications hears every finish, and wakes
// every waiter: after a gap each must look again at its job (its finish
// may have been missed), and on a loss each must go back to polling fast.
func (q *Queue[TTx]) listenState(err error) {
	if err != nil {
		if q.listening.Swap(false) {
			q.cfg.Logger.Warn("job notifications lost; waits poll until they are back", "err", err)
		} else {
			q.cfg.Logger.Debug("job notifications: cannot listen", "err", err)
		}
		q.metrics.listening.Set(0)
	} else {
		q.listening.Store(true)
		q.metrics.listening.Set(1)
	}
	q.notify.publishAll()
}

// Stop stops fetching new jobs and waits for jobs in progress until ctx is
// done; then it cancels them, and they go back to the queue. Then the node
// stops its heartbeat and, last, stops listening for finished jobs.
func (q *Queue[TTx]) Stop(ctx context.Context) error {
	err := q.stopWorkers(ctx)
	q.stopNodeBeat()
	if q.stopListen != nil {
		q.stopListen()
		<-q.listenDone
	}
	return err
}

func (q *Queue[TTx]) stopWorkers(ctx context.Context) error {
	if !q.works() {
		return nil
	}
	err := q.client.Stop(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return q.client.StopAndCancel(cctx)
	}
	return err
}

// listenPoll is how often Wait looks at the store while notifications are
// heard: only a safety net, since a finish wakes it at once.
const listenPoll = 2 * time.Second

// Wait returns the job once it is finished or d has passed. It is woken at
// once by a worker of this process, or by Config.Notifications for a worker
// elsewhere; without notifications it polls the store with a growing
// interval (10 ms to 250 ms).
func (q *Queue[TTx]) Wait(ctx context.Context, id string, d time.Duration) (*docmill.Job, error) {
	deadline := time.Now().Add(d)
	wake, done := q.notify.subscribe(id)
	defer done()
	interval := 10 * time.Millisecond
	counted := false
	for {
		j, err := q.cfg.Store.Job(ctx, id)
		if err != nil {
			return nil, err
		}
		left := time.Until(deadline)
		if j.Status.Finished() || left <= 0 {
			return j, nil
		}
		if !counted {
			q.metrics.waiting.Inc()
			defer q.metrics.waiting.Dec()
			counted = true
		}
		next := interval
		if q.listening.Load() {
			next = listenPoll
		}
		t := time.NewTimer(min(next, left))
		select {
		case <-wake:
			q.metrics.waitWakes.WithLabelValues("notification").Inc()
		case <-t.C:
			q.metrics.waitWakes.WithLabelValues("poll").Inc()
		case <-ctx.Done():
			t.Stop()
			return j, nil
		}
		t.Stop()
		interval = min(interval*2, 250*time.Millisecond)
	}
}

// Cancel cancels an unfinished job, stopping its tool if it runs in this
// process (a worker elsewhere notices within a second), or deletes a done
// job's result now.
func (q *Queue[TTx]) Cancel(ctx context.Context, j *docmill.Job) (*docmill.Job, error) {
	now := q.cfg.Now()
	if !j.Status.Finished() {
		c, err := q.cfg.Store.CancelJob(ctx, j.ID, now)
		if err != nil {
			return nil, err
		}
		q.mu.Lock()
		if stop := q.running[j.ID]; stop != nil {
			stop()
		}
		q.mu.Unlock()
		q.notify.publish(j.ID)
		q.cfg.Logger.Info("job canceled", "job_id", j.ID, "tool", j.Tool)
		q.deliveriesCommitted(j.ID)
		return c, nil
	}
	if j.Result != nil && j.Result.DeletedAt == nil {
		if err := deleteResult(ctx, q.cfg.Blob, j.ID, j.Result); err != nil {
			return nil, err
		}
		if err := q.cfg.Store.MarkResultDeleted(ctx, j.ID, now); err != nil {
			return nil, err
		}
		return q.cfg.Store.Job(ctx, j.ID)
	}
	return j, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// riverLogger quiets River's own info logs, which report routine
// maintenance, while keeping its warnings and errors.
func riverLogger(l *slog.Logger) *slog.Logger {
	return slog.New(levelFilter{h: l.Handler(), min: slog.LevelWarn})
}

type levelFilter struct {
	h   slog.Handler
	min slog.Level
}

func (f levelFilter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= f.min && f.h.Enabled(ctx, l)
}

// Handle drops River's reports of work cut short by its own shutdown
// ("context canceled"), which say nothing an operator must act on.
func (f levelFilter) Handle(ctx context.Context, r slog.Record) error {
	canceled := false
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "error" || a.Key == "err" {
			canceled = strings.HasSuffix(a.Value.String(), context.Canceled.Error())
		}
		return !canceled
	})
	if canceled {
		return nil
	}
	return f.h.Handle(ctx, r)
}
func (f levelFilter) WithAttrs(a []slog.Attr) slog.Handler {
	return levelFilter{h: f.h.WithAttrs(a), min: f.min}
}
func (f levelFilter) WithGroup(n string) slog.Handler {
	return levelFilter{h: f.h.WithGroup(n), min: f.min}
}
