package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/sqlite"
	"github.com/docmill/docmill/store/storetest"
)

func open(t *testing.T, path string, enqueue sqlite.EnqueueFunc) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path, enqueue)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) docmill.Store {
		return open(t, filepath.Join(t.TempDir(), "docmill.db"), nil)
	})
}

func newAccount(t *testing.T, s docmill.Store) *docmill.Account {
	t.Helper()
	a := &docmill.Account{ID: docmill.NewID("acct_"), Name: "acme", Plan: docmill.PlanFree, CreatedAt: time.Now()}
	_, k := docmill.NewAPIKey(a.ID, "default", time.Now())
	if err := s.CreateAccount(t.Context(), a, &k); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

func newJob(a *docmill.Account) *docmill.Job {
	return &docmill.Job{ID: docmill.NewJobID(), AccountID: a.ID, Tool: "compress-pdf", CreatedAt: time.Now()}
}

// TestEnqueue checks that the queue entry is written in CreateJob's
// transaction: it sees the job row, nobody else does until the commit, and
// its failure rolls the job back.
func TestEnqueue(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "docmill.db"), nil)
	if _, err := s.WriteDB().ExecContext(t.Context(), `CREATE TABLE queue (job_id TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("queue is down")
	var fail bool
	var calls int
	s.SetEnqueue(func(ctx context.Context, tx *sql.Tx, j *docmill.Job) error {
		calls++
		var status string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM jobs WHERE id = $1`, j.ID).Scan(&status); err != nil {
			return fmt.Errorf("job row not visible in the transaction: %w", err)
		}
		if status != string(docmill.StatusQueued) || j.Status != docmill.StatusQueued {
			return fmt.Errorf("status %q, job %q; want queued", status, j.Status)
		}
		if _, err := s.Job(ctx, j.ID); !errors.Is(err, docmill.ErrNotFound) {
			return fmt.Errorf("job visible outside the transaction before commit: %v", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO queue (job_id) VALUES ($1)`, j.ID); err != nil {
			return err
		}
		if fail {
			return boom
		}
		return nil
	})
	a := newAccount(t, s)
	adm := docmill.Admission{Period: "2026-11", MaxInFlight: 1}

	ok := newJob(a)
	ok.IdempotencyKey, ok.RequestHash = "k", "h"
	if _, err := s.CreateJob(t.Context(), ok, adm); err != nil {
		t.Fatalf("CreateJob: %v", err)
	}
	// Neither a replay nor a refused job is enqueued.
	if _, err := s.CreateJob(t.Context(), ok, adm); err != nil {
		t.Fatalf("CreateJob(replay): %v", err)
	}
	if _, err := s.CreateJob(t.Context(), newJob(a), adm); !errors.Is(err, docmill.ErrTooManyInFlight) {
		t.Fatalf("CreateJob over the limit: %v", err)
	}
	if calls != 1 {
		t.Errorf("enqueue called %d times, want 1", calls)
	}

	fail = true
	bad := newJob(a)
	if _, err := s.CreateJob(t.Context(), bad, docmill.Admission{Period: "2026-11"}); !errors.Is(err, boom) {
		t.Fatalf("CreateJob with a failing enqueue: %v, want %v", err, boom)
	}
	if _, err := s.Job(t.Context(), bad.ID); !errors.Is(err, docmill.ErrNotFound) {
		t.Errorf("job of a failed enqueue: %v, want ErrNotFound", err)
	}
	var queued []string
	rows, err := s.WriteDB().QueryContext(t.Context(), `SELECT job_id FROM queue`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		queued = append(queued, id)
	}
	if len(queued) != 1 || queued[0] != ok.ID {
		t.Errorf("queue = %v, want [%s]", queued, ok.ID)
	}
}

// TestOpen checks the file Open leaves: its directory is created, it is in
// WAL mode, and opening it again applies no migration twice.
func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "docmill.db")
	s := open(t, path, nil)
	var mode string
	if err := s.WriteDB().QueryRowContext(t.Context(), `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	a := newAccount(t, s)
	again := open(t, path, nil)
	if _, err := again.Account(t.Context(), a.ID); err != nil {
		t.Errorf("Account from a second store: %v", err)
	}
	var n int
	if err := again.WriteDB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil || n != 2 { // 0001_init, 0002_nodes
		t.Errorf("schema_migrations has %d rows, %v; want 2", n, err)
	}
	if _, err := sqlite.Open(t.Context(), "", nil); err == nil {
		t.Errorf("Open(\"\") succeeded")
	}
}

// helperEnv names the database a helper process works on.
const helperEnv = "DOCMILL_SQLITE_TEST_DB"

// TestHelperProcess is not a test: TestSecondProcess runs the test binary
// with it to play `docmill keys create` in another process.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	s := open(t, path, nil)
	n, _ := strconv.Atoi(os.Getenv(helperEnv + "_KEYS"))
	for i := range n {
		a := &docmill.Account{ID: docmill.NewID("acct_"), Name: fmt.Sprint("cli-", i), Plan: docmill.PlanPro, CreatedAt: time.Now()}
		_, k := docmill.NewAPIKey(a.ID, "cli", time.Now())
		if err := s.CreateAccount(t.Context(), a, &k); err != nil {
			t.Fatalf("CreateAccount: %v", err)
		}
	}
}

// TestSecondProcess checks that another process (the keys CLI) can write to
// the file while this one is busy writing to it.
func TestSecondProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "docmill.db")
	s := open(t, path, nil)
	a := newAccount(t, s)
	const keys, jobs = 30, 200

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+path, helperEnv+"_KEYS="+strconv.Itoa(keys))
	var out []byte
	var cmdErr error
	var wg sync.WaitGroup
	wg.Go(func() { out, cmdErr = cmd.CombinedOutput() })
	for i := range jobs {
		if _, err := s.CreateJob(t.Context(), newJob(a), docmill.Admission{Period: "2026-11"}); err != nil {
			t.Fatalf("CreateJob #%d: %v", i, err)
		}
	}
	wg.Wait()
	if cmdErr != nil {
		t.Fatalf("helper process: %v\n%s", cmdErr, out)
	}
	list, err := s.ListKeys(t.Context())
	if err != nil {
		t.Fatalf("ListKeys: %v", err)
	}
	if len(list) != keys+1 {
		t.Errorf("ListKeys returned %d keys, want %d", len(list), keys+1)
	}
	if u, err := s.Usage(t.Context(), a.ID, "2026-11"); err != nil || u.InFlight != jobs {
		t.Errorf("Usage = %+v, %v; want %d in flight", u, err, jobs)
	}
}

// TestFullDatabaseIsNoSpace: a write that SQLite refuses for want of room
// (SQLITE_FULL) is a full disk to the rest of docmill (docmill.IsNoSpace:
// 507 insufficient_storage, never a retried internal error). The database
// is made full by SQLite itself: max_page_count at its current size, on
// the write pool's one connection.
func TestFullDatabaseIsNoSpace(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "docmill.db"), nil)
	a := newAccount(t, s)
	db := s.WriteDB()
	var pages int
	if err := db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	var err error
	for i := 0; i < 200 && err == nil; i++ { // until a new page is needed
		_, err = s.CreateJob(t.Context(), newJob(a), docmill.Admission{Period: "2026-01"})
	}
	if !docmill.IsNoSpace(err) || docmill.ErrorCode(err) != docmill.CodeInsufficientStorage {
		t.Fatalf("CreateJob on a full database: %v (code %s)", err, docmill.ErrorCode(err))
	}
}
