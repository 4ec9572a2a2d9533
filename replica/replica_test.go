package replica_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/blob/s3test"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/replica"
	_ "modernc.org/sqlite"
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild())
	}
	os.Exit(m.Run())
}

// openApp opens the database at path as docmill's store does (WAL, one
// write connection beginning IMMEDIATE, busy_timeout 10 s) and makes the
// test table.
func openApp(t testing.TB, path string) *sql.DB {
	t.Helper()
	db, err := openAppDB(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func openAppDB(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS kv (id INTEGER PRIMARY KEY, v TEXT NOT NULL, at INTEGER NOT NULL)`); err != nil {
		_ = db.Close()
		return nil, err
	}
	return db, nil
}

// insert commits one row and returns its id.
func insert(db *sql.DB) (int64, error) {
	res, err := db.Exec(`INSERT INTO kv (v, at) VALUES (?, ?)`, fmt.Sprintf("row %d", time.Now().UnixNano()), time.Now().UnixNano())
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

func insertN(t testing.TB, db *sql.DB, n int) []int64 {
	t.Helper()
	ids := make([]int64, 0, n)
	for range n {
		id, err := insert(db)
		if err != nil {
			t.Fatalf("insert: %v", err)
		}
		ids = append(ids, id)
	}
	return ids
}

// restoredIDs restores the target (at: see replica.Restore) into a new
// file and returns the ids of its rows.
func restoredIDs(t testing.TB, target string, at time.Time) []int64 {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "restored.db")
	if err := replica.Restore(context.Background(), target, dst, at); err != nil {
		t.Fatalf("restore: %v", err)
	}
	db, err := sql.Open("sqlite", dst+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
	rows, err := db.Query(`SELECT id FROM kv ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// startReplicator starts replicating path to target and stops it (with
// its final flush) when t ends, after the cleanups registered later (the
// application's connections) have run. Like the server, it first lets the
// application create the database: a replicator and an application that
// both turn a new file to WAL at once can deadlock on its locks, and
// SQLite then answers SQLITE_BUSY without waiting.
func startReplicator(t testing.TB, path, target string, opts replica.Options) *replica.Replicator {
	t.Helper()
	db, err := openAppDB(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if opts.ShipTimeout == 0 {
		opts.ShipTimeout = 5 * time.Second
	}
	r, err := replica.New(path, target, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Stop(context.Background()); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	return r
}

// waitShipped waits until the target holds every change committed before
// since.
func waitShipped(t testing.TB, r *replica.Replicator, since time.Time, within time.Duration) replica.Status {
	t.Helper()
	var st replica.Status
	poll.Until(t, within, func() (bool, string) {
		st = r.Status()
		return st.StagedAt.After(since) && st.ShippedTXID >= st.LocalTXID && st.LocalTXID > 0 && !st.Failing && st.Lag == 0,
			fmt.Sprintf("status %+v", st)
	})
	return st
}

func fileURL(dir string) string { return "file://" + dir }

// startBucketServer starts versitygw with the bucket "replica" and gives
// this process its credentials.
func startBucketServer(t testing.TB) *s3test.Server {
	t.Helper()
	srv := s3test.Start(t)
	srv.Setenv(t)
	if err := srv.CreateBucket("replica"); err != nil {
		t.Fatal(err)
	}
	return srv
}

// s3URL is the target URL of prefix in the bucket "replica" at endpoint.
func s3URL(endpoint, prefix string) string {
	return "s3://replica/" + prefix + "?endpoint=" + endpoint + "&region=" + s3test.Region + "&use_path_style=true"
}

func TestDirectoryTarget(t *testing.T) {
	testShipAndRestore(t, fileURL(filepath.Join(t.TempDir(), "target")))
}

func TestBucketTarget(t *testing.T) {
	testShipAndRestore(t, s3URL(startBucketServer(t).Endpoint, "docmill"))
}

// testShipAndRestore ships two batches of commits without stopping, and
// restores the latest state and the state between the batches.
func testShipAndRestore(t *testing.T, target string) {
	path := filepath.Join(t.TempDir(), "docmill.db")
	r := startReplicator(t, path, target, replica.Options{SyncInterval: 200 * time.Millisecond})
	db := openApp(t, path)

	first := insertN(t, db, 200)
	st := waitShipped(t, r, time.Now(), 20*time.Second)
	if st.BytesShipped <= 0 || st.LastSuccess.IsZero() {
		t.Errorf("status after shipping: %+v", st)
	}
	between := time.Now()
	second := insertN(t, db, 200)
	waitShipped(t, r, time.Now(), 20*time.Second)

	if has, err := replica.HasReplica(context.Background(), target); !has || err != nil {
		t.Errorf("HasReplica = %v, %v after shipping", has, err)
	}
	if got, want := restoredIDs(t, target, time.Time{}), append(slices.Clone(first), second...); !slices.Equal(got, want) {
		t.Errorf("latest restore has %d rows (%v...), want %d", len(got), head(got), len(want))
	}
	if got := restoredIDs(t, target, between); !slices.Equal(got, first) {
		t.Errorf("restore at %v has %d rows (%v...), want the first batch's %d", between, len(got), head(got), len(first))
	}
	if got := restoredIDs(t, target, time.Now().Add(time.Hour)); len(got) != len(first)+len(second) {
		t.Errorf("restore at a future time has %d rows, want the latest %d", len(got), len(first)+len(second))
	}
	err := replica.Restore(context.Background(), target, filepath.Join(t.TempDir(), "x.db"), time.Now().Add(-time.Hour))
	if !errors.Is(err, replica.ErrNothingToRestore) {
		t.Errorf("restore at an hour ago: %v, want ErrNothingToRestore", err)
	}
	if err := replica.Restore(context.Background(), target, path, time.Time{}); err == nil {
		t.Error("restore over an existing file succeeded")
	}
}

func TestRestoreEmptyTarget(t *testing.T) {
	err := replica.Restore(context.Background(), fileURL(t.TempDir()), filepath.Join(t.TempDir(), "x.db"), time.Time{})
	if !errors.Is(err, replica.ErrNothingToRestore) {
		t.Errorf("restore from an empty directory: %v, want ErrNothingToRestore", err)
	}
	if has, err := replica.HasReplica(context.Background(), fileURL(t.TempDir())); has || err != nil {
		t.Errorf("HasReplica = %v, %v on an empty directory", has, err)
	}
}

func TestParseTarget(t *testing.T) {
	good := map[string]replica.Target{
		"file:///var/backups/docmill": {Dir: "/var/backups/docmill"},
		"s3://b?endpoint=http://127.0.0.1:9000&region=eu-west-1&use_path_style=true": {
			BucketURL: "s3://b?endpoint=http://127.0.0.1:9000&region=eu-west-1&use_path_style=true", Prefix: replica.DefaultPrefix},
		"s3://b/db/main/?region=r": {BucketURL: "s3://b?region=r", Prefix: "db/main"},
	}
	for u, want := range good {
		if got, err := replica.ParseTarget(u); err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", u, got, err, want)
		}
	}
	for _, u := range []string{"", "/var/backups", "file://relative/dir", "file:///d?x=1", "s3://", "gs://b"} {
		if _, err := replica.ParseTarget(u); err == nil {
			t.Errorf("ParseTarget(%q) succeeded", u)
		}
	}
	// The bucket's parameters are gocloud.dev's, checked at opening.
	if _, err := replica.New(filepath.Join(t.TempDir(), "d.db"), "s3://b?region=r&bogus=1", replica.Options{}); err == nil {
		t.Error("New with an unknown bucket parameter succeeded")
	}
}

// writer commits a row every few milliseconds until stopped, keeping the
// ids it committed, its errors and its slowest commit.
type writer struct {
	mu      sync.Mutex
	ids     []int64
	errs    []error
	slowest time.Duration
	stop    chan struct{}
	done    chan struct{}
}

func startWriter(db *sql.DB) *writer {
	w := &writer{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
			begun := time.Now()
			id, err := insert(db)
			w.mu.Lock()
			w.slowest = max(w.slowest, time.Since(begun))
			if err != nil {
				w.errs = append(w.errs, err)
			} else {
				w.ids = append(w.ids, id)
			}
			w.mu.Unlock()
		}
	}()
	return w
}

// finish stops w and returns what it committed, failing t on any error.
func (w *writer) finish(t testing.TB) []int64 {
	t.Helper()
	close(w.stop)
	<-w.done
	if len(w.errs) > 0 {
		t.Errorf("%d writes failed, the first: %v", len(w.errs), w.errs[0])
	}
	t.Logf("%d writes, slowest %v", len(w.ids), w.slowest)
	if w.slowest > 5*time.Second {
		t.Errorf("a write took %v", w.slowest)
	}
	return w.ids
}

func head(ids []int64) []int64 { return ids[:min(len(ids), 5)] }

// TestRestartResumes stops the application and its replicator, as the
// server's shutdown does, and starts both again on the same file: the
// target gets the commits of both runs.
func TestRestartResumes(t *testing.T) {
	target := fileURL(filepath.Join(t.TempDir(), "target"))
	path := filepath.Join(t.TempDir(), "docmill.db")
	var ids []int64
	for run := range 2 {
		db, err := openAppDB(path) // before the replicator, as startReplicator says
		must(t, err)
		r, err := replica.New(path, target, replica.Options{SyncInterval: 200 * time.Millisecond})
		must(t, err)
		must(t, r.Start(context.Background()))
		ids = append(ids, insertN(t, db, 50)...)
		must(t, db.Close())
		if err := r.Stop(context.Background()); err != nil {
			t.Fatalf("run %d: stop: %v", run, err)
		}
		if st := r.Status(); st.Lag != 0 || st.ShippedTXID < st.LocalTXID {
			t.Errorf("run %d: after Stop: %s", run, statusString(st))
		}
	}
	if got := restoredIDs(t, target, time.Time{}); !slices.Equal(got, ids) {
		t.Errorf("restored %d rows (%v...), want %d", len(got), head(got), len(ids))
	}
}
