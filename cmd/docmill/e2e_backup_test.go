package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
)

// made is a record a client saw committed: the server answered its
// creation at `at`.
type made struct {
	id, key string // the record's id; the key that owns it (a new key: itself)
	at      time.Time
}

// backupWriter is one client writing keys, jobs and webhooks to a server
// in a loop until stop is closed, after `warm` rounds at least.
type backupWriter struct {
	c                 *client.Client
	key               string
	keys, jobs, hooks []made
	err               error
}

// write runs the writer's rounds; warmed is told once `warm` are done.
func (w *backupWriter) write(ctx context.Context, warm int, warmed func(), stop <-chan struct{}) {
	for i := 0; ; i++ {
		if i == warm {
			warmed()
		}
		select {
		case <-stop:
			if i >= warm {
				return
			}
		default:
		}
		if err := w.round(ctx, i); err != nil {
			w.err = err
			if i < warm {
				warmed()
			}
			return
		}
	}
}

// round makes a job each time, a key in the first 8 rounds (an account
// has at most 10 active keys) and a webhook in the first 15 (the team
// plan's 20). Its webhooks hear only job.canceled: nothing is sent.
func (w *backupWriter) round(ctx context.Context, i int) error {
	if i < 8 {
		k, err := w.c.CreateKey(ctx, fmt.Sprintf("k%d", i))
		if err != nil {
			return fmt.Errorf("create key: %w", err)
		}
		w.keys = append(w.keys, made{id: k.Prefix, key: k.APIKey, at: time.Now()})
	}
	j, _, err := w.c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one.pdf", onePagePDF())},
		client.ProcessOptions{Params: map[string]string{"angle": "90"}, Prefer: "wait=30"})
	if err != nil || j.Status != "done" {
		return fmt.Errorf("process: %+v %w", j, err)
	}
	w.jobs = append(w.jobs, made{id: j.JobID, key: w.key, at: time.Now()})
	if i < 15 {
		h, err := w.c.CreateWebhook(ctx, fmt.Sprintf("https://93.184.215.14/hook/%d", i), []string{"job.canceled"})
		if err != nil {
			return fmt.Errorf("create webhook: %w", err)
		}
		w.hooks = append(w.hooks, made{id: h.ID, key: w.key, at: time.Now()})
	}
	return nil
}

// TestBackupUnderWrites is the first Done-when: clients write
// keys, jobs and webhooks while `docmill backup --with-files` runs; the
// backup restored into a new directory and served has every record
// committed before the backup began (keys that work, done jobs whose
// results download, webhooks), and none made after it ended.
func TestBackupUnderWrites(t *testing.T) {
	t.Parallel() // its directories and servers are its own
	if testing.Short() {
		t.Skip("starts two servers")
	}
	ctx := context.Background()
	dir := t.TempDir()
	writers := make([]*backupWriter, 3)
	for i := range writers {
		key := newKey(t, dir, "team")
		writers[i] = &backupWriter{key: key}
	}
	s := startServer(t, dir)
	var warm sync.WaitGroup
	stop := make(chan struct{})
	var done sync.WaitGroup
	for _, w := range writers {
		w.c = s.client(w.key)
		warm.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			w.write(ctx, 2, sync.OnceFunc(warm.Done), stop)
		}()
	}
	warm.Wait()
	backup := filepath.Join(t.TempDir(), "backup")
	began := time.Now()
	out := runCLI(t, "backup", "--data-dir", dir, "--to", backup, "--with-files")
	ended := time.Now()
	after, err := writers[0].c.CreateKey(ctx, "after")
	if err != nil {
		t.Fatal(err)
	}
	close(stop)
	done.Wait()
	t.Logf("backup in %s:\n%s", ended.Sub(began), out)
	if !strings.Contains(out, "integrity ok") || !strings.Contains(out, "files (") {
		t.Fatalf("backup's output lacks what it wrote:\n%s", out)
	}

	restored := t.TempDir()
	out = runCLI(t, "restore", "--data-dir", restored, "--from", backup)
	if !strings.Contains(out, "integrity ok") {
		t.Fatalf("restore's output:\n%s", out)
	}
	s2 := startServer(t, restored)
	n := checkRestored(t, s2, writers, began)
	during := 0
	for _, w := range writers {
		for _, ms := range [][]made{w.keys, w.jobs, w.hooks} {
			during += len(before(ms, ended)) - len(before(ms, began))
		}
	}
	t.Logf("%d records made before the backup began found after the restore; %d made while it ran", n, during)
	if _, err := s2.client(after.APIKey).Account(ctx); err == nil {
		t.Error("a key made after the backup ended works on the restored server")
	} else {
		apiError(t, err, http.StatusUnauthorized, "unauthorized")
	}
}

