package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Snapshot writes a consistent copy of the database at src to dst, a file
// that must not exist, while other processes (a running server, River,
// `docmill accounts`) go on reading and writing src.
//
// It runs VACUUM INTO on a connection of its own: a read transaction,
// which in WAL mode neither takes the write lock nor waits for writers,
// so the server's writes go on during the copy; the copy holds every
// transaction committed before it began and none after. The copy is
// compacted (no free pages) and synced to disk before Snapshot returns.
// On error dst may be left partly written: the caller removes it.
func Snapshot(ctx context.Context, src, dst string) error {
	if err := checkPath(src); err != nil {
		return err
	}
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("sqlite: snapshot: %w", err) // opening would create it
	}
	if _, err := os.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sqlite: snapshot: %s exists", dst)
	}
	db := openDB(src + "?" + commonPragmas)
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		return fmt.Errorf("sqlite: snapshot: %w", err)
	}
	// VACUUM INTO does not sync its output: a backup that reported
	// success must survive a power cut.
	return syncFile(dst)
}

// Verify checks that the file at path is a whole docmill database:
// SQLite's PRAGMA integrity_check finds nothing wrong, and it has the
// store's schema (its applied migrations and main tables). It reads the
// file alone, never its write-ahead log: path is a copy nobody writes
// to (a snapshot, a backup). A missing path is an fs.ErrNotExist.
func Verify(ctx context.Context, path string) error {
	if err := checkPath(path); err != nil {
		return err
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("sqlite: verify: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("sqlite: verify: %w", err)
	}
	// Read-only and immutable: SQLite takes no lock and makes no
	// write-ahead log or shared memory beside the file, which nobody
	// writes while it is checked.
	uri := url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro&immutable=1"}
	db := openDB(uri.String())
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := integrityCheck(ctx, db); err != nil {
		return fmt.Errorf("sqlite: verify %s: %w", path, err)
	}
	if err := schemaCheck(ctx, db); err != nil {
		return fmt.Errorf("sqlite: verify %s: %w", path, err)
	}
	return nil
}

// integrityCheck runs PRAGMA integrity_check: one row "ok", or the
// problems it found (at most the first few, in the error).
func integrityCheck(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "PRAGMA integrity_check(20)")
	if err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("integrity check: %w", err)
		}
		problems = append(problems, line)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if len(problems) == 1 && problems[0] == "ok" {
		return nil
	}
	return fmt.Errorf("integrity check failed: %s", strings.Join(problems, "; "))
}

// schemaTables are the tables a docmill database has whatever its
// version (River makes its own tables when a server opens the file).
var schemaTables = []string{"schema_migrations", "accounts", "api_keys", "jobs", "webhooks"}

// schemaCheck reports a database without docmill's schema: another
// application's file, or an empty one.
func schemaCheck(ctx context.Context, db *sql.DB) error {
	for _, name := range schemaTables {
		var n int
		err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name).Scan(&n)
		if err != nil {
			return fmt.Errorf("schema: %w", err)
		}
		if n == 0 {
			return fmt.Errorf("not a docmill database: no table %s", name)
		}
	}
	var applied int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations").Scan(&applied); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if applied == 0 {
		return errors.New("not a docmill database: no migration applied")
	}
	return nil
}

// checkPath refuses what Open refuses: a path the driver would read as
// a URI or as carrying parameters.
func checkPath(path string) error {
	if path == "" || strings.ContainsRune(path, '?') || strings.HasPrefix(path, "file:") {
		return fmt.Errorf("sqlite: invalid database path %q", path)
	}
	return nil
}

// syncFile flushes the file at path, and its directory's entry of it, to
// the disk.
func syncFile(path string) error {
	for _, p := range []string{path, filepath.Dir(path)} {
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("sqlite: sync: %w", err)
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return fmt.Errorf("sqlite: sync: %w", err)
		}
	}
	return nil
}
