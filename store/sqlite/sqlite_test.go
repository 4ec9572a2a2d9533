package sqlite_test

import (
	"context"
	"database/sql"
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

func open(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path, nil)
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

// TestStore runs storetest.Run: the store's contract, and the checks
// below its methods on plain SQL of the file and the transaction hooks.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.DriverStore {
		path := filepath.Join(t.TempDir(), "docmill.db")
		s := open(t, path)
		return storetest.DriverStore{
			Store:  s,
			DB:     s.WriteDB(),
			Tables: `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`,
			Reopen: func(t *testing.T) docmill.Store { return open(t, path) },
			SetEnqueue: func(hook storetest.EnqueueHook) {
				s.SetEnqueue(func(ctx context.Context, tx *sql.Tx, j *docmill.Job) error { return hook(ctx, sqlTx{tx}, j) })
			},
			SetDeliver: func(hook storetest.DeliverHook) {
				s.SetDeliver(func(ctx context.Context, tx *sql.Tx, ds []docmill.WebhookDelivery) error {
					return hook(ctx, sqlTx{tx}, ds)
				})
			},
		}
	})
}

// sqlTx is a database/sql transaction as a storetest.Tx.
type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) Exec(ctx context.Context, query string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, query, args...)
	return err
}

func (t sqlTx) QueryString(ctx context.Context, query string, args ...any) (string, error) {
	var v string
	err := t.tx.QueryRowContext(ctx, query, args...).Scan(&v)
	return v, err
}

// newAccount stores an account on the free plan and its first key.
func newAccount(t *testing.T, s docmill.Store) *docmill.Account {
	t.Helper()
	a, _, _ := storetest.NewAccount(t, s, docmill.PlanFree)
	return a
}

// TestOpen checks the file Open leaves: its directory is created, it is in
// WAL mode, and opening it again applies no migration twice.
func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "docmill.db")
	s := open(t, path)
	var mode string
	if err := s.WriteDB().QueryRowContext(t.Context(), `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	a := newAccount(t, s)
	again := open(t, path)
	if _, err := again.Account(t.Context(), a.ID); err != nil {
		t.Errorf("Account from a second store: %v", err)
	}
	var n int
	if err := again.WriteDB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&n); err != nil || n != 9 { // 0001_init, 0002_nodes, 0003_job_list, 0004_webhooks, 0005_export, 0006_job_operations, 0007_job_preview, 0008_job_used, 0009_accounts
		t.Errorf("schema_migrations has %d rows, %v; want 9", n, err)
	}
	if _, err := sqlite.Open(t.Context(), "", nil); err == nil {
		t.Errorf("Open(\"\") succeeded")
	}
}

// helperEnv names the database a helper process works on.
const helperEnv = "DOCMILL_SQLITE_TEST_DB"

// TestHelperProcess is not a test: TestSecondProcess runs the test binary
// with it to play `docmill accounts create` in another process.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process only")
	}
	s := open(t, path)
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
	s := open(t, path)
	a := newAccount(t, s)
	const keys, jobs = 30, 200

	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+path, helperEnv+"_KEYS="+strconv.Itoa(keys))
	var out []byte
	var cmdErr error
	var wg sync.WaitGroup
	wg.Go(func() { out, cmdErr = cmd.CombinedOutput() })
	for i := range jobs {
		if _, err := s.CreateJob(t.Context(), storetest.NewJob(a), docmill.Admission{Period: "2026-11"}); err != nil {
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
	s := open(t, filepath.Join(t.TempDir(), "docmill.db"))
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
		_, err = s.CreateJob(t.Context(), storetest.NewJob(a), docmill.Admission{Period: "2026-01"})
	}
	if !docmill.IsNoSpace(err) || docmill.ErrorCode(err) != docmill.CodeInsufficientStorage {
		t.Fatalf("CreateJob on a full database: %v (code %s)", err, docmill.ErrorCode(err))
	}
}
