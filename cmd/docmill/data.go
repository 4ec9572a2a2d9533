package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/store/sqlite"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

// dataFlags locate the data, shared by every command that opens it.
type dataFlags struct {
	dataDir     string
	databaseURL string
	blobURL     string
}

func (d *dataFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&d.dataDir, "data-dir", "./data", "directory of the SQLite database (docmill.db), result files (blobs/) and scratch space (tmp/)")
	fs.StringVar(&d.databaseURL, "database-url", "", "PostgreSQL URL (postgres://user@host:5432/db?sslmode=disable&search_path=schema) for metadata and queue; empty: SQLite in --data-dir")
	fs.StringVar(&d.blobURL, "blob-url", "", "bucket for uploads and results, such as s3://bucket?region=us-east-1 (with endpoint=http://host:port&use_path_style=true for MinIO and the like; credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY); empty: --data-dir/blobs")
}

// requireSQLite refuses to work on a SQLite database that does not exist
// (a command run from another directory than the server's would create
// an empty one, whose accounts and keys the server never sees): it says
// where it looked and how to point at the server's data (exit code 66).
// With create (accounts create, a new deployment's first key) it creates
// one, and says so on stderr with its absolute path.
func (d *dataFlags) requireSQLite(env *environment, create bool) error {
	if d.databaseURL != "" {
		return nil
	}
	_, err := os.Stat(d.dbPath())
	if !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	abs, _ := filepath.Abs(d.dbPath())
	if !create {
		return fmt.Errorf("no database at %s (%w): give the server's --data-dir or set DOCMILL_DATA_DIR (or --database-url for PostgreSQL)", abs, fs.ErrNotExist)
	}
	fmt.Fprintf(env.stderr, "no database at %s yet: creating one; a server sees this account only when it runs with --data-dir %s\n", abs, d.dataDir)
	return nil
}

func (d *dataFlags) dbPath() string  { return filepath.Join(d.dataDir, "docmill.db") }
func (d *dataFlags) blobDir() string { return filepath.Join(d.dataDir, "blobs") }

// scratch is the jobs' scratch directory, as an absolute path: engines
// see it at the same path inside their jail, whatever their working
// directory.
func (d *dataFlags) scratch() string {
	p := filepath.Join(d.dataDir, "tmp")
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

// openBlob opens the file store: the bucket at --blob-url, else the
// directory --data-dir/blobs. A bucket that cannot be reached at start-up
// is not fatal: /readyz reports it until it answers.
func (d *dataFlags) openBlob(ctx context.Context) (*blob.Bucket, error) {
	if d.blobURL == "" {
		return blob.OpenDir(d.blobDir())
	}
	return blob.OpenURL(ctx, d.blobURL)
}

// database is what a node's metadata and queue run on: a store and the
// River driver that shares its connections. Serving is the same code on
// every database; only opening differs (openDatabase).
type database interface {
	// Store is the store; its enqueue hook is set by queue.
	Store() docmill.Store
	// queue builds the job queue on the database's River driver and makes
	// it the store's enqueue hook, so a job row and its queue entry commit
	// together. It may adjust cfg to the database (polling, notifications).
	queue(cfg jobs.Config) (nodeQueue, error)
	// describe says where the data is, for the start-up line; no secrets.
	describe() string
	// forgetAccount removes the queue entries of an account's jobs,
	// deliveries and mails (jobs.ForgetAccount), after its records are
	// deleted.
	forgetAccount(ctx context.Context, accountID, email string) (int, error)
	Close()
}

// nodeQueue is a jobs.Queue whatever its driver's transaction type.
type nodeQueue interface {
	docmill.Queue
	docmill.Outbox
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	NodeID() string
}

// errNotMigrated says how to get out of an unmigrated database.
var errNotMigrated = errors.New("run docmill migrate or pass --migrate to serve")

// openDatabase opens the database of d: PostgreSQL for a --database-url,
// else SQLite in --data-dir. SQLite is always migrated (the file belongs
// to this one process). PostgreSQL is shared: it is migrated only if
// migrate is set, and otherwise it must already be migrated.
func openDatabase(ctx context.Context, d *dataFlags, migrate bool) (database, error) {
	switch {
	case d.databaseURL == "":
		return openSQLite(ctx, d)
	case strings.HasPrefix(d.databaseURL, "postgres://"), strings.HasPrefix(d.databaseURL, "postgresql://"):
		return openPostgres(ctx, d, migrate)
	}
	return nil, errors.New("--database-url: want a postgres:// URL, or none for SQLite")
}

// sqliteDB is the embedded database: SQLite with riversqlite.
type sqliteDB struct {
	st  *sqlite.Store
	dir string
}

// openSQLite opens the SQLite store (migrating it) and River's schema in it.
func openSQLite(ctx context.Context, d *dataFlags) (*sqliteDB, error) {
	st, err := sqlite.Open(ctx, d.dbPath(), nil)
	if err != nil {
		return nil, err
	}
	if err := migrateRiverSQLite(ctx, st.WriteDB()); err != nil {
		st.Close()
		return nil, err
	}
	return &sqliteDB{st: st, dir: d.dataDir}, nil
}

func migrateRiverSQLite(ctx context.Context, db *sql.DB) error {
	m, err := rivermigrate.New(riversqlite.New(db), nil)
	if err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return nil
}

func (s *sqliteDB) Store() docmill.Store { return s.st }
func (s *sqliteDB) describe() string     { return "data in " + s.dir }
func (s *sqliteDB) Close()               { s.st.Close() }

func (s *sqliteDB) forgetAccount(ctx context.Context, accountID, email string) (int, error) {
	return jobs.ForgetAccount(ctx, riversqlite.New(s.st.WriteDB()), accountID, email)
}

func (s *sqliteDB) queue(cfg jobs.Config) (nodeQueue, error) {
	// One server works an embedded database (it locks the data
	// directory): jobs left running at its start were its own.
	cfg.SoleWorker = true
	q, err := jobs.New(riversqlite.New(s.st.WriteDB()), cfg)
	if err != nil {
		return nil, err
	}
	s.st.SetEnqueue(q.InsertTx)
	s.st.SetDeliver(q.DeliverTx) // a finished job's webhook deliveries commit with its finish
	// SQLite cannot notify workers: the server wakes its own at each
	// commit of a new job, and they poll only as a safety net.
	s.st.SetEnqueued(q.Enqueued)
	return q, nil
}

func migrate(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("migrate", "migrate [flags]  (apply the database migrations and exit)")
	var d dataFlags
	d.register(fs)
	if err := env.parse(fs, args); err != nil {
		return err
	}
	db, err := openDatabase(ctx, &d, true)
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintln(env.stdout, "migrated", db.describe())
	return nil
}
