// Package postgres is the docmill.Store of the clustered deployment:
// PostgreSQL through pgx v5 (pgxpool), shared by every node and by River's
// riverpgxv5 driver, which inserts a job's queue entry in the same pgx.Tx as
// the job row (see EnqueueFunc).
//
// The schema is the SQLite store's (BIGINT unix milliseconds, TEXT JSON),
// created in the connection's current schema (its search_path), so that
// several deployments or test runs can share one database.
//
// All timestamps come back in UTC at millisecond precision. Job.Meta is
// stored as JSON, so its numbers come back as float64.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"github.com/docmill/docmill/store/internal/sqltext"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/docmill/docmill"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// EnqueueFunc inserts the queue entry of a new job. CreateJob calls it inside
// its transaction, after the job row is inserted, so that the job and its
// queue entry commit together; an error rolls both back. It must use tx (for
// River: riverpgxv5's client.InsertTx(ctx, tx, ...)).
type EnqueueFunc func(ctx context.Context, tx pgx.Tx, j *docmill.Job) error

// Store is a docmill.Store on PostgreSQL. It is safe for concurrent use.
type Store struct {
	pool    *pgxpool.Pool
	enqueue atomic.Pointer[EnqueueFunc]
}

var _ docmill.Store = (*Store)(nil)

//go:embed migrations/*.sql
var migrations embed.FS

// Open connects to the database at url (a PostgreSQL URL or keyword/value
// string, with pgxpool's pool_* options; unknown parameters such as
// search_path are sent as run-time parameters), applies pending migrations
// and returns the store. enqueue may be nil, in which case jobs get no queue
// entry (tests, the CLI); see SetEnqueue.
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
	s.SetEnqueue(enqueue)
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// SetEnqueue sets the function CreateJob calls to insert a job's queue
// entry; nil means none. The queue is built after the store (it needs
// Pool), hence a setter.
func (s *Store) SetEnqueue(f EnqueueFunc) {
	if f == nil {
		s.enqueue.Store(nil)
		return
	}
	s.enqueue.Store(&f)
}

// Pool returns the connection pool, for River's riverpgxv5 driver.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the pool, waiting for the connections in use to be released.
func (s *Store) Close() { s.pool.Close() }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: ping: %w", err)
	}
	return nil
}

// Setting returns the setting name, storing value first if it is absent.
// Insert-if-absent then read, in one transaction: ON CONFLICT DO NOTHING
// waits for a concurrent insert of the same name to commit, and the read (a
// new snapshot under READ COMMITTED) then sees it, so every caller gets the
// stored value.
func (s *Store) Setting(ctx context.Context, name, value string) (string, error) {
	var got string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, sqltext.SettingInsert, name, value); err != nil {
			return err
		}
		return tx.QueryRow(ctx, sqltext.SettingSelect, name).Scan(&got)
	})
	if err != nil {
		return "", fmt.Errorf("postgres: setting %s: %w", name, err)
	}
	return got, nil
}

// inTx runs fn in a transaction (READ COMMITTED, the default) and commits it
// if fn succeeds.
func (s *Store) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback(ctx) // fn's error is the one that matters
		return err
	}
	return tx.Commit(ctx)
}

type migration struct {
	version int64
	name    string
}

// migrationFiles lists the embedded migrations in version order.
func migrationFiles() ([]migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var all []migration
	for _, name := range names {
		base := path.Base(name)
		v, err := strconv.ParseInt(strings.SplitN(base, "_", 2)[0], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("postgres: migration %s: name must start with a version number", base)
		}
		all = append(all, migration{v, name})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].version < all[j].version })
	return all, nil
}

// migrate applies the embedded migrations not yet recorded in
// schema_migrations, in version order, all in one transaction that first
// takes an advisory lock (qMigrationLock): nodes starting at once wait for
// each other, and the later ones find the migrations applied.
func (s *Store) migrate(ctx context.Context) error {
	all, err := migrationFiles()
	if err != nil {
		return err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, qMigrationLock); err != nil {
			return err
		}
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
			// Without arguments, Exec uses the simple protocol, which
			// accepts several statements.
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
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	return nil
}

func appliedMigrations(ctx context.Context, tx pgx.Tx) (map[int64]bool, error) {
	rows, err := tx.Query(ctx, sqltext.AppliedMigrations)
	if err != nil {
		return nil, err
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	applied := map[int64]bool{}
	for _, v := range versions {
		applied[v] = true
	}
	return applied, nil
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

// notFound turns pgx.ErrNoRows into docmill.ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return docmill.ErrNotFound
	}
	return err
}

// isUniqueViolation reports whether err is a unique_violation of constraint.
func isUniqueViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == constraint
}
