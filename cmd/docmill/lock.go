package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockFile is the file in --data-dir that an embedded server holds locked
// while it runs; it contains the server's pid.
const lockFile = "docmill.lock"

// lockDataDir takes the data directory dir for this server's whole life:
// an exclusive flock on dir/docmill.lock, released by unlock or, whatever
// happens, by the kernel when the process ends (kill -9 included). Two
// servers working the jobs of one SQLite database and one file store would
// both run its queue and janitor, and the second's start-up would look
// like success (on another port); so a second one is refused at start,
// naming the directory and the pid that holds it.
//
// Only serve takes the lock, and only a node that works jobs (role all or
// worker): `docmill accounts` and `migrate`, like an API-only node beside one
// worker node, share the database with the running server through
// SQLite's own locking (WAL mode allows it).
func lockDataDir(dir string) (unlock func(), err error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("data directory %s: %w", dir, err)
	}
	// O_CLOEXEC (Go's default) keeps the lock out of engine processes,
	// which would otherwise hold it after this server ended.
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data directory %s: %w", dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another docmill server is using the data directory %s (pid %s)", dir, lockHolder(f))
		}
		return nil, fmt.Errorf("lock data directory %s: %w", dir, err)
	}
	// The pid is for the message above; the lock, not the file's
	// contents, decides.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}

// lockHolder reads the pid a lock holder wrote, or "unknown".
func lockHolder(f *os.File) string {
	b, err := io.ReadAll(io.LimitReader(f, 32))
	pid := strings.TrimSpace(string(b))
	if _, perr := strconv.Atoi(pid); err != nil || perr != nil {
		return "unknown"
	}
	return pid
}
