package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/internal/testserver"
	"github.com/docmill/docmill/store/postgres"
	"github.com/docmill/docmill/store/postgres/pgtest"
	"github.com/docmill/docmill/store/storetest"
)

// open opens and migrates the store at dbURL.
func open(t *testing.T, dbURL string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), dbURL, nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(s.Close) // registered after the schema's drop, so it runs first
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return s
}

// TestStore runs storetest.Run: the store's contract, and the checks
// below its methods on plain SQL of the schema and the transaction hooks.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.DriverStore {
		dbURL := pgtest.SchemaURL(t)
		s := open(t, dbURL)
		db := stdlib.OpenDBFromPool(s.Pool())
		t.Cleanup(func() { db.Close() })
		return storetest.DriverStore{
			Store:  s,
			DB:     db,
			Tables: `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`,
			Reopen: func(t *testing.T) docmill.Store { return open(t, dbURL) },
			SetEnqueue: func(hook storetest.EnqueueHook) {
				s.SetEnqueue(func(ctx context.Context, tx pgx.Tx, j *docmill.Job) error { return hook(ctx, pgxTx{tx}, j) })
			},
			SetDeliver: func(hook storetest.DeliverHook) {
				s.SetDeliver(func(ctx context.Context, tx pgx.Tx, ds []docmill.WebhookDelivery) error {
					return hook(ctx, pgxTx{tx}, ds)
				})
			},
		}
	})
}

// pgxTx is a pgx transaction as a storetest.Tx.
type pgxTx struct{ tx pgx.Tx }

func (t pgxTx) Exec(ctx context.Context, query string, args ...any) error {
	_, err := t.tx.Exec(ctx, query, args...)
	return err
}

func (t pgxTx) QueryString(ctx context.Context, query string, args ...any) (string, error) {
	var v string
	err := t.tx.QueryRow(ctx, query, args...).Scan(&v)
	return v, err
}

// newAccount stores an account on the free plan and its first key.
func newAccount(t *testing.T, s docmill.Store) *docmill.Account {
	t.Helper()
	a, _, _ := storetest.NewAccount(t, s, docmill.PlanFree)
	return a
}

// waitingOnMigrationLock counts the connections waiting for the migration
// lock of conn's schema.
func waitingOnMigrationLock(ctx context.Context, conn *pgx.Conn) int {
	var n int
	err := conn.QueryRow(ctx, `SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
		AND classid = 1685021036 AND objid = hashtext(COALESCE(current_schema(), ''))::oid`).Scan(&n)
	if err != nil {
		return -1
	}
	return n
}

// TestMigrateConcurrently checks that stores migrating one new schema at
// once migrate it once (the advisory lock), that the extra migrations run
// under the same lock, and that migrating again applies nothing.
func TestMigrateConcurrently(t *testing.T) {
	dbURL := pgtest.SchemaURL(t)
	const n = 4
	stores := make([]*postgres.Store, n)
	errs := make([]error, n)
	var inside, most, entered int
	var mu sync.Mutex
	locks, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer locks.Close(context.Background())
	also := func(ctx context.Context) error { // must never run twice at once
		mu.Lock()
		inside++
		entered++
		most = max(most, inside)
		behind := n - entered
		mu.Unlock()
		// It stays inside until the stores not yet through all wait on
		// the lock (10 s at most): one not held by it would be inside too.
		watch, stop := context.WithTimeout(ctx, 10*time.Second)
		poll.Sample(watch, 5*time.Millisecond, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return waitingOnMigrationLock(watch, locks) >= behind
		})
		stop()
		mu.Lock()
		inside--
		mu.Unlock()
		return nil
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			stores[i], errs[i] = postgres.Open(t.Context(), dbURL, nil)
			if errs[i] == nil {
				errs[i] = stores[i].Migrate(t.Context(), also)
			}
		})
	}
	wg.Wait()
	for i, s := range stores {
		if s != nil {
			t.Cleanup(s.Close)
		}
		if errs[i] != nil {
			t.Fatalf("Open and Migrate #%d: %v", i, errs[i])
		}
	}
	if most != 1 {
		t.Errorf("%d migrations ran at once, want 1", most)
	}
	a := newAccount(t, stores[0])
	again := open(t, dbURL)
	if _, err := again.Account(t.Context(), a.ID); err != nil {
		t.Errorf("Account from another store: %v", err)
	}
	var count int
	if err := again.Pool().QueryRow(t.Context(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&count); err != nil || count != 9 { // 0001_init, 0002_nodes, 0003_job_list, 0004_webhooks, 0005_export, 0006_job_operations, 0007_job_preview, 0008_job_used, 0009_accounts
		t.Errorf("schema_migrations has %d rows, %v; want 9", count, err)
	}
	if _, err := postgres.Open(t.Context(), "postgres://%zz", nil); err == nil {
		t.Errorf("Open of a malformed URL succeeded")
	}
}

