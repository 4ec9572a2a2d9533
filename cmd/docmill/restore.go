package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/docmill/docmill/replica"
	"github.com/docmill/docmill/store/sqlite"
)

// restoreFlags are the flags of `docmill restore`.
type restoreFlags struct {
	data  dataFlags
	from  string
	at    string
	force bool
}

// restoreCmd is `docmill restore`: a backup made by `docmill backup`
// made the database (and files) of an embedded data directory, checked
// before it replaces anything.
func restoreCmd(ctx context.Context, env *environment, args []string) error {
	fs := newFlags("restore", "restore --from PATH|URL [--at TIME] [--force] [flags]  (make --data-dir's database, and files, from a backup or a replica)")
	var f restoreFlags
	f.data.register(fs)
	fs.StringVar(&f.from, "from", "", "the backup: a directory written by docmill backup, or a replica's URL as given to serve --replicate-to (file:///dir, s3://bucket[/prefix]?...)")
	fs.StringVar(&f.at, "at", "", "with a replica's URL: the state at this time (RFC 3339, such as 2026-11-28T05:00:00Z) instead of the latest")
	fs.BoolVar(&f.force, "force", false, "replace the database the data directory holds (never while a server runs on it)")
	if err := env.parse(fs, args); err != nil {
		return err
	}
	if err := refusePostgresShape(&f.data, "restore"); err != nil {
		return err
	}
	if f.from == "" {
		return usagef("restore: --from PATH is required (docmill restore -h)")
	}
	var at time.Time
	if f.at != "" {
		t, err := time.Parse(time.RFC3339Nano, f.at)
		if err != nil {
			return usagef("restore: --at %s: want a time such as 2026-11-28T05:00:00Z", f.at)
		}
		at = t
	}
	src, err := openRestoreSource(f.from, at)
	if err != nil {
		return err
	}
	return f.run(ctx, env, src)
}

// restoreSource is a backup as restore reads it: the one seam between
// where backups come from and how a data directory is made of one.
type restoreSource struct {
	// copyDatabase writes the backup's SQLite database to dst, a new
	// file; restore checks it before it uses it.
	copyDatabase func(ctx context.Context, dst string) error
	// files is a directory of the backup's stored files, in the layout
	// of --data-dir/blobs; "" when the backup has none.
	files string
}

// openRestoreSource resolves --from: a replica's URL (its database at
// at, the latest if zero; a replica holds no files), or a directory
// written by docmill backup (at must be zero).
func openRestoreSource(from string, at time.Time) (*restoreSource, error) {
	if strings.Contains(from, "://") {
		if _, err := replica.ParseTarget(from); err != nil {
			return nil, usagef("restore: --from %s: %v", from, err)
		}
		return &restoreSource{copyDatabase: func(ctx context.Context, dst string) error {
			return replica.Restore(ctx, from, dst, at)
		}}, nil
	}
	if !at.IsZero() {
		return nil, usagef("restore: --at restores a replica to a point in time; a backup directory holds one moment")
	}
	db := filepath.Join(from, backupDatabase)
	if _, err := os.Stat(db); err != nil {
		return nil, fmt.Errorf("restore: %s is not a backup made by docmill backup: %w", from, err)
	}
	src := &restoreSource{copyDatabase: func(ctx context.Context, dst string) error { return copyFile(ctx, db, dst) }}
	if fi, err := os.Stat(filepath.Join(from, backupFiles)); err == nil && fi.IsDir() {
		src.files = filepath.Join(from, backupFiles)
	}
	return src, nil
}

// run restores src into the data directory. It holds the directory's
// lock throughout, as a server does: it refuses a directory a server
// works on, and no server starts on it until the restore is whole. The
// database is copied beside the live one and checked; only then are the
// files copied and the database renamed into place, so a failed restore
// leaves the data directory's database as it was.
func (f *restoreFlags) run(ctx context.Context, env *environment, src *restoreSource) (err error) {
	unlock, err := lockDataDir(f.data.dataDir)
	if err != nil {
		return fmt.Errorf("restore: %w: stop it first", err)
	}
	defer unlock()
	live := f.data.dbPath()
	if _, err := os.Stat(live); err == nil && !f.force {
		return fmt.Errorf("restore: %s holds a database already: restore into an empty data directory, or give --force to replace it", f.data.dataDir)
	}
	start := time.Now()
	tmp := live + ".restoring"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	defer os.Remove(tmp) // gone once renamed into place
	if err := src.copyDatabase(ctx, tmp); err != nil {
		return fmt.Errorf("restore: %w; the data directory is unchanged", err)
	}
	if err := sqlite.Verify(ctx, tmp); err != nil {
		return fmt.Errorf("restore: the backup failed its check, the data directory is unchanged: %w", err)
	}
	if src.files != "" {
		n, size, err := copyFiles(ctx, src.files, f.data.blobDir())
		if err != nil {
			return fmt.Errorf("restore: files: %w; the database is unchanged", err)
		}
		fmt.Fprintf(env.stdout, "restored %d files (%s) into %s\n", n, humanBytes(size), f.data.blobDir())
	}
	if err := install(tmp, live); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	fi, err := os.Stat(live)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "restored %s (%s, integrity ok) in %s; start the server with --data-dir %s\n",
		live, humanBytes(fi.Size()), time.Since(start).Round(time.Millisecond), f.data.dataDir)
	return nil
}

// install renames the checked database tmp to live. The write-ahead log
// and shared memory of a database it replaces go first: SQLite would
// replay the old log onto the restored file.

func install(tmp, live string) error {
	for _, side := range []string{live + "-wal", live + "-shm"} {
		if err := os.Remove(side); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	// The replica's staging area of the database replaced (serve
	// --replicate-to): its transactions are not the restored file's.
	if err := os.RemoveAll(replicaStaging(live)); err != nil {
		return err
	}
	if err := os.Rename(tmp, live); err != nil {
		return err
	}
	return syncDir(filepath.Dir(live))
}

// replicaStaging is the directory beside the database at path where
// replication stages its transactions (Litestream's .<name>-litestream).
func replicaStaging(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+"-litestream")
}

// copyFiles copies the regular files under src to the same paths under
// dst (created as needed; a file already there is replaced) and returns
// how many it copied and their bytes. A file or directory removed while
// it walks (a result expired, an input deleted when its job ended) is
// not an error, and a missing src is an empty one. The file store's
// writes in progress (fileblob's "*.tmp", renamed into place when whole)
// are left out.
func copyFiles(ctx context.Context, src, dst string) (n int, size int64, err error) {
	if err := os.MkdirAll(dst, 0o750); err != nil {
		return 0, 0, err
	}
	dirs := []string{dst}
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			dirs = append(dirs, target)
			return os.MkdirAll(target, 0o750)
		case !d.Type().IsRegular() || strings.HasSuffix(path, ".tmp"):
			return nil
		}
		err = copyFile(ctx, path, target)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		n++
		if fi, err := os.Stat(target); err == nil {
			size += fi.Size()
		}
		return nil
	})
	if err != nil {
		return n, size, err
	}
	for _, d := range dirs {
		if err := syncDir(d); err != nil {
			return n, size, err
		}
	}
	return n, size, nil
}

// copyFile copies the file src to dst, replacing dst, and syncs it to
// the disk. A missing src is fs.ErrNotExist.
func copyFile(ctx context.Context, src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o640)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, contextReader{ctx, in}); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// contextReader is r that fails once ctx is done, so that a long copy
// stops at Ctrl-C.
type contextReader struct {
	ctx context.Context
	r   io.Reader
}

func (c contextReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// syncDir flushes the directory dir's entries to the disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
