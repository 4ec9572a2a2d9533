// Package sqlstore is the docmill.Store logic shared by store/sqlite and
// store/postgres. It runs the portable SQL of store/internal/sqltext through
// a minimal interface (DB, Tx, Row, Rows) that each driver satisfies with a
// small adapter, plus a few driver hooks (Config): how "no rows" looks, how
// a taken email looks, and how a new job is enqueued and a finished job's
// webhooks delivered in the store's transaction (TxHooks, generic over the
// driver's own transaction type, as River's drivers are). Its files follow
// the parts of docmill.Store: account.go, key.go, session.go, admission.go,
// job.go and joblist.go, jobmaintenance.go, node.go, webhook.go; Setting and
// the migrations are here.
//
// All timestamps are stored as unix milliseconds and come back in UTC at
// millisecond precision. Job.Meta is stored as JSON, so its numbers come
// back as float64.
package sqlstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqltext"
)

// Row is one row of QueryRow, or the current row of Rows.
type Row interface {
	Scan(dest ...any) error
}

// Rows are the rows of Query.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// Tx runs statements: in a transaction, or on a pool for DB.Read.
type Tx interface {
	Exec(ctx context.Context, sql string, args ...any) (rowsAffected int64, err error)
	QueryRow(ctx context.Context, sql string, args ...any) Row
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
}

// DB is a driver's database.
type DB interface {
	// InTx runs fn in a write transaction and commits it if fn succeeds.
	InTx(ctx context.Context, fn func(tx Tx) error) error
	// Read runs reads outside a transaction.
	Read() Tx
}

// Config holds a driver's specifics.
type Config struct {
	// Name prefixes error messages ("sqlite", "postgres").
	Name string
	// IsNoRows reports whether err is the driver's "no rows" error.
	IsNoRows func(err error) bool
	// IsEmailTaken, if set, reports whether err, from inserting an
	// account, is a violation of the unique email constraint.
	IsEmailTaken func(err error) bool
	// Enqueue inserts the queue entry of a new job in tx, the adapter's
	// transaction of CreateJob (a driver's TxHooks.Enqueue). It may be nil.
	Enqueue func(ctx context.Context, tx Tx, j *docmill.Job) error
	// Enqueued, if set, is called with the job after a transaction of
	// CreateJob that called Enqueue has committed: its queue entry is now
	// visible to workers. store/sqlite has its server wake its own
	// workers with it, since SQLite cannot notify them.
	Enqueued func(j *docmill.Job)
	// JobFinished, if set, is run with the job's id as $1 in the
	// transaction that moves a job to a final status (FinishJob, CancelJob),
	// so that it takes effect only if that commits: store/postgres sends a
	// NOTIFY with it, which PostgreSQL delivers at commit.
	JobFinished string
	// Deliver, if set, is given the webhook deliveries of a job in the
	// transaction that moves it to a final status (FinishJob, CancelJob),
	// one per enabled endpoint of its account subscribed to the event, so
	// that a delivery is queued if and only if the finish commits (a
	// driver's TxHooks.Deliver). It is not called when there are none.
	Deliver func(ctx context.Context, tx Tx, ds []docmill.WebhookDelivery) error
	// LazyTx, if set, runs fn in a write transaction whose commit does
	// not wait for the disk, and so may be lost in a crash of the
	// database. It runs the transactions whose loss loses nothing that is
	// not made again: StartJob's (a job whose start is lost is queued
	// again, or processing, and run again; any later commit that waits for
	// the disk makes it durable too), and a Waited CreateJob's (its caller
	// answers only after the job's end, a commit that waits for the disk,
	// or after Durable). store/postgres sets it (synchronous_commit off),
	// saving a wait for the disk at each pickup and at each sync call's
	// insert; without it those are ordinary transactions (DB.InTx).
	LazyTx func(ctx context.Context, fn func(tx Tx) error) error
}

// inTx runs fn in a write transaction, a lazy one (Config.LazyTx) when
// lazy and the driver has them.
func (s *Store) inTx(ctx context.Context, lazy bool, fn func(tx Tx) error) error {
	if lazy && s.cfg.LazyTx != nil {
		return s.cfg.LazyTx(ctx, fn)
	}
	return s.db.InTx(ctx, fn)
}

// Store implements docmill.Store, but for Ping, on a DB.
type Store struct {
	db  DB
	cfg Config
}

// New returns the store of db.
func New(db DB, cfg Config) *Store {
	return &Store{db: db, cfg: cfg}
}

