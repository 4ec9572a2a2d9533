package office_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/tools/office"
)

// TestWorkerProfileFromTemplate: a worker starts on a private copy of the
// pool's clean template profile, so its soffice starts once (on an empty
// profile LibreOffice builds it, exits and is started again); no worker
// writes to the template, and a restarted worker gets a new copy, not the
// profile its predecessor used.
func TestWorkerProfileFromTemplate(t *testing.T) {
	dir := t.TempDir()
	p := newPool(t, office.Options{Workers: 1, Dir: dir})
	tl := toolOf(t, p, "word-to-pdf")
	doc := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(doc, []byte("A short document.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, tl, doc, nil); err != nil {
		t.Fatal(err)
	}
	template := filepath.Join(dir, "template", "profile")
	before := treeSum(t, template)
	profile := filepath.Join(dir, "worker-0", "profile")
	if sameFile(t, filepath.Join(template, "user", "registrymodifications.xcu"), filepath.Join(profile, "user", "registrymodifications.xcu")) {
		t.Fatal("the worker's profile shares a file with the template")
	}
	marker := filepath.Join(profile, "user", "left-by-the-last-worker")
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	old := programUnder("soffice.bin", os.Getpid()) // the crashed one may take a moment to go
	office.CrashSoffice(p)
	ctx, stop := context.WithCancel(context.Background())
	launched := make(chan map[int]bool, 1)
	go func() { launched <- watchLaunches(ctx, "soffice.bin", filepath.Join(dir, "worker-0")) }()
	if _, err := run(t, tl, doc, nil); err != nil {
		t.Fatal(err)
	}
	stop()
	seen := <-launched
	for _, pid := range old {
		delete(seen, pid)
	}
	if len(seen) != 1 {
		t.Errorf("the restart launched soffice.bin %d times (%v), want once", len(seen), seen)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the restarted worker kept its predecessor's profile")
	}
	if after := treeSum(t, template); after != before {
		t.Error("the template changed while workers ran")
	}
}

// watchLaunches collects, until ctx ends, the pids of the programs named
// name launched under this process in the jail of the worker whose
// directory is worker (seen at /job in the jail).
func watchLaunches(ctx context.Context, name, worker string) map[int]bool {
	seen := map[int]bool{}
	poll.Sample(ctx, 2*time.Millisecond, func() bool {
		for _, pid := range programUnder(name, os.Getpid()) {
			if inJailOf(pid, worker) && !forkedBy(pid, name) {
				seen[pid] = true
			}
		}
		return false // until ctx ends
	})
	return seen
}

// forkedBy reports whether pid's parent runs the program name too: a
// child it forked (soffice.bin forks helpers), not a launch.
func forkedBy(pid int, name string) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 2 {
		return false
	}
	cmdline, _ := os.ReadFile(filepath.Join("/proc", f[1], "cmdline"))
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return filepath.Base(string(argv0)) == name
}

// inJailOf reports whether pid's jail shows dir as its /job.
func inJailOf(pid int, dir string) bool {
	job, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid), "root", "job"))
	if err != nil {
		return false
	}
	want, err := os.Stat(dir)
	return err == nil && os.SameFile(job, want)
}

// treeSum is a digest of the names and contents of the files under dir.
func treeSum(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		h.Write([]byte(p + "\x00"))
		h.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	var sa, sb syscall.Stat_t
	if err := syscall.Stat(a, &sa); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Stat(b, &sb); err != nil {
		t.Fatal(err)
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino
}
