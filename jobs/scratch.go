package jobs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/docmill/docmill"
)

// Scratch layout. Every file a node writes while it works -- the jobs'
// directories (inputs are hard-linked into them), the warm engines'
// profiles and staging areas, the PDF helpers' directories -- lives under
// one scratch root (the data directory's tmp/), in the node's own
// directory:
//
//	<root>/<node>/.lock                  held (flock) for the node's life
//	<root>/<node>/job-<jobID>-<random>   one per job attempt
//	<root>/<node>/docmill-office-*, docmill-chromium-*, docmill-helpers-*, ...
//
// A node directory whose lock nobody holds belongs to no living process,
// since the kernel drops a flock when its holder dies, SIGKILL included.
// So nothing of a user's file outlives its job by more than a janitor
// pass: a node empties its own directory when it starts (ClaimScratch),
// and the janitor (Sweep) empties the directories of dead nodes and
// removes the job directories of finished or unknown jobs.

// nodeLock is the lock file of a node directory; it stays when the
// directory is emptied, so that the lock is always on one file.
const nodeLock = ".lock"

// scratchGrace is how old a job directory must be before the janitor
// removes it, however its job stands: a directory is made just after its
// job is marked processing, and one a moment old may belong to an attempt
// the janitor has not yet seen start.
const scratchGrace = time.Minute

// Scratch is a node's own scratch directory, locked for the node's life.
type Scratch struct {
	// ID names the node: its directory under the root.
	ID string
	// Dir is the node's directory, <root>/<ID>, as an absolute path.
	Dir  string
	lock *os.File
}

// ClaimScratch takes the scratch directory of the node id under root and
// empties it: whatever is in it was left by an earlier life of the node
// (killed, crashed) and no job needs it, since a job's next attempt makes
// a directory of its own. An id whose directory a live process holds is
// refused. With id "", the node takes the first free one of host,
// host-2, host-3, ... (host: this machine's name), so that servers sharing
// a data directory each get their own, and a restarted one usually gets
// its former directory back.
func ClaimScratch(root, id string) (*Scratch, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if id != "" {
		if err := checkNodeID(id); err != nil {
			return nil, err
		}
		// The janitor holds a dead node's lock while it empties the
		// directory: wait that out before calling the id taken.
		for range 50 {
			s, err := claimNode(root, id)
			if !errors.Is(err, errNodeBusy) {
				return s, err
			}
			time.Sleep(100 * time.Millisecond)
		}
		return nil, fmt.Errorf("scratch %s: node id %q is in use by another process on this data directory; give each server its own --node-id", root, id)
	}
	host := hostID()
	for i := 1; i <= 1000; i++ {
		id := host
		if i > 1 {
			id += "-" + strconv.Itoa(i)
		}
		s, err := claimNode(root, id)
		if !errors.Is(err, errNodeBusy) {
			return s, err
		}
	}
	return nil, fmt.Errorf("scratch %s: no free node id for host %q", root, host)
}

var errNodeBusy = errors.New("node directory in use")

// claimNode locks and empties <root>/<id>, or returns errNodeBusy.
func claimNode(root, id string) (*Scratch, error) {
	dir := filepath.Join(root, id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lock, err := lockNode(dir)
	if err != nil {
		return nil, err
	}
	if err := emptyNode(dir); err != nil {
		lock.Close()
		return nil, err
	}
	return &Scratch{ID: id, Dir: dir, lock: lock}, nil
}

// Close empties the node's directory and releases it. Call it once
// everything that used the directory (queue, engines) has stopped.
func (s *Scratch) Close() error {
	err := emptyNode(s.Dir)
	return errors.Join(err, s.lock.Close())
}

// lockNode takes the lock of node directory dir without waiting; a lock
// held elsewhere (another process, or another claim in this one) is
// errNodeBusy.
func lockNode(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, nodeLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errNodeBusy
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return f, nil
}

// emptyNode removes everything in node directory dir but its lock file.
func emptyNode(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if e.Name() != nodeLock {
			errs = append(errs, removeSettled(filepath.Join(dir, e.Name())))
		}
	}
	return errors.Join(errs...)
}

// removeSettled removes path and everything in it. A directory that
// fills again while it is removed ("directory not empty") is tried again
// for up to settleWait: a node killed a moment ago releases its lock when
// it dies, but its engines (a browser writing to its profile) take a
// little longer to die, and the node's next life must still start.
func removeSettled(path string) error {
	return settle(func() error { return os.RemoveAll(path) }, settleWait)
}

// settleWait bounds removeSettled's retries.
const settleWait = 5 * time.Second

// settle calls remove until it does not fail with ENOTEMPTY, or wait has
// passed, and returns its last error.
func settle(remove func() error, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := remove()
		if !errors.Is(err, syscall.ENOTEMPTY) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// isNodeDir reports whether dir is a node directory: it has a lock file.
func isNodeDir(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, nodeLock))
	return err == nil && st.Mode().IsRegular()
}

