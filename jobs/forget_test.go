package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/store/postgres/pgtest"
)

// TestForgetAccount: the queue entries of an account's jobs go, another
// account's stay; on both databases.
func TestForgetAccount(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		st, bucket := openData(t)
		newQueue(t, st, bucket, &clock{t: time.Now()})
		count := func(ctx context.Context) (n int64, err error) {
			err = st.WriteDB().QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job`).Scan(&n)
			return n, err
		}
		testForget(t, st, count, func(ctx context.Context, id string) (int, error) {
			return jobs.ForgetAccount(ctx, riversqlite.New(st.WriteDB()), id)
		})
	})
	t.Run("postgres", func(t *testing.T) {
		st := openPostgres(t, pgtest.SchemaURL(t))
		driver := riverpgxv5.New(st.Pool())
		m, err := rivermigrate.New(driver, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Migrate(t.Context(), rivermigrate.DirectionUp, nil); err != nil {
			t.Fatal(err)
		}
		q, err := jobs.New(driver, jobs.Config{Store: st, Registry: docmill.NewRegistry()})
		if err != nil {
			t.Fatal(err)
		}
		st.SetEnqueue(q.InsertTx)
		count := func(ctx context.Context) (n int64, err error) {
			err = st.Pool().QueryRow(ctx, `SELECT COUNT(*) FROM river_job`).Scan(&n)
			return n, err
		}
		testForget(t, st, count, func(ctx context.Context, id string) (int, error) {
			return jobs.ForgetAccount(ctx, driver, id)
		})
	})
}

// testForget queues two jobs of one account and one of another, and
// forgets the first account.
func testForget(t *testing.T, st docmill.Store, count func(context.Context) (int64, error), forget func(context.Context, string) (int, error)) {
	ctx := t.Context()
	var accounts []string
	for range 2 {
		a := &docmill.Account{ID: docmill.NewID("acct_"), Name: "a", Plan: docmill.PlanPro, CreatedAt: time.Now()}
		_, key := docmill.NewAPIKey(a.ID, "k", time.Now())
		if err := st.CreateAccount(ctx, a, &key); err != nil {
			t.Fatal(err)
		}
		accounts = append(accounts, a.ID)
	}
	for _, id := range []string{accounts[0], accounts[0], accounts[1]} {
		j := &docmill.Job{ID: docmill.NewJobID(), AccountID: id, Tool: "rotate-pdf", Priority: 3, CreatedAt: time.Now()}
		if _, err := st.CreateJob(ctx, j, docmill.Admission{Period: "2026-11"}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := count(ctx); err != nil || n != 3 {
		t.Fatalf("queue entries: %d, %v; want 3", n, err)
	}
	if n, err := forget(ctx, accounts[0]); err != nil || n != 2 {
		t.Errorf("ForgetAccount = %d, %v; want 2", n, err)
	}
	if n, err := count(ctx); err != nil || n != 1 {
		t.Errorf("queue entries left: %d, %v; want the other account's 1", n, err)
	}
}
