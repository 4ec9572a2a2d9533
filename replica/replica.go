// Package replica ships the committed changes of docmill's SQLite database,
// continuously, to a directory or an S3-compatible bucket, and restores the
// database from there, to its latest state or to a point in time.
//
// # Litestream, embedded
//
// The work is Litestream's (github.com/benbjohnson/litestream, v0.5),
// embedded as a library rather than written again, because it fits:
//
//   - No cgo. The litestream package opens SQLite with modernc.org/sqlite,
//     the driver docmill uses (mattn/go-sqlite3 appears only in
//     Litestream's integration tests and test commands; its VFS sits
//     behind a build tag). Litestream requires the same driver in the same
//     process: POSIX locks belong to the process, and two SQLite
//     implementations would not see each other's.
//   - Checkpoints. Litestream holds a long read transaction on the file so
//     that nobody else can restart the WAL under it, copies each new
//     transaction from the WAL into a local LTX file (next to the
//     database, in .<name>-litestream), and checkpoints itself (PASSIVE at
//     1000 pages or every minute; TRUNCATE, which makes writers wait, only
//     past about 500 MB of WAL). docmill's connections keep their
//     automatic PASSIVE checkpoint, which cannot pass Litestream's read
//     mark; a writer that meets Litestream's short write lock waits within
//     its busy_timeout (10 s) rather than failing.
//   - The target being down never blocks a write: staging to local LTX
//     files goes on, the files wait on local disk until the target takes
//     them, and local copies are deleted only once the target holds their
//     compaction.
//
// The target is reached through gocloud.dev's bucket, the library the
// file store uses, not Litestream's own clients: an s3:// URL is opened,
// configured and authenticated exactly as --blob-url is (Litestream's S3
// client also fails to load its AWS configuration when AWS_CA_BUNDLE is
// set). The keys are those of Litestream's own S3 client: the LTX files
// of level L under <prefix>/%04x(L)/.
//
// Litestream's own loops that stage the WAL and ship files are turned
// off: this package runs them (every SyncInterval), so that every error
// of either reaches Status, each attempt is bounded by ShipTimeout, and a
// target slow to fail never holds up staging. A change committed at time
// t is on the target by about t + SyncInterval + the upload's time when
// the target is up; BenchmarkRecoveryPoint prints the worst case measured
// after kill -9. Litestream's compactions and snapshots, which it runs
// itself, take the staging lock while they upload, so a target that is
// down can delay staging by a few seconds (never a write).
//
// Restore rebuilds a database from the target's LTX files: the latest
// state, or the state at a time, to the granularity of the files the
// target still holds: every shipped transaction batch for the last
// L0Retention (5 min), then the compactions (30 s, 5 min, 1 h), then the
// daily snapshots kept for Retention.
//
// Litestream adds two tables of its own to the database
// (_litestream_seq, _litestream_lock; empty or one row) and the
// directory .<name>-litestream beside it; a restored database has the
// tables too. Its library API is not declared stable: go.mod pins it.
package replica

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/litestream"
)