// checkNodeID refuses an id that is not a plain directory name.
func checkNodeID(id string) error {
	if id == "" || len(id) > 100 || strings.HasPrefix(id, ".") || strings.HasPrefix(id, "job-") || sanitizeID(id) != id {
		return fmt.Errorf("node id %q: want letters, digits, '.', '_' and '-', not starting with '.' or job-", id)
	}
	return nil
}

// hostID is this machine's name as a node id, "node" if it has none.
func hostID() string {
	h, _ := os.Hostname()
	h = strings.TrimLeft(sanitizeID(h), ".")
	if h == "" || strings.HasPrefix(h, "job-") {
		return "node"
	}
	return h[:min(len(h), 90)]
}

// sanitizeID replaces what a node id may not hold with '_'.
func sanitizeID(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}

// jobDirPrefix starts the name of every job directory: job-<jobID>-<random>.
const jobDirPrefix = "job-"

// jobDirPattern is the os.MkdirTemp pattern of a directory of job id.
func jobDirPattern(id string) string { return jobDirPrefix + id + "-" }

// jobOfDir is the job id in a job directory's name.
func jobOfDir(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, jobDirPrefix)
	i := strings.LastIndexByte(rest, '-')
	if !ok || i <= 0 {
		return "", false
	}
	return rest[:i], true
}

// sweepScratch removes the scratch no job needs any more: it empties the
// directories of dead nodes under the scratch root (their lock is free)
// and removes, in the directories of live ones, the job directories of
// jobs that are finished or unknown (see sweepJobDir). The root is the
// parent of Config.ScratchDir when that is a node directory
// (ClaimScratch); any other ScratchDir is swept alone, and none (the
// system's temporary directory) is not swept at all. On PostgreSQL the
// janitor runs on one node at a time: it sweeps the scratch of the nodes
// on its own disk, and every node empties its own when it starts. A
// failure is logged, not returned: the janitor's other work goes on.
func (q *Queue[TTx]) sweepScratch(ctx context.Context) {
	if err := q.sweepScratchDirs(ctx); err != nil {
		q.cfg.Logger.Warn("sweep scratch", "err", err)
	}
}

func (q *Queue[TTx]) sweepScratchDirs(ctx context.Context) error {
	own := q.cfg.ScratchDir
	if own == "" {
		return nil
	}
	if !isNodeDir(own) {
		return q.sweepJobDirs(ctx, own)
	}
	root := filepath.Dir(own)
	entries, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(root, e.Name())
		switch {
		case !e.IsDir():
		case isNodeDir(p):
			if p != own && emptyIfDead(p) {
				continue
			}
			if err := q.sweepJobDirs(ctx, p); err != nil {
				return err
			}
		case strings.HasPrefix(e.Name(), jobDirPrefix):
			// Left at the root by a version without node directories.
			if err := q.sweepJobDir(ctx, p, e.Name()); err != nil {
				return err
			}
		}
	}
	return nil
}

// emptyIfDead empties node directory dir if no living process holds it,
// and reports whether it did.
func emptyIfDead(dir string) bool {
	lock, err := lockNode(dir)
	if err != nil {
		return false
	}
	defer lock.Close()
	return emptyNode(dir) == nil
}

// sweepJobDirs applies sweepJobDir to the job directories in dir.
func (q *Queue[TTx]) sweepJobDirs(ctx context.Context, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), jobDirPrefix) {
			if err := q.sweepJobDir(ctx, filepath.Join(dir, e.Name()), e.Name()); err != nil {
				return err
			}
		}
	}
	return nil
}

// sweepJobDir removes the job directory at path, named name, unless its
// job may still use it: the job runs in this process, or is queued or
// processing (an attempt elsewhere, or one River will rescue and retry),
// or the directory is younger than scratchGrace. A finished job's
// directory, or one whose job record is gone, is removed.
func (q *Queue[TTx]) sweepJobDir(ctx context.Context, path, name string) error {
	id, ok := jobOfDir(name)
	if !ok || q.runsHere(id) {
		return nil
	}
	st, err := os.Lstat(path)
	if err != nil || time.Since(st.ModTime()) < scratchGrace {
		return nil
	}
	j, err := q.cfg.Store.Job(ctx, id)
	switch {
	case errors.Is(err, docmill.ErrNotFound):
	case err != nil:
		return err
	case !j.Status.Finished():
		return nil
	}
	if err := os.RemoveAll(path); err != nil {
		q.cfg.Logger.Warn("remove job scratch", "job_id", id, "err", err)
	}
	return nil
}

// runsHere reports whether an attempt of job id runs in this process.
func (q *Queue[TTx]) runsHere(id string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	_, ok := q.running[id]
	return ok
}