// TestMigrated checks that Open leaves a new schema alone and that
// Migrated tells an unmigrated schema from a migrated one.
func TestMigrated(t *testing.T) {
	dbURL := pgtest.SchemaURL(t)
	s, err := postgres.Open(t.Context(), dbURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrated(t.Context()); !errors.Is(err, postgres.ErrNotMigrated) {
		t.Fatalf("Migrated on a new schema: %v, want ErrNotMigrated", err)
	}
	if _, err := s.Account(t.Context(), "acct_x"); err == nil {
		t.Fatal("Open created tables")
	}
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.Migrated(t.Context()); err != nil {
		t.Fatalf("Migrated after Migrate: %v", err)
	}
	if _, err := s.Pool().Exec(t.Context(), `DELETE FROM schema_migrations`); err != nil {
		t.Fatal(err)
	}
	if err := s.Migrated(t.Context()); !errors.Is(err, postgres.ErrNotMigrated) {
		t.Fatalf("Migrated with a migration missing: %v, want ErrNotMigrated", err)
	}
}

// TestUnreachable checks that a store of a database that does not answer
// opens (the pool connects lazily) and that Ping says where it failed.
func TestUnreachable(t *testing.T) {
	addr := testserver.ClosedAddr(t)
	s, err := postgres.Open(t.Context(), "postgres://postgres@"+addr+"/test?sslmode=disable&connect_timeout=2", nil)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	start := time.Now()
	err = s.Ping(t.Context())
	if err == nil || !strings.Contains(err.Error(), "cannot reach 127.0.0.1:") {
		t.Fatalf("Ping = %v, want cannot reach 127.0.0.1:...", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Ping took %s", d)
	}
}

// TestConcurrentEmail checks that two accounts created at once with one
// email end with one account and docmill.ErrEmailTaken, whichever check
// (the query or the unique index) catches the second.
func TestConcurrentEmail(t *testing.T) {
	s := open(t, pgtest.SchemaURL(t))
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			a := &docmill.Account{ID: docmill.NewID("acct_"), Name: "a", Email: "x@example.com", Plan: docmill.PlanFree}
			_, k := docmill.NewAPIKey(a.ID, "default", time.Now())
			errs[i] = s.CreateAccount(t.Context(), a, &k)
		})
	}
	wg.Wait()
	okCount := 0
	for _, err := range errs {
		switch {
		case err == nil:
			okCount++
		case !errors.Is(err, docmill.ErrEmailTaken):
			t.Errorf("CreateAccount: %v, want ErrEmailTaken", err)
		}
	}
	if okCount != 1 {
		t.Errorf("%d accounts created, want 1", okCount)
	}
}

// TestWaitedCreateJobCommitsLazily: a Waited CreateJob's transaction (the
// one its queue entry is inserted in) runs with synchronous_commit off,
// set with its BEGIN; any other CreateJob's waits for the disk.
func TestWaitedCreateJobCommitsLazily(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{}
	enqueue := func(ctx context.Context, tx pgx.Tx, j *docmill.Job) error {
		var v string
		if err := tx.QueryRow(ctx, "SHOW synchronous_commit").Scan(&v); err != nil {
			return err
		}
		mu.Lock()
		seen[j.ID] = v
		mu.Unlock()
		return nil
	}
	s, err := postgres.Open(t.Context(), pgtest.SchemaURL(t), enqueue)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	a, _, _ := storetest.NewAccount(t, s, docmill.PlanFree)
	for _, tc := range []struct {
		waited bool
		want   string
	}{{true, "off"}, {false, "on"}} {
		j, err := s.CreateJob(t.Context(), storetest.NewJob(a), docmill.Admission{Period: "2026-01", Waited: tc.waited})
		if err != nil {
			t.Fatal(err)
		}
		if got := seen[j.ID]; got != tc.want {
			t.Errorf("Waited %v: synchronous_commit %q in CreateJob's transaction, want %q", tc.waited, got, tc.want)
		}
		if err := s.Durable(t.Context(), j.ID); err != nil {
			t.Errorf("Durable: %v", err)
		}
	}
}
