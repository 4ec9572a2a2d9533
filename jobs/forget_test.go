package jobs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/store/postgres/pgtest"
)

// TestForgetAccount: the queue entries of an account's jobs go, another
// account's stay; on both databases.
func TestForgetAccount(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		st, bucket := openData(t)
		q := newQueue(t, st, bucket, &clock{t: time.Now()})
		count := func(ctx context.Context) (n int64, err error) {
			err = st.WriteDB().QueryRowContext(ctx, `SELECT COUNT(*) FROM river_job`).Scan(&n)
			return n, err
		}
		testForget(t, st, q, count, func(ctx context.Context, id, email string) (int, error) {
			return jobs.ForgetAccount(ctx, riversqlite.New(st.WriteDB()), id, email)
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
		testForget(t, st, q, count, func(ctx context.Context, id, email string) (int, error) {
			return jobs.ForgetAccount(ctx, driver, id, email)
		})
	})
}

// testForget queues two jobs of one account and one of another, mails to
// the first account's mailbox (as typed two ways) and to another, and
// forgets the first account.
func testForget(t *testing.T, st docmill.Store, outbox docmill.Outbox, count func(context.Context) (int64, error),
	forget func(ctx context.Context, id, email string) (int, error)) {
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
	for _, to := range []string{"alice@example.com", "Alice+Docs@Example.com", "bob@example.com"} {
		m := docmill.Mail{To: to, Kind: docmill.MailSignIn, Lang: "en", Link: "https://docmill.example/#/verify/x", Expires: time.Now()}
		if err := outbox.QueueMail(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := count(ctx); err != nil || n != 6 {
		t.Fatalf("queue entries: %d, %v; want 6", n, err)
	}
	if n, err := forget(ctx, accounts[0], "alice@example.com"); err != nil || n != 4 {
		t.Errorf("ForgetAccount = %d, %v; want 4", n, err)
	}
	if n, err := count(ctx); err != nil || n != 2 {
		t.Errorf("queue entries left: %d, %v; want the other account's job and mail", n, err)
	}
}

// TestRecordDeletedWhileRunning: a job whose record is deleted while its
// tool runs (its account was deleted) leaves no file when it ends: not
// its result, which it stores before it learns, nor its input.
func TestRecordDeletedWhileRunning(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st, bucket := openData(t)
	release := make(chan struct{})
	j, in := startHeldJob(t, st, bucket, nil, func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
		<-release
		out := filepath.Join(in.WorkDir, "out.pdf")
		if err := os.WriteFile(out, []byte("%PDF-1.7"), 0o600); err != nil {
			return nil, err
		}
		return &docmill.RunOutput{Path: out, Filename: "out.pdf", ContentType: "application/pdf"}, nil
	})
	if _, err := st.DeleteAccount(ctx, j.AccountID); err != nil {
		t.Fatal(err)
	}
	close(release)
	// The input stays until the worker learns the record is gone, so no
	// file at all means it has removed them, the result included.
	poll.Until(t, 10*time.Second, func() (bool, string) {
		var left []string
		for _, k := range []string{in, docmill.ResultKey(j.ID, "out.pdf")} {
			if _, err := bucket.Attributes(ctx, k); err == nil {
				left = append(left, k)
			}
		}
		return len(left) == 0, fmt.Sprintf("files of the deleted job left: %v", left)
	})
}
