package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runErr runs a docmill command in-process and returns its stdout and
// error.
func runErr(args ...string) (string, error) {
	var out bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, nil, &out, io.Discard)
	return out.String(), err
}

// exitOf checks that err is a failure of exit code code whose message
// holds every part.
func exitOf(t *testing.T, what string, err error, code int, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error; want exit %d with %q", what, code, parts)
	}
	if got := exitCodeOf(err); got != code {
		t.Errorf("%s: exit %d (%v), want %d", what, got, err, code)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q lacks %q", what, err, p)
		}
	}
}

// corrupt overwrites the database file at path after its first page
// (the header and the schema), as a failing disk would.
func corrupt(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte{0xa5}, int(fi.Size()-4096)), 4096); err != nil {
		t.Fatal(err)
	}
}

// TestBackupRefusals: backup refuses an existing PATH (leaving it as it
// was), the PostgreSQL shape (pointing to pg_dump), a data directory
// without a database (exit 66), --with-files with a bucket, and a
// corrupted database, after which nothing of PATH is left.
func TestBackupRefusals(t *testing.T) {
	t.Parallel() // its directories are its own
	dir := t.TempDir()
	newKey(t, dir, "pro")
	existing := t.TempDir()
	if err := os.WriteFile(filepath.Join(existing, "mine"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := runErr("backup", "--data-dir", dir, "--to", existing)
	exitOf(t, "existing PATH", err, exitFailure, "exists", "never overwrites")
	if entries, _ := os.ReadDir(existing); len(entries) != 1 {
		t.Errorf("backup changed the existing PATH: %v", entries)
	}
	to := filepath.Join(t.TempDir(), "b")
	_, err = runErr("backup", "--data-dir", dir, "--to", to, "--database-url", "postgres://u@127.0.0.1:5432/test")
	exitOf(t, "postgres", err, exitUsage, "pg_dump", "versioning")
	_, err = runErr("backup", "--data-dir", t.TempDir(), "--to", to)
	exitOf(t, "no database", err, exitNoInput, "no database")
	_, err = runErr("backup", "--data-dir", dir, "--to", to, "--with-files", "--blob-url", "s3://bucket?region=x")
	exitOf(t, "files in a bucket", err, exitUsage, "bucket")
	_, err = runErr("backup", "--data-dir", dir)
	exitOf(t, "no --to", err, exitUsage, "--to")
	if _, err := os.Stat(to); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a refused backup left %s: %v", to, err)
	}

	corrupt(t, filepath.Join(dir, "docmill.db"))
	_, err = runErr("backup", "--data-dir", dir, "--to", to)
	exitOf(t, "corrupted database", err, exitFailure, "nothing was kept")
	if _, err := os.Stat(to); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a failed backup left %s: %v", to, err)
	}
}

// TestRestoreRefusals: restore refuses a directory that holds a database
// (unless --force), a directory a server holds (even with --force), the
// PostgreSQL shape, a path that is no backup (exit 66), and a corrupted
// backup, which leaves the data directory unchanged.
func TestRestoreRefusals(t *testing.T) {
	t.Parallel() // its directories are its own
	dir := t.TempDir()
	newKey(t, dir, "pro")
	backup := filepath.Join(t.TempDir(), "backup")
	runCLI(t, "backup", "--data-dir", dir, "--to", backup)

	_, err := runErr("restore", "--data-dir", dir, "--from", backup)
	exitOf(t, "a database there", err, exitFailure, "holds a database", "--force")
	locked := t.TempDir()
	unlock, err := lockDataDir(locked)
	if err != nil {
		t.Fatal(err)
	}
	for _, force := range []string{"--force=false", "--force"} {
		_, err = runErr("restore", "--data-dir", locked, "--from", backup, force)
		exitOf(t, "a server there "+force, err, exitFailure, "another docmill server")
	}
	unlock()
	_, err = runErr("restore", "--data-dir", t.TempDir(), "--from", backup, "--database-url", "postgres://u@127.0.0.1:5432/test")
	exitOf(t, "postgres", err, exitUsage, "pg_restore")
	_, err = runErr("restore", "--data-dir", t.TempDir(), "--from", t.TempDir())
	exitOf(t, "not a backup", err, exitNoInput, "not a backup")
	_, err = runErr("restore", "--data-dir", t.TempDir(), "--from", "ftp://host/replica")
	exitOf(t, "a URL that is no replica target", err, exitUsage, "ftp")
	empty := t.TempDir()
	_, err = runErr("restore", "--data-dir", t.TempDir(), "--from", "file://"+empty)
	exitOf(t, "a replica target with no replica", err, exitFailure, "holds no replica")
	_, err = runErr("restore", "--data-dir", t.TempDir(), "--from", backup, "--at", "2026-11-28T05:00:00Z")
	exitOf(t, "--at with a backup directory", err, exitUsage, "point in time")
	_, err = runErr("restore", "--data-dir", t.TempDir(), "--from", "file://"+empty, "--at", "yesterday")
	exitOf(t, "--at not a time", err, exitUsage, "want a time")

	out, err := runErr("restore", "--data-dir", dir, "--from", backup, "--force")
	if err != nil || !strings.Contains(out, "integrity ok") {
		t.Fatalf("restore --force over a database: %v\n%s", err, out)
	}
	corrupt(t, filepath.Join(backup, "docmill.db"))
	target := t.TempDir()
	_, err = runErr("restore", "--data-dir", target, "--from", backup)
	exitOf(t, "corrupted backup", err, exitFailure, "failed its check", "unchanged")
	entries, _ := os.ReadDir(target)
	for _, e := range entries {
		if e.Name() != lockFile {
			t.Errorf("a failed restore left %s in the data directory", e.Name())
		}
	}
}
