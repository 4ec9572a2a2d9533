package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/postgres"
	"github.com/docmill/docmill/store/postgres/pgtest"
	"github.com/docmill/docmill/store/storetest"
	"github.com/jackc/pgx/v5"
)

// open opens and migrates the store at dbURL.
func open(t *testing.T, dbURL string, enqueue postgres.EnqueueFunc) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), dbURL, enqueue)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(s.Close) // registered after the schema's drop, so it runs first
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return s
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) docmill.Store {
		return open(t, pgtest.SchemaURL(t), nil)
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
	s := open(t, pgtest.SchemaURL(t), nil)
	if _, err := s.Pool().Exec(t.Context(), `CREATE TABLE queue (job_id TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("queue is down")
	var fail bool
	var calls int
	s.SetEnqueue(func(ctx context.Context, tx pgx.Tx, j *docmill.Job) error {
		calls++
		var status string
		if err := tx.QueryRow(ctx, `SELECT status FROM jobs WHERE id = $1`, j.ID).Scan(&status); err != nil {
			return fmt.Errorf("job row not visible in the transaction: %w", err)
		}
		if status != string(docmill.StatusQueued) || j.Status != docmill.StatusQueued {
			return fmt.Errorf("status %q, job %q; want queued", status, j.Status)
		}
		if _, err := s.Job(ctx, j.ID); !errors.Is(err, docmill.ErrNotFound) {
			return fmt.Errorf("job visible outside the transaction before commit: %v", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO queue (job_id) VALUES ($1)`, j.ID); err != nil {
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
	rows, err := s.Pool().Query(t.Context(), `SELECT job_id FROM queue`)
	if err != nil {
		t.Fatal(err)
	}
	queued, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(queued) != 1 || queued[0] != ok.ID {
		t.Errorf("queue = %v, want [%s]", queued, ok.ID)
	}
}

// TestMigrateConcurrently checks that stores migrating one new schema at
// once migrate it once (the advisory lock), that the extra migrations run
// under the same lock, and that migrating again applies nothing.
func TestMigrateConcurrently(t *testing.T) {
	dbURL := pgtest.SchemaURL(t)
	const n = 4
	stores := make([]*postgres.Store, n)
	errs := make([]error, n)
	var inside, most int
	var mu sync.Mutex
	also := func(ctx context.Context) error { // must never run twice at once
		mu.Lock()
		inside++
		most = max(most, inside)
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
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
	again := open(t, dbURL, nil)
	if _, err := again.Account(t.Context(), a.ID); err != nil {
		t.Errorf("Account from another store: %v", err)
	}
	var count int
	if err := again.Pool().QueryRow(t.Context(), `SELECT COUNT(*) FROM schema_migrations`).Scan(&count); err != nil || count != 2 { // 0001_init, 0002_nodes
		t.Errorf("schema_migrations has %d rows, %v; want 2", count, err)
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
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
	s := open(t, pgtest.SchemaURL(t), nil)
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