// checkRestored checks on s every record of writers made before began,
// and returns how many there were.
func checkRestored(t *testing.T, s *testServer, writers []*backupWriter, began time.Time) int {
	t.Helper()
	ctx := context.Background()
	n, downloaded := 0, false
	for _, w := range writers {
		if w.err != nil {
			t.Fatalf("a writer failed: %v", w.err)
		}
		for _, k := range before(w.keys, began) {
			if _, err := s.client(k.key).Account(ctx); err != nil {
				t.Errorf("key %s made before the backup: %v", k.id, err)
			}
			n++
		}
		c := s.client(w.key)
		for _, m := range before(w.jobs, began) {
			j, err := c.Job(ctx, m.id)
			if err != nil || j.Status != "done" || j.Result == nil {
				t.Fatalf("job %s made before the backup: %+v %v", m.id, j, err)
			}
			if !downloaded { // its result came with --with-files
				download(t, j.Result.URL)
				downloaded = true
			}
			n++
		}
		hooks, err := c.Webhooks(ctx)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, h := range hooks {
			have[h.ID] = true
		}
		for _, h := range before(w.hooks, began) {
			if !have[h.id] {
				t.Errorf("webhook %s made before the backup is missing", h.id)
			}
			n++
		}
	}
	if !downloaded {
		t.Fatal("no job was made before the backup")
	}
	return n
}

// before returns the records committed before t.
func before(ms []made, t time.Time) []made {
	var out []made
	for _, m := range ms {
		if m.at.Before(t) {
			out = append(out, m)
		}
	}
	return out
}

// TestRestoreLostInputs: jobs queued when the backup was taken, restored
// without their input files (a backup without --with-files), end failed
// with gone once a server works them: not stuck, not charged.
func TestRestoreLostInputs(t *testing.T) {
	t.Parallel() // its directories and servers are its own
	if testing.Short() {
		t.Skip("starts two servers")
	}
	ctx := context.Background()
	dir := t.TempDir()
	api := startServer(t, dir, "--role", "api") // works no jobs: they stay queued
	key := api.DevKey
	var ids []string
	for range 2 {
		j, _, err := api.client(key).Process(ctx, "rotate-pdf", []client.File{pdfFile("one.pdf", onePagePDF())}, client.ProcessOptions{Prefer: "respond-async"})
		if err != nil || j.Status != "queued" {
			t.Fatalf("process on an API node: %+v %v", j, err)
		}
		ids = append(ids, j.JobID)
	}
	backup := filepath.Join(t.TempDir(), "backup")
	runCLI(t, "backup", "--data-dir", dir, "--to", backup)
	api.stop(t)

	restored := t.TempDir()
	runCLI(t, "restore", "--data-dir", restored, "--from", backup)
	s := startServer(t, restored)
	c := s.client(key)
	for _, id := range ids {
		j, err := c.WaitJob(ctx, id, time.Minute)
		if err != nil || !j.Finished() {
			t.Fatalf("job %s after the restore: %+v %v; want it finished", id, j, err)
		}
		if j.Status != "failed" || j.Error == nil || j.Error.Code != "gone" || !strings.Contains(j.Error.Message, "send the job again") {
			t.Fatalf("job %s: %s %+v, want failed with gone", id, j.Status, j.Error)
		}
	}
	if u := accountUsage(ctx, t, c); u.OperationsUsed != 0 || u.JobsInFlight != 0 {
		t.Fatalf("usage after the lost jobs: %+v, want nothing charged or in flight", u)
	}
}