// Options tune a Replicator; the zero value is the defaults.
type Options struct {
	// SyncInterval is how often new commits are staged from the WAL and
	// shipped (default 1 s).
	SyncInterval time.Duration
	// ShipTimeout bounds one attempt to stage and ship (default 30 s), so
	// that a target that accepts connections and never answers is an
	// error, not a stall.
	ShipTimeout time.Duration
	// RetryMax is the longest wait between attempts while they fail
	// (default 5 s): the wait doubles from SyncInterval up to it, so a
	// target that comes back is caught up within RetryMax.
	RetryMax time.Duration
	// Retention is how long the target keeps what a restore at a past time
	// needs (default 24 h).
	Retention time.Duration
	// StopTimeout bounds Stop's final flush (default 10 s).
	StopTimeout time.Duration
	// Logger receives Litestream's warnings and errors (default
	// slog.Default()); its informational messages are dropped.
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	o.SyncInterval = positiveOr(o.SyncInterval, time.Second)
	o.ShipTimeout = positiveOr(o.ShipTimeout, 30*time.Second)
	o.RetryMax = max(positiveOr(o.RetryMax, 5*time.Second), o.SyncInterval)
	o.Retention = positiveOr(o.Retention, 24*time.Hour)
	o.StopTimeout = positiveOr(o.StopTimeout, 10*time.Second)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

func positiveOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Status is the state of replication at one moment.
type Status struct {
	// Target is the target's URL as given to New.
	Target string
	// Lag is the age of the oldest committed change not yet on the target,
	// zero when the target holds everything. It is an upper bound: a
	// change is dated by the staging pass before the one that found it,
	// at most SyncInterval before its commit.
	Lag time.Duration
	// Failing is true while the last attempt to stage or ship failed.
	// Shipping nothing needs no request, so a target that goes down while
	// nothing is committed shows at the next commit.
	Failing bool
	// LastError is the last attempt's error that failed, and LastErrorAt
	// when; they stay after a success (Failing tells).
	LastError   string
	LastErrorAt time.Time
	// LastSuccess is when the target last took everything staged.
	LastSuccess time.Time
	// StagedAt is when the last staging pass that succeeded began: every
	// change committed before it is in LocalTXID.
	StagedAt time.Time
	// BytesShipped counts the bytes written to the target since Start,
	// compactions included.
	BytesShipped int64
	// LocalTXID is the last transaction staged locally, ShippedTXID the
	// last one known to be on the target.
	LocalTXID, ShippedTXID uint64
}

// Replicator ships one database's commits to one target. Its methods are
// safe for concurrent use.
type Replicator struct {
	dbPath, target string
	opts           Options

	client  *bucketClient
	db      *litestream.DB
	rep     *litestream.Replica
	store   *litestream.Store
	shipped atomic.Int64 // bytes written to the target

	mu sync.Mutex
	st Status
	// pendingSince dates the oldest change staged or seen and not known
	// to be shipped; zero when none.
	pendingSince time.Time
	// lastStageAt is when the previous staging pass began.
	lastStageAt time.Time

	cancel  context.CancelFunc
	done    chan struct{}
	stopped bool
}

// New prepares the replication of the SQLite database at dbPath (which
// need not exist yet) to targetURL: file:///dir, or
// s3://bucket[/prefix]?region=...&endpoint=...&use_path_style=true as
// --blob-url takes it (see ParseTarget). Nothing is contacted before
// Start.
func New(dbPath, targetURL string, opts Options) (*Replicator, error) {
	if dbPath == "" {
		return nil, errors.New("replica: no database path")
	}
	t, err := ParseTarget(targetURL)
	if err != nil {
		return nil, err
	}
	r := &Replicator{dbPath: dbPath, target: targetURL, opts: opts.withDefaults()}
	r.st.Target = targetURL
	if r.client, err = t.open(context.Background(), &r.shipped); err != nil {
		return nil, err
	}
	logger := quietLogger(r.opts.Logger).With("replica", t.String())

	r.db = litestream.NewDB(dbPath)
	r.db.MonitorInterval = 0 // staging is run's, so its errors reach Status
	r.rep = litestream.NewReplicaWithClient(r.db, r.client)
	r.rep.MonitorEnabled = false // shipping too
	r.db.Replica = r.rep
	r.store = litestream.NewStore([]*litestream.DB{r.db}, compactionLevels())
	r.store.Logger = logger
	r.store.SnapshotInterval = min(r.opts.Retention, 24*time.Hour)
	r.store.SnapshotRetention = r.opts.Retention
	r.store.SetShutdownSyncTimeout(0) // Stop flushes, bounded by StopTimeout
	r.db.SetLogger(logger)
	return r, nil
}

// Start begins replicating in the background; it returns at once and does
// not contact the target (an unreachable target shows in Status). ctx
// ends the background work like Stop without the final flush. Call it
// after the application has created the database in WAL mode: Litestream
// turns a file it finds to WAL too, and two connections doing so at once
// can deadlock on the file's locks, which SQLite reports as SQLITE_BUSY
// without waiting.
func (r *Replicator) Start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done != nil {
		return errors.New("replica: already started")
	}
	if err := r.store.Open(ctx); err != nil {
		return fmt.Errorf("replica: start: %w", err)
	}
	ctx, r.cancel = context.WithCancel(ctx)
	r.done = make(chan struct{})
	go r.run(ctx)
	return nil
}

// Stop ends replication after a final flush of what is committed, bounded
// by StopTimeout and ctx; the error is the flush's. Call it after the
// application has closed its own connections to the database: closing
// Litestream's file handles drops the process's POSIX locks on the file.
func (r *Replicator) Stop(ctx context.Context) error {
	r.mu.Lock()
	if r.done == nil || r.stopped {
		r.mu.Unlock()
		return nil
	}
	r.stopped = true
	r.mu.Unlock()
	r.cancel()
	<-r.done
	ctx, cancel := context.WithTimeout(ctx, r.opts.StopTimeout)
	defer cancel()
	err := r.flush(ctx)
	r.record(time.Now(), err, 0)
	// Closing the store syncs once more (nothing is left) and releases
	// Litestream's read transaction and file handles.
	return errors.Join(err, r.store.Close(ctx), r.client.b.Close())
}

// flush stages and ships what is committed. Litestream's own final sync
// (in closing the store) skips a database it has not opened yet, which
// is the case when the file appeared after the last staging pass.
func (r *Replicator) flush(ctx context.Context) error {
	if err := r.db.Sync(ctx); err != nil {
		return fmt.Errorf("replica: final flush: %w", err)
	}
	if pos, err := r.db.Pos(); err != nil || pos.TXID == 0 {
		return err // nothing committed, or the position is unreadable
	}
	if err := r.rep.Sync(ctx); err != nil {
		return fmt.Errorf("replica: final flush: %w", err)
	}
	return nil
}

// Status returns the replication's state now.
func (r *Replicator) Status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.st
	st.BytesShipped = r.shipped.Load()
	if !r.pendingSince.IsZero() {
		st.Lag = time.Since(r.pendingSince)
	}
	return st
}

// compactionLevels returns a copy of Litestream's default levels (L0, then
// compactions every 30 s, 5 min and 1 h), which are pointers.
func compactionLevels() litestream.CompactionLevels {
	levels := make(litestream.CompactionLevels, len(litestream.DefaultCompactionLevels))
	for i, l := range litestream.DefaultCompactionLevels {
		c := *l
		levels[i] = &c
	}
	return levels
}
