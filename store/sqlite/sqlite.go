// Package sqlite is the docmill.Store of the embedded deployment: one SQLite
// file (modernc.org/sqlite, no cgo) in WAL mode, shared with River's SQLite
// driver and with `docmill keys` run from another process.
//
// Two connection pools share the file. The write pool has a single
// connection and begins every transaction IMMEDIATE, so writers queue in Go
// rather than fail with SQLITE_BUSY, and River (which requires a
// single-connection pool) can use it through WriteDB. The read pool has
// several read-only connections; WAL lets them read while a write is under
// way.
//
// All timestamps are stored as unix milliseconds and come back in UTC at
// millisecond precision. Job.Meta is stored as JSON, so its numbers come
// back as float64.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"github.com/docmill/docmill/store/internal/sqltext"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/docmill/docmill"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// EnqueueFunc inserts the queue entry of a new job. CreateJob calls it inside
// its transaction, after the job row is inserted, so that the job and its
// queue entry commit together; an error rolls both back. It must use only
// tx: the write pool has one connection, which tx holds.
type EnqueueFunc func(ctx context.Context, tx *sql.Tx, j *docmill.Job) error

// Store is a docmill.Store on a SQLite file. It is safe for concurrent use.
type Store struct {
	write   *sql.DB
	read    *sql.DB
	enqueue atomic.Pointer[EnqueueFunc]
}

var _ docmill.Store = (*Store)(nil)

//go:embed migrations/*.sql
var migrations embed.FS

// Pragmas of every connection. busy_timeout comes first (the driver applies
// it first anyway) so that the others wait for a lock instead of failing.
const commonPragmas = "_pragma=busy_timeout(10000)&_pragma=foreign_keys(ON)&_pragma=synchronous(NORMAL)"

// Open opens (creating it and its directory if needed) the database at path,
// applies pending migrations and returns the store. enqueue may be nil, in
// which case jobs get no queue entry (tests, the CLI); see SetEnqueue.
func Open(ctx context.Context, path string, enqueue EnqueueFunc) (*Store, error) {
	if path == "" || strings.ContainsRune(path, '?') || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("sqlite: invalid database path %q", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return nil, fmt.Errorf("sqlite: %w", err)
	}
	write := openDB(path + "?_pragma=journal_mode(WAL)&" + commonPragmas + "&_txlock=immediate")
	// One connection: SQLite has one writer at a time anyway, and River's
	// SQLite driver needs a single-connection pool.
	write.SetMaxOpenConns(1)
	s := &Store{write: write}
	s.SetEnqueue(enqueue)
	if err := s.migrate(ctx); err != nil {
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
func (s *Store) SetEnqueue(f EnqueueFunc) {
	if f == nil {
		s.enqueue.Store(nil)
		return
	}
	s.enqueue.Store(&f)
}

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

// Setting returns the setting name, storing value first if it is absent.
// Insert-if-absent then read, in one transaction: whichever caller inserts
// first, every caller gets the stored value.
func (s *Store) Setting(ctx context.Context, name, value string) (string, error) {
	var got string
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, sqltext.SettingInsert, name, value); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, sqltext.SettingSelect, name).Scan(&got)
	})
	if err != nil {
		return "", fmt.Errorf("sqlite: setting %s: %w", name, err)
	}
	return got, nil
}

// inTx runs fn in a write transaction and commits it if fn succeeds.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback() // fn's error is the one that matters
		return err
	}
	return tx.Commit()
}

// migrate applies the embedded migrations not yet recorded in
// schema_migrations, in version order, all in one write transaction so that
// two processes opening a new file at once do not both apply them.
func (s *Store) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	type migration struct {
		version int64
		name    string
	}
	var todo []migration
	for _, name := range names {
		base := filepath.Base(name)
		v, err := strconv.ParseInt(strings.SplitN(base, "_", 2)[0], 10, 64)
		if err != nil {
			return fmt.Errorf("sqlite: migration %s: name must start with a version number", base)
		}
		todo = append(todo, migration{v, name})
	}
	sort.Slice(todo, func(i, j int) bool { return todo[i].version < todo[j].version })
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, sqltext.CreateMigrations); err != nil {
			return err
		}
		applied, err := appliedMigrations(ctx, tx)
		if err != nil {
			return err
		}
		for _, m := range todo {
			if applied[m.version] {
				continue
			}
			text, err := migrations.ReadFile(m.name)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, string(text)); err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			if _, err := tx.ExecContext(ctx, sqltext.RecordMigration, m.version, millis(time.Now())); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("sqlite: migrate: %w", err)
	}
	return nil
}

func appliedMigrations(ctx context.Context, tx *sql.Tx) (map[int64]bool, error) {
	rows, err := tx.QueryContext(ctx, sqltext.AppliedMigrations)
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

// millis is how times are stored: unix milliseconds.
func millis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis is the inverse of millis, in UTC.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// nullMillis stores an optional time; nil is NULL.
func nullMillis(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: millis(*t), Valid: true}
}

// timePtr reads an optional time; NULL is nil.
func timePtr(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromMillis(n.Int64)
	return &t
}

// nullString stores "" as NULL (optional unique columns such as email and
// idempotency_key).
func nullString(s string) sql.NullString {
	return sql.NullString{String: s, Valid: s != ""}
}