//go:embed migrations/*.sql
var migrations embed.FS

// errorf formats an error prefixed with the driver's name.
func (s *Store) errorf(format string, args ...any) error {
	return fmt.Errorf(s.cfg.Name+": "+format, args...)
}

// Setting returns the setting name, storing value first if it is absent.
// Insert-if-absent then read, in one transaction: whichever caller inserts
// first, every caller gets the stored value. (In PostgreSQL, ON CONFLICT DO
// NOTHING waits for a concurrent insert of the same name to commit, and the
// read, a new snapshot under READ COMMITTED, then sees it.)
func (s *Store) Setting(ctx context.Context, name, value string) (string, error) {
	var got string
	err := s.db.InTx(ctx, func(tx Tx) error {
		if _, err := tx.Exec(ctx, sqltext.SettingInsert, name, value); err != nil {
			return err
		}
		return tx.QueryRow(ctx, sqltext.SettingSelect, name).Scan(&got)
	})
	if err != nil {
		return "", s.errorf("setting %s: %w", name, err)
	}
	return got, nil
}

type migration struct {
	version int64
	name    string
}

// migrationFiles lists the embedded migrations in version order.
func (s *Store) migrationFiles() ([]migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var all []migration
	for _, name := range names {
		base := path.Base(name)
		v, err := strconv.ParseInt(strings.SplitN(base, "_", 2)[0], 10, 64)
		if err != nil {
			return nil, s.errorf("migration %s: name must start with a version number", base)
		}
		all = append(all, migration{v, name})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].version < all[j].version })
	return all, nil
}

// Migrate applies to s the embedded migrations not yet recorded in
// schema_migrations, in version order, all in one write transaction. Two
// processes migrating one new database at once must be kept apart by the
// driver: SQLite's write transaction locks the whole file; store/postgres
// holds an advisory lock around Migrate.
func Migrate(ctx context.Context, s *Store) error {
	all, err := s.migrationFiles()
	if err != nil {
		return err
	}
	err = s.db.InTx(ctx, func(tx Tx) error {
		if _, err := tx.Exec(ctx, sqltext.CreateMigrations); err != nil {
			return err
		}
		applied, err := appliedMigrations(ctx, tx)
		if err != nil {
			return err
		}
		for _, m := range all {
			if applied[m.version] {
				continue
			}
			text, err := migrations.ReadFile(m.name)
			if err != nil {
				return err
			}
			// Without arguments, pgx's Exec uses the simple protocol,
			// which accepts several statements.
			if _, err := tx.Exec(ctx, string(text)); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			if _, err := tx.Exec(ctx, sqltext.RecordMigration, m.version, millis(time.Now())); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return s.errorf("migrate: %w", err)
	}
	return nil
}

// Pending returns the versions of the embedded migrations that s has not
// applied, in order. The schema_migrations table must exist (the driver
// checks that first: an absent table means every migration is pending).
func Pending(ctx context.Context, s *Store) ([]int64, error) {
	all, err := s.migrationFiles()
	if err != nil {
		return nil, err
	}
	applied, err := appliedMigrations(ctx, s.db.Read())
	if err != nil {
		return nil, s.errorf("migrations: %w", err)
	}
	var pending []int64
	for _, m := range all {
		if !applied[m.version] {
			pending = append(pending, m.version)
		}
	}
	return pending, nil
}

func appliedMigrations(ctx context.Context, tx Tx) (map[int64]bool, error) {
	rows, err := tx.Query(ctx, sqltext.AppliedMigrations)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	applied := map[int64]bool{}
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		applied[v] = true
	}
	return applied, rows.Err()
}

// queryAll runs query on q and returns its rows, each read by scan.
func queryAll[T any](ctx context.Context, q Tx, scan func(Row) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// notFound turns the driver's "no rows" error into docmill.ErrNotFound.
func (s *Store) notFound(err error) error {
	if err != nil && s.cfg.IsNoRows(err) {
		return docmill.ErrNotFound
	}
	return err
}

// millis is how times are stored: unix milliseconds.
func millis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis is the inverse of millis, in UTC.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// nullMillis stores an optional time; nil is NULL.
func nullMillis(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	ms := millis(*t)
	return &ms
}

// timePtr reads an optional time; NULL is nil.
func timePtr(ms *int64) *time.Time {
	if ms == nil {
		return nil
	}
	t := fromMillis(*ms)
	return &t
}

// nullString stores "" as NULL (optional unique columns such as email and
// idempotency_key).
func nullString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
