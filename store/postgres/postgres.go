// Package postgres is the docmill.Store of the clustered deployment:
// PostgreSQL through pgx v5 (pgxpool), shared by every node and by River's
// riverpgxv5 driver, which inserts a job's queue entry in the same pgx.Tx as
// the job row (see EnqueueFunc).
//
// The schema is the SQLite store's (BIGINT unix milliseconds, TEXT JSON),
// created in the connection's current schema (its search_path), so that
// several deployments or test runs can share one database.
//
// The store's logic is store/internal/sqlstore's, shared with store/sqlite;
// this package opens the pool and adapts pgx to it. All timestamps come back
// in UTC at millisecond precision. Job.Meta is stored as JSON, so its
// numbers come back as float64.
package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// EnqueueFunc inserts the queue entry of a new job. CreateJob calls it inside
// its transaction, after the job row is inserted, so that the job and its
// queue entry commit together; an error rolls both back. It must use tx (for
// River: riverpgxv5's client.InsertTx(ctx, tx, ...)).
type EnqueueFunc func(ctx context.Context, tx pgx.Tx, j *docmill.Job) error

// DeliverFunc queues webhook deliveries. FinishJob and CancelJob call it
// inside the transaction that moves a job to a final status, so that the
// deliveries commit with it; an error rolls both back. It must use tx.
type DeliverFunc func(ctx context.Context, tx pgx.Tx, ds []docmill.WebhookDelivery) error

// Store is a docmill.Store on PostgreSQL. It is safe for concurrent use.
type Store struct {
	*core
	pool  *pgxpool.Pool
	hooks sqlstore.TxHooks[pgx.Tx]
}

// core is the shared logic; the alias keeps the embedded field unexported.
type core = sqlstore.Store

var _ docmill.Store = (*Store)(nil)

// Open prepares a pool for the database at url (a PostgreSQL URL or
// keyword/value string, with pgxpool's pool_* options; unknown parameters
// such as search_path are sent as run-time parameters) and returns the
// store. It does not connect: call Ping to see that the database answers,
// and Migrated or Migrate before use, since Open does not migrate (a
// deployment migrates once, on purpose; see Migrate). enqueue may be nil,
// in which case jobs get no queue entry (tests, the CLI); see SetEnqueue.
func Open(ctx context.Context, url string, enqueue EnqueueFunc) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Store{pool: pool}
	s.core = sqlstore.New(db{pool}, sqlstore.Config{
		Name:         "postgres",
		IsNoRows:     isNoRows,
		IsEmailTaken: isEmailTaken,
		Enqueue:      s.hooks.Enqueue,
		Deliver:      s.hooks.Deliver,
		JobFinished:  qNotifyJobDone, // wakes waiters in every process (Listen)
		// The lazy transaction's setting is sent with its BEGIN, in the
		// same round trip.
		LazyTx: db{pool}.inTxBegun(pgx.TxOptions{BeginQuery: "BEGIN; SET LOCAL synchronous_commit = off"}),
	})
	s.SetEnqueue(enqueue)
	return s, nil
}

// SetEnqueue sets the function CreateJob calls to insert a job's queue
// entry; nil means none. The queue is built after the store (it needs
// Pool), hence a setter.
func (s *Store) SetEnqueue(f EnqueueFunc) { s.hooks.SetEnqueue(f) }

// SetDeliver sets the function that queues a finished job's webhook
// deliveries; nil means none (they are dropped).
func (s *Store) SetDeliver(f DeliverFunc) { s.hooks.SetDeliver(f) }

// Pool returns the connection pool, for River's riverpgxv5 driver.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the pool, waiting for the connections in use to be released.
func (s *Store) Close() { s.pool.Close() }

// Ping checks that the database answers. Its error names the server
// (host and port), never the password.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		c := s.pool.Config().ConnConfig
		return fmt.Errorf("postgres: cannot reach %s:%d: %w", c.Host, c.Port, err)
	}
	return nil
}

// db adapts the pool to sqlstore.DB.
type db struct{ pool *pgxpool.Pool }

// InTx runs fn in a transaction (READ COMMITTED, the default) and commits it
// if fn succeeds.
func (d db) InTx(ctx context.Context, fn func(tx sqlstore.Tx) error) error {
	return d.inTxBegun(pgx.TxOptions{})(ctx, fn)
}

// inTxBegun is InTx with the transaction begun as opts says.
func (d db) inTxBegun(opts pgx.TxOptions) func(ctx context.Context, fn func(tx sqlstore.Tx) error) error {
	return func(ctx context.Context, fn func(tx sqlstore.Tx) error) error {
		tx, err := d.pool.BeginTx(ctx, opts)
		if err != nil {
			return err
		}
		if err := fn(pgTx{q: tx, tx: tx}); err != nil {
			_ = tx.Rollback(ctx) // fn's error is the one that matters
			return err
		}
		return tx.Commit(ctx)
	}
}

func (d db) Read() sqlstore.Tx { return pgTx{q: d.pool} }

// querier is a *pgxpool.Pool or pgx.Tx.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// pgTx is a sqlstore.Tx on q; tx is q inside a transaction, else nil.
type pgTx struct {
	q  querier
	tx pgx.Tx
}

func (t pgTx) Exec(ctx context.Context, sql string, args ...any) (int64, error) {
	tag, err := t.q.Exec(ctx, sql, args...)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (t pgTx) QueryRow(ctx context.Context, sql string, args ...any) sqlstore.Row {
	return t.q.QueryRow(ctx, sql, args...)
}

func (t pgTx) Query(ctx context.Context, sql string, args ...any) (sqlstore.Rows, error) {
	return t.q.Query(ctx, sql, args...)
}

// Native returns the pgx.Tx, for the hooks (sqlstore.TxHooks).
func (t pgTx) Native() (pgx.Tx, bool) { return t.tx, t.tx != nil }

var _ sqlstore.NativeTx[pgx.Tx] = pgTx{}

func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// isEmailTaken reports whether err is the unique_violation of accounts' email.
func isEmailTaken(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "accounts_email_key"
}
