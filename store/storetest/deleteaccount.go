package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// accountFixture is an account with one of everything a store keeps of it.
type accountFixture struct {
	account  *docmill.Account
	key      *docmill.APIKey
	jobs     []*docmill.Job
	webhook  *docmill.Webhook
	session  docmill.Session
	tokens   []docmill.AuthToken
	attempts []docmill.WebhookAttempt
}

// newAccountFixture stores an account with email and two keys, a done job
// (charged to its usage) and a queued one, a webhook endpoint with an
// attempt for the done job, a session, a sign-in token and a sign-up token
// sent to its email.
func newAccountFixture(t *testing.T, s docmill.Store, email string) *accountFixture {
	t.Helper()
	ctx := t.Context()
	f := &accountFixture{}
	f.account, f.key = newEmailAccount(t, s, email, t0)
	_, second := docmill.NewAPIKey(f.account.ID, "second", t0)
	if err := s.CreateKey(ctx, &second); err != nil {
		t.Fatal(err)
	}
	done := finish(t, s, create(t, s, f.account), docmill.StatusDone, t0.Add(time.Second))
	f.jobs = []*docmill.Job{done, createAt(t, s, f.account, t0.Add(time.Minute))}
	f.webhook = createWebhook(t, s, f.account, docmill.WebhookEvents...)
	at := docmill.WebhookAttempt{WebhookID: f.webhook.ID, MessageID: docmill.NewID("msg_"), Event: docmill.EventJobDone,
		JobID: done.ID, Attempt: 1, AttemptedAt: t0, StatusCode: 204}
	if _, err := s.RecordWebhookAttempt(ctx, &at, ""); err != nil {
		t.Fatal(err)
	}
	f.attempts = append(f.attempts, at)
	_, f.session = docmill.NewSession(f.account.ID, "192.0.2.1", "test", t0)
	if err := s.CreateSession(ctx, &f.session); err != nil {
		t.Fatal(err)
	}
	_, signIn := docmill.NewAuthToken(docmill.TokenSignIn, email, t0)
	signIn.AccountID = f.account.ID
	_, signup := docmill.NewAuthToken(docmill.TokenSignup, email, t0)
	f.tokens = []docmill.AuthToken{signIn, signup}
	for i := range f.tokens {
		if err := s.CreateAuthToken(ctx, &f.tokens[i]); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// testDeleteAccount: DeleteAccount removes the account and everything of
// it, returns its jobs and what it counted, and leaves other accounts be.
func testDeleteAccount(t *testing.T, s docmill.Store) {
	ctx := t.Context()
	f := newAccountFixture(t, s, "gone@example.com")
	other := newAccountFixture(t, s, "stays@example.com")
	d, err := s.DeleteAccount(ctx, f.account.ID)
	if err != nil {
		t.Fatalf("DeleteAccount: %v", err)
	}
	same(t, "DeleteAccount account", &d.Account, f.account)
	same(t, "DeleteAccount jobs", ids(d.Jobs), ids(f.jobs))
	same(t, "DeleteAccount job", d.Jobs[0], f.jobs[0])
	if d.Keys != 2 || d.Sessions != 1 || d.Webhooks != 1 || d.AuthTokens != 2 {
		t.Errorf("DeleteAccount counted keys %d, sessions %d, webhooks %d, tokens %d; want 2, 1, 1, 2",
			d.Keys, d.Sessions, d.Webhooks, d.AuthTokens)
	}
	wantGone(t, s, f)
	wantKept(t, s, other)
	_, err = s.DeleteAccount(ctx, f.account.ID)
	wantErr(t, "DeleteAccount(deleted)", err, docmill.ErrNotFound)
	// The mailbox is free again.
	newEmailAccount(t, s, f.account.Email, t0)
}

// wantGone fails t if the store still answers with anything of f.
func wantGone(t *testing.T, s docmill.Store, f *accountFixture) {
	t.Helper()
	ctx := t.Context()
	_, err := s.Account(ctx, f.account.ID)
	wantErr(t, "Account(deleted)", err, docmill.ErrNotFound)
	_, err = s.AccountByEmail(ctx, f.account.Email)
	wantErr(t, "AccountByEmail(deleted)", err, docmill.ErrNotFound)
	_, _, err = s.KeyByHash(ctx, f.key.Hash)
	wantErr(t, "KeyByHash(deleted)", err, docmill.ErrNotFound)
	for _, j := range f.jobs {
		_, err = s.Job(ctx, j.ID)
		wantErr(t, "Job(deleted)", err, docmill.ErrNotFound)
	}
	_, err = s.Webhook(ctx, f.webhook.ID)
	wantErr(t, "Webhook(deleted)", err, docmill.ErrNotFound)
	if as, err := s.WebhookAttempts(ctx, f.webhook.ID, 10); err != nil || len(as) != 0 {
		t.Errorf("WebhookAttempts(deleted) = %v, %v", deref(as), err)
	}
	_, _, err = s.SessionByHash(ctx, f.session.Hash)
	wantErr(t, "SessionByHash(deleted)", err, docmill.ErrNotFound)
	for _, tok := range f.tokens {
		_, err = s.UseAuthToken(ctx, tok.Hash, t0)
		wantErr(t, "UseAuthToken(deleted)", err, docmill.ErrNotFound)
	}
	if u := mustUsage(t, s, f.account.ID, period); u.Operations != 0 || u.InFlight != 0 {
		t.Errorf("Usage(deleted) = %+v", u)
	}
}

// wantKept fails t unless the store still has all of f.
func wantKept(t *testing.T, s docmill.Store, f *accountFixture) {
	t.Helper()
	ctx := t.Context()
	if _, _, err := s.KeyByHash(ctx, f.key.Hash); err != nil {
		t.Errorf("another account's key: %v", err)
	}
	for _, j := range f.jobs {
		mustJob(t, s, j.ID)
	}
	if as, err := s.WebhookAttempts(ctx, f.webhook.ID, 10); err != nil || len(as) != 1 {
		t.Errorf("another account's webhook attempts: %v, %v", deref(as), err)
	}
	if _, _, err := s.SessionByHash(ctx, f.session.Hash); err != nil {
		t.Errorf("another account's session: %v", err)
	}
	if u := mustUsage(t, s, f.account.ID, period); u.Operations != 1 || u.InFlight != 1 {
		t.Errorf("another account's usage: %+v", u)
	}
	for _, tok := range f.tokens {
		if _, err := s.UseAuthToken(ctx, tok.Hash, t0); err != nil {
			t.Errorf("another account's token: %v", err)
		}
	}
}

// accountRows says, for each table of the schema, which of its rows are
// f's account's; nil for a table that holds nothing of any account. A new
// table must be added here, so that deleteAccountRows keeps covering every
// table.
var accountRows = map[string]func(f *accountFixture) (where string, args []any){
	"accounts":    byAccount("id = $1 OR email = $2", true),
	"api_keys":    byAccount("account_id = $1", false),
	"jobs":        byAccount("account_id = $1", false),
	"usage":       byAccount("account_id = $1", false),
	"webhooks":    byAccount("account_id = $1", false),
	"sessions":    byAccount("account_id = $1", false),
	"auth_tokens": byAccount("account_id = $1 OR email = $2", true),
	"webhook_attempts": func(f *accountFixture) (string, []any) {
		return "job_id = $1 OR webhook_id = $2", []any{f.jobs[0].ID, f.webhook.ID}
	},
	"settings":          nil,
	"nodes":             nil,
	"schema_migrations": nil,
}

// byAccount selects rows by the account's id ($1) and, if withEmail, its
// email ($2).
func byAccount(where string, withEmail bool) func(f *accountFixture) (string, []any) {
	return func(f *accountFixture) (string, []any) {
		if withEmail {
			return where, []any{f.account.ID, f.account.Email}
		}
		return where, []any{f.account.ID}
	}
}

// deleteAccountRows checks, in the tables themselves, that DeleteAccount
// leaves no row of the account in any table of the schema, and keeps every
// row of another account.
func deleteAccountRows(t *testing.T, s DriverStore) {
	ctx := t.Context()
	f := newAccountFixture(t, s, "gone@example.com")
	other := newAccountFixture(t, s, "stays@example.com")
	tables, err := s.queryStrings(ctx, s.Tables)
	if err != nil {
		t.Fatalf("Tables: %v", err)
	}
	slices.Sort(tables)
	count := func(table string, f *accountFixture) int64 {
		t.Helper()
		rows, known := accountRows[table]
		if !known {
			t.Fatalf("table %s is not in storetest's accountRows: say which of its rows are an account's", table)
		}
		if rows == nil {
			return 0
		}
		where, args := rows(f)
		n, err := s.queryCount(ctx, `SELECT COUNT(*) FROM `+table+` WHERE `+where, args...)
		if err != nil {
			t.Fatalf("count rows of %s: %v", table, err)
		}
		return n
	}
	for _, table := range tables {
		if accountRows[table] != nil && count(table, f) == 0 {
			t.Errorf("the fixture has no row in %s: the check would prove nothing", table)
		}
	}
	if _, err := s.DeleteAccount(ctx, f.account.ID); err != nil {
		t.Fatalf("DeleteAccount: %v", err)
	}
	for _, table := range tables {
		if n := count(table, f); n != 0 {
			t.Errorf("%s keeps %d rows of the deleted account", table, n)
		}
		if accountRows[table] != nil && count(table, other) == 0 {
			t.Errorf("%s lost the rows of another account", table)
		}
	}
}

// testConcurrentDeleteAccount: jobs created while their account is
// deleted are either deleted with it (and returned) or refused as
// ErrNotFound; none outlives the account.
func testConcurrentDeleteAccount(t *testing.T, s docmill.Store) {
	ctx := t.Context()
	a, _ := newEmailAccount(t, s, "a@example.com", t0)
	var wg sync.WaitGroup
	created := make([]*docmill.Job, 8)
	errs := make([]error, len(created))
	var d *docmill.AccountDeletion
	var derr error
	for i := range created {
		wg.Add(1)
		go func() {
			defer wg.Done()
			created[i], errs[i] = s.CreateJob(ctx, NewJob(a), unlimited)
		}()
		if i == len(created)/2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, derr = s.DeleteAccount(ctx, a.ID)
			}()
		}
	}
	wg.Wait()
	if derr != nil {
		t.Fatalf("DeleteAccount: %v", derr)
	}
	deleted := ids(d.Jobs)
	t.Logf("%d of %d jobs were created before the deletion", len(deleted), len(created))
	for i, j := range created {
		if errs[i] != nil {
			wantErr(t, "CreateJob(deleted account)", errs[i], docmill.ErrNotFound)
			continue
		}
		if !slices.Contains(deleted, j.ID) {
			t.Errorf("job %s was created but DeleteAccount did not return it", j.ID)
		}
		_, err := s.Job(ctx, j.ID)
		wantErr(t, "Job(created while its account was deleted)", err, docmill.ErrNotFound)
	}
}
