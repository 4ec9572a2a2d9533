package jobs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/store/sqlite"
)

// TestClaimScratch: a node's directory is its own while it lives, and
// what an earlier life left in it is gone when it is claimed again.
func TestClaimScratch(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	a, err := jobs.ClaimScratch(root, "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := jobs.ClaimScratch(root, "")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == b.ID || filepath.Dir(a.Dir) != root || filepath.Dir(b.Dir) != root {
		t.Fatalf("two live nodes got %s and %s", a.Dir, b.Dir)
	}
	if _, err := jobs.ClaimScratch(root, a.ID); err == nil {
		t.Fatalf("node id %s claimed twice", a.ID)
	}
	if _, err := jobs.ClaimScratch(root, "../x"); err == nil {
		t.Fatal("a node id with a path was accepted")
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// A dead node's leftovers (its lock is free once it is gone).
	leftover := write(t, a.Dir, "job-job_x-123/input-0.pdf")
	write(t, a.Dir, "docmill-office-1/worker-0/doc.docx")
	again, err := jobs.ClaimScratch(root, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Fatalf("the earlier life's %s stayed: %v", leftover, err)
	}
	if entries, _ := os.ReadDir(again.Dir); len(entries) != 1 {
		t.Fatalf("claimed directory holds %d entries, want only its lock", len(entries))
	}
}

// TestSweepScratch: the janitor removes job directories of finished and
// unknown jobs, keeps those of queued and processing jobs and fresh ones,
// and empties the directory of a dead node.
func TestSweepScratch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := sqlite.Open(ctx, dir+"/docmill.db", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bucket, err := blob.OpenDir(dir + "/blobs")
	if err != nil {
		t.Fatal(err)
	}
	defer bucket.Close()
	sc, err := jobs.ClaimScratch(dir+"/tmp", "live")
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	migrateRiver(t, riversqlite.New(st.WriteDB())) // the sweep also removes ended mail from River's table
	q, err := jobs.New(riversqlite.New(st.WriteDB()), jobs.Config{Store: st, Blob: bucket, Registry: docmill.NewRegistry(), ScratchDir: sc.Dir})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	acct := &docmill.Account{ID: "acct_1", Name: "a", Plan: docmill.PlanPro, CreatedAt: now}
	_, key := docmill.NewAPIKey(acct.ID, "k", now)
	if err := st.CreateAccount(ctx, acct, &key); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"job_done", "job_queued", "job_processing"} {
		j := &docmill.Job{ID: id, AccountID: acct.ID, Tool: "rotate-pdf", Status: docmill.StatusQueued, Priority: 3, ResultTTL: time.Hour, CreatedAt: now}
		if _, err := st.CreateJob(ctx, j, docmill.Admission{Period: "2026-11"}); err != nil {
			t.Fatal(err)
		}
		if id == "job_queued" {
			continue
		}
		if _, err := st.StartJob(ctx, id, now); err != nil {
			t.Fatal(err)
		}
		if id == "job_done" {
			j.Status, j.FinishedAt = docmill.StatusFailed, &now
			j.Error = &docmill.JobError{Code: docmill.CodeInternal, Message: "x"}
			if ok, err := st.FinishJob(ctx, j); !ok || err != nil {
				t.Fatalf("finish: %v %v", ok, err)
			}
		}
	}
	old := func(p string) string {
		t.Helper()
		if err := os.Chtimes(p, now.Add(-2*time.Minute), now.Add(-2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	job := func(name string) string { return filepath.Dir(write(t, sc.Dir, name+"/input-0.pdf")) }
	gone := []string{old(job("job-job_done-1")), old(job("job-job_unknown-2"))}
	kept := []string{old(job("job-job_queued-3")), old(job("job-job_processing-4")), job("job-job_done-5")}

	dead := filepath.Join(dir, "tmp", "dead")
	write(t, dead, ".lock")
	gone = append(gone, filepath.Dir(write(t, dead, "job-job_processing-6/input-0.pdf")), filepath.Dir(write(t, dead, "docmill-chromium-7/Default/Cookies")))

	if err := q.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range gone {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s stayed (%v)", p, err)
		}
	}
	for _, p := range kept {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dead, ".lock")); err != nil {
		t.Errorf("the dead node's lock file went: %v", err)
	}
}

// write makes the file name under dir, with its directories.
func write(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("%PDF-1.7"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
