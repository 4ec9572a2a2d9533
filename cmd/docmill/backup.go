package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/docmill/docmill/store/sqlite"
)

// A backup is a directory: the database's snapshot, and with --with-files
// the file store's files in the layout of --data-dir/blobs.
const (
	backupDatabase = "docmill.db"
	backupFiles    = "files"
)

// backupFlags are the flags of `docmill backup`.
type backupFlags struct {
	data      dataFlags
	to        string
	withFiles bool
}

// backupCmd is `docmill backup`: a consistent snapshot of an embedded
// deployment's database, taken beside a running server without its lock,
// checked before it counts, and with --with-files the stored files too.
func backupCmd(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("backup", "backup --to PATH [--with-files] [flags]  (copy the embedded database, and its files, while the server runs)")
	var f backupFlags
	f.data.register(fs)
	fs.StringVar(&f.to, "to", "", "directory to create for the backup (docmill.db, and files/ with --with-files); must not exist")
	fs.BoolVar(&f.withFiles, "with-files", false, "also copy the stored inputs and results (--data-dir/blobs), after the database")
	if err := env.parse(fs, args); err != nil {
		return err
	}
	if err := refusePostgresShape(&f.data, "backup"); err != nil {
		return err
	}
	if f.to == "" {
		return usagef("backup: --to PATH is required (docmill backup -h)")
	}
	if f.withFiles && f.data.blobURL != "" {
		return usagef("backup: --with-files copies --data-dir/blobs, but the files are in the bucket of --blob-url: keep them with the bucket's own versioning or replication (docs/operations.md, Backups and restore)")
	}
	if err := f.data.requireSQLite(env, false); err != nil {
		return err
	}
	return f.run(ctx, env)
}

// run writes the backup; whatever fails, nothing of it is left.
func (f *backupFlags) run(ctx context.Context, env *environment) (err error) {
	if err := createNew(f.to); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(f.to)
		}
	}()
	start := time.Now()
	db := filepath.Join(f.to, backupDatabase)
	if err := sqlite.Snapshot(ctx, f.data.dbPath(), db); err != nil {
		return fmt.Errorf("backup: %w; nothing was kept", err)
	}
	if err := sqlite.Verify(ctx, db); err != nil {
		return fmt.Errorf("backup: the snapshot failed its check, nothing was kept: %w", err)
	}
	fi, err := os.Stat(db)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "wrote %s (%s, integrity ok) in %s\n", db, humanBytes(fi.Size()), time.Since(start).Round(time.Millisecond))
	if !f.withFiles {
		return nil
	}
	start = time.Now()
	dst := filepath.Join(f.to, backupFiles)
	n, size, err := copyFiles(ctx, f.data.blobDir(), dst)
	if err != nil {
		return fmt.Errorf("backup: files: %w; nothing was kept", err)
	}
	fmt.Fprintf(env.stdout, "wrote %s (%d files, %s) in %s\n", dst, n, humanBytes(size), time.Since(start).Round(time.Millisecond))
	return nil
}

// createNew creates the directory path, refusing one that exists (a
// backup never overwrites another); its parents are created as needed.
func createNew(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return err
	}
	err := os.Mkdir(path, 0o750)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("backup: %s exists; a backup never overwrites one: give a new --to", path)
	}
	return err
}

// refusePostgresShape refuses command (backup, restore) on the PostgreSQL
// shape, whose data the database's and the bucket's own tools keep.
func refusePostgresShape(d *dataFlags, command string) error {
	if d.databaseURL == "" {
		return nil
	}
	return usagef("%s works on the embedded shape's SQLite database (--data-dir); with --database-url the data is PostgreSQL's: "+
		"back it up with pg_dump (or continuous archiving) and restore it with pg_restore, and keep the bucket's files with "+
		"its own versioning and lifecycle rules (docs/operations.md, Backups and restore)", command)
}
