package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/sqlite"
)

// storeAccount stores an account and its key, from another goroutine than the test's.
func storeAccount(ctx context.Context, s *sqlite.Store) (string, error) {
	a := &docmill.Account{ID: docmill.NewID("acct_"), Name: "n", Plan: docmill.PlanFree, CreatedAt: time.Now()}
	_, k := docmill.NewAPIKey(a.ID, "k", a.CreatedAt)
	return a.ID, s.CreateAccount(ctx, a, &k)
}

// TestSnapshotWhileWriting: a snapshot taken while a writer commits
// accounts holds every account committed before it began, passes
// Verify, opens as a store, and is not written over by a second one.
func TestSnapshotWhileWriting(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	s := open(t, filepath.Join(dir, "docmill.db"))
	var (
		mu        sync.Mutex
		committed []string
		stop      atomic.Bool
		wg        sync.WaitGroup
		werr      error
	)
	warm := make(chan struct{}) // closed after the writer's first 50 commits, or its failure
	wg.Add(1)
	go func() {
		defer wg.Done()
		warmed := sync.OnceFunc(func() { close(warm) })
		defer warmed()
		for !stop.Load() {
			id, err := storeAccount(ctx, s)
			if err != nil {
				werr = err
				return
			}
			mu.Lock()
			committed = append(committed, id)
			if len(committed) == 50 {
				warmed()
			}
			mu.Unlock()
		}
	}()
	<-warm
	mu.Lock()
	beforeSnapshot := append([]string(nil), committed...)
	mu.Unlock()
	dst := filepath.Join(t.TempDir(), "snap.db")
	err := sqlite.Snapshot(ctx, filepath.Join(dir, "docmill.db"), dst)
	stop.Store(true)
	wg.Wait()
	if err != nil || werr != nil {
		t.Fatalf("Snapshot: %v; writer: %v", err, werr)
	}
	if err := sqlite.Verify(ctx, dst); err != nil {
		t.Fatalf("Verify of the snapshot: %v", err)
	}
	snap := open(t, dst)
	for _, id := range beforeSnapshot {
		if _, err := snap.Account(ctx, id); err != nil {
			t.Fatalf("account %s committed before the snapshot: %v", id, err)
		}
	}
	t.Logf("%d accounts before the snapshot, %d in all", len(beforeSnapshot), len(committed))
	if err := sqlite.Snapshot(ctx, filepath.Join(dir, "docmill.db"), dst); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("a snapshot over an existing file: %v", err)
	}
}

// TestVerifyRefuses: Verify fails a damaged file, another application's
// database, a file that is no database, and a missing one (which it
// does not create).
func TestVerifyRefuses(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	st, err := sqlite.Open(ctx, good, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := sqlite.Verify(ctx, good); err != nil {
		t.Fatalf("Verify of a new store: %v", err)
	}

	damaged := filepath.Join(dir, "damaged.db")
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	copy(b[4096:], bytes.Repeat([]byte{0xa5}, len(b)-4096)) // every page but the first
	if err := os.WriteFile(damaged, b, 0o600); err != nil {
		t.Fatal(err)
	}

	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE notes (body TEXT)"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	text := filepath.Join(dir, "text.db")
	if err := os.WriteFile(text, []byte(strings.Repeat("not a database\n", 500)), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.db")
	for name, path := range map[string]string{"damaged": damaged, "other": other, "text": text, "missing": missing} {
		err := sqlite.Verify(ctx, path)
		if err == nil {
			t.Errorf("Verify of the %s file passed", name)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Verify created the missing file: %v", err)
	}
}
