// Package sqlite is the docmill.Store of the embedded deployment: one SQLite
// file (modernc.org/sqlite, no cgo) in WAL mode, shared with River's SQLite
// driver and with `docmill accounts` run from another process.
//
// Two connection pools share the file. The write pool has a single
// connection and begins every transaction IMMEDIATE, so writers queue in Go
// rather than fail with SQLITE_BUSY, and River (which requires a
// single-connection pool) can use it through WriteDB. The read pool has
// several read-only connections; WAL lets them read while a write is under
// way.
//
// The store's logic is store/internal/sqlstore's, shared with store/postgres;
// this package opens the pools and adapts database/sql to it. All
// timestamps are stored as unix milliseconds and come back in UTC at
// millisecond precision. Job.Meta is stored as JSON, so its numbers come
// back as float64.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqlstore"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// EnqueueFunc inserts the queue entry of a new job. CreateJob calls it inside
// its transaction, after the job row is inserted, so that the job and its
// queue entry commit together; an error rolls both back. It must use only
// tx: the write pool has one connection, which tx holds.
type EnqueueFunc func(ctx context.Context, tx *sql.Tx, j *docmill.Job) error

// DeliverFunc queues webhook deliveries. FinishJob and CancelJob call it
// inside the transaction that moves a job to a final status, so that the
// deliveries commit with it; an error rolls both back. It must use only
// tx, like EnqueueFunc.
type DeliverFunc func(ctx context.Context, tx *sql.Tx, ds []docmill.WebhookDelivery) error

// Store is a docmill.Store on a SQLite file. It is safe for concurrent use.
type Store struct {
	*core
	write *sql.DB
	read  *sql.DB
	hooks sqlstore.TxHooks[*sql.Tx]
	// enqueued is called after the commit of an enqueue (SetEnqueued).
	enqueued sqlstore.Hook[func(*docmill.Job)]
}

// core is the shared logic; the alias keeps the embedded field unexported.
type core = sqlstore.Store

var _ docmill.Store = (*Store)(nil)

// Pragmas of every connection. busy_timeout comes first (the driver applies
// it first anyway) so that the others wait for a lock instead of failing.
const commonPragmas = "_pragma=busy_timeout(10000)&_pragma=foreign_keys(ON)&_pragma=synchronous(NORMAL)"

// Open opens (creating it and its directory if needed) the database at path,
// applies pending migrations and returns the store. enqueue may be nil, in
// which case jobs get no queue entry (tests, the CLI); see SetEnqueue.
func Open(ctx context.Context, path string, enqueue EnqueueFunc) (*Store, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	write := openDB(path + "?_pragma=journal_mode(WAL)&" + commonPragmas + "&_txlock=immediate")
	// One connection: SQLite has one writer at a time anyway, and River's
	// SQLite driver needs a single-connection pool.
	write.SetMaxOpenConns(1)
	s := &Store{write: write}
	s.core = sqlstore.New(db{s}, sqlstore.Config{Name: "sqlite", IsNoRows: isNoRows, Enqueue: s.hooks.Enqueue, Enqueued: s.afterEnqueue, Deliver: s.hooks.Deliver})
	s.SetEnqueue(enqueue)
	if err := sqlstore.Migrate(ctx, s.core); err != nil {
		write.Close()
		return nil, err
	}
	// The read pool opens after migrating, so the file is in WAL mode (a
	// persistent property) before any reader connects.
	read := openDB(path + "?" + commonPragmas + "&_pragma=query_only(1)")
	read.SetMaxOpenConns(max(4, runtime.GOMAXPROCS(0)))
	s.read = read
	if err := s.Ping(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// SetEnqueue sets the function CreateJob calls to insert a job's queue
// entry; nil means none. The queue is built after the store (it needs
// WriteDB), hence a setter.
func (s *Store) SetEnqueue(f EnqueueFunc) { s.hooks.SetEnqueue(f) }

// SetEnqueued sets the function CreateJob calls, with the job, once the
// transaction that inserted its queue entry (EnqueueFunc) has committed;
// nil means none. SQLite cannot notify workers of a new job, so the
// server that works jobs wakes its own with it (jobs.Queue.Enqueued)
// rather than have them poll the file.
func (s *Store) SetEnqueued(f func(j *docmill.Job)) { s.enqueued.Set(f) }

// SetDeliver sets the function that queues a finished job's webhook
// deliveries; nil means none (they are dropped).
func (s *Store) SetDeliver(f DeliverFunc) { s.hooks.SetDeliver(f) }

// WriteDB returns the single-connection write pool, for River's SQLite
// driver. Whoever uses it must not hold its connection while calling the
// store, or the store waits forever.
func (s *Store) WriteDB() *sql.DB { return s.write }

// Close closes both pools.
func (s *Store) Close() error {
	var errRead error
	if s.read != nil {
		errRead = s.read.Close()
	}
	return errors.Join(s.write.Close(), errRead)
}

// Ping checks that both pools reach the database.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.write.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping: %w", err)
	}
	if err := s.read.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlite: ping: %w", err)
	}
	return nil
}

// db adapts the two pools to sqlstore.DB: transactions on the write pool,
// reads on the read pool.
type db struct{ s *Store }

func (d db) InTx(ctx context.Context, fn func(tx sqlstore.Tx) error) error {
	tx, err := d.s.write.BeginTx(ctx, nil)
	if err != nil {
		return diskFull(err)
	}
	if err := fn(sqlTx{q: tx, tx: tx}); err != nil {
		_ = tx.Rollback() // fn's error is the one that matters
		return diskFull(err)
	}
	return diskFull(tx.Commit())
}

// sqliteFull is SQLite's primary result code for a write that found the
// disk full (SQLITE_FULL).
const sqliteFull = 13

// diskFull adds syscall.ENOSPC to an SQLITE_FULL error, so that a full
// data directory is told apart from a bug the same way for every write
// (docmill.IsNoSpace): insufficient_storage, not internal.
func diskFull(err error) error {
	var coded interface{ Code() int }
	if errors.As(err, &coded) && coded.Code()&0xff == sqliteFull {
		return fmt.Errorf("%w (%w)", err, syscall.ENOSPC)
	}
	return err
}

func (d db) Read() sqlstore.Tx { return sqlTx{q: d.s.read} }

// querier is a *sql.DB or *sql.Tx.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// sqlTx is a sqlstore.Tx on q; tx is q inside a transaction, else nil.
type sqlTx struct {
	q  querier
	tx *sql.Tx
}

func (t sqlTx) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := t.q.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (t sqlTx) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return t.q.QueryRowContext(ctx, query, args...)
}

func (t sqlTx) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := t.q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

// sqlRows is a sqlstore.Rows: Close without a result.
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }

// Native returns the *sql.Tx, for the hooks (sqlstore.TxHooks).
func (t sqlTx) Native() (*sql.Tx, bool) { return t.tx, t.tx != nil }

var _ sqlstore.NativeTx[*sql.Tx] = sqlTx{}

// afterEnqueue calls the function of SetEnqueued, if any.
func (s *Store) afterEnqueue(j *docmill.Job) {
	if f := s.enqueued.Load(); f != nil {
		f(j)
	}
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
