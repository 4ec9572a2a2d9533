package storetest

import (
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// accountTests are the tests of docmill.Accounts.
var accountTests = []test{
	{"Accounts", testAccounts},
	{"AccountEmailUnique", testAccountEmailUnique},
	{"SetPlan", testSetPlan},
	{"AccountByEmail", testAccountByEmail},
	{"ListAccounts", testListAccounts},
	{"AccountStatus", testAccountStatus},
	{"DeleteAccount", testDeleteAccount},
	{"ConcurrentDeleteAccount", testConcurrentDeleteAccount},
}

func testAccounts(t *testing.T, s docmill.Store) {
	// A time off the millisecond and outside UTC comes back truncated, in UTC.
	created := time.Date(2026, 11, 22, 12, 30, 0, 123_456_789, time.FixedZone("X", 3*3600))
	plain := &docmill.Account{ID: "acct_plain", Name: "Plain", Email: "plain@example.com", Plan: docmill.PlanFree, CreatedAt: created}
	custom := &docmill.Account{ID: "acct_custom", Name: "Custom", Plan: docmill.PlanCustom, CreatedAt: t0,
		Limits: &docmill.Plan{Name: docmill.PlanCustom, OperationsPerMonth: 2_000_000, MaxFileBytes: 0,
			RequestsPerMinute: 900, JobsInFlight: 64, Priority: 1, ResultTTL: 48 * time.Hour}}
	for _, a := range []*docmill.Account{plain, custom} {
		_, k := docmill.NewAPIKey(a.ID, "first", t0)
		if err := s.CreateAccount(t.Context(), a, &k); err != nil {
			t.Fatalf("CreateAccount(%s): %v", a.ID, err)
		}
		got, err := s.Account(t.Context(), a.ID)
		if err != nil {
			t.Fatalf("Account(%s): %v", a.ID, err)
		}
		want := *a
		want.CreatedAt = ms(a.CreatedAt)
		same(t, "Account", got, &want)
	}
	_, err := s.Account(t.Context(), "acct_missing")
	wantErr(t, "Account(missing)", err, docmill.ErrNotFound)
}

func testAccountEmailUnique(t *testing.T, s docmill.Store) {
	for i, email := range []string{"a@example.com", "", ""} {
		a := &docmill.Account{ID: docmill.NewID("acct_"), Name: "n", Email: email, Plan: docmill.PlanFree, CreatedAt: t0}
		_, k := docmill.NewAPIKey(a.ID, "k", t0)
		if err := s.CreateAccount(t.Context(), a, &k); err != nil {
			t.Fatalf("CreateAccount #%d (email %q): %v", i, email, err)
		}
	}
	a := &docmill.Account{ID: docmill.NewID("acct_"), Name: "n", Email: "a@example.com", Plan: docmill.PlanFree, CreatedAt: t0}
	_, k := docmill.NewAPIKey(a.ID, "k", t0)
	err := s.CreateAccount(t.Context(), a, &k)
	wantErr(t, "CreateAccount(same email)", err, docmill.ErrEmailTaken)
	_, err = s.Account(t.Context(), a.ID)
	wantErr(t, "Account of the refused account", err, docmill.ErrNotFound)
	_, _, err = s.KeyByHash(t.Context(), k.Hash)
	wantErr(t, "KeyByHash of the refused account's key", err, docmill.ErrNotFound)
}

// testSetPlan: an account's plan and own limits (their Name is the plan's),
// by its id; other accounts keep theirs.
func testSetPlan(t *testing.T, s docmill.Store) {
	a, _, _ := NewAccount(t, s, docmill.PlanFree)
	other, _, _ := NewAccount(t, s, docmill.PlanFree)
	limits := &docmill.Plan{Name: "ignored", OperationsPerMonth: 5_000_000, MaxFileBytes: 1 << 33,
		RequestsPerMinute: 1000, JobsInFlight: 100, Priority: 1, ResultTTL: 72 * time.Hour}

	got, err := s.SetAccountPlan(t.Context(), a.ID, docmill.PlanCustom, limits)
	if err != nil {
		t.Fatalf("SetAccountPlan(custom): %v", err)
	}
	want := *a
	want.Plan = docmill.PlanCustom
	want.Limits = ptr(*limits)
	want.Limits.Name = docmill.PlanCustom
	same(t, "SetAccountPlan(custom)", got, &want)
	stored, err := s.Account(t.Context(), a.ID)
	if err != nil {
		t.Fatalf("Account: %v", err)
	}
	same(t, "Account after SetAccountPlan(custom)", stored, &want)

	got, err = s.SetAccountPlan(t.Context(), a.ID, docmill.PlanTeam, nil)
	if err != nil {
		t.Fatalf("SetAccountPlan(team): %v", err)
	}
	want.Plan, want.Limits = docmill.PlanTeam, nil
	same(t, "SetAccountPlan(team)", got, &want)
	if o, err := s.Account(t.Context(), other.ID); err != nil || o.Plan != docmill.PlanFree || o.Limits != nil {
		t.Errorf("another account changed: %+v, %v", o, err)
	}

	_, err = s.SetAccountPlan(t.Context(), "acct_none", docmill.PlanPro, nil)
	wantErr(t, "SetAccountPlan(unknown)", err, docmill.ErrNotFound)
}

// newEmailAccount stores an account with email on the free plan and its
// first key.
func newEmailAccount(t *testing.T, s docmill.Store, email string, at time.Time) (*docmill.Account, *docmill.APIKey) {
	t.Helper()
	a := &docmill.Account{ID: docmill.NewID("acct_"), Name: "n", Email: email, Plan: docmill.PlanFree, CreatedAt: at}
	_, k := docmill.NewAPIKey(a.ID, "first", at)
	if err := s.CreateAccount(t.Context(), a, &k); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return a, &k
}

// testAccountByEmail: an account is found by its stored email, exactly.
func testAccountByEmail(t *testing.T, s docmill.Store) {
	a, _ := newEmailAccount(t, s, "alice@example.com", t0)
	newEmailAccount(t, s, "bob@example.com", t0)
	if a.Status != docmill.AccountActive {
		t.Errorf("CreateAccount left status %q, want active", a.Status)
	}
	got, err := s.AccountByEmail(t.Context(), "alice@example.com")
	if err != nil {
		t.Fatalf("AccountByEmail: %v", err)
	}
	same(t, "AccountByEmail", got, a)
	for _, email := range []string{"", "carol@example.com", "ALICE@example.com"} {
		_, err := s.AccountByEmail(t.Context(), email)
		wantErr(t, "AccountByEmail("+email+")", err, docmill.ErrNotFound)
	}
}

// testListAccounts: every account, oldest first, with its active keys.
func testListAccounts(t *testing.T, s docmill.Store) {
	b, _ := newEmailAccount(t, s, "b@example.com", t0.Add(time.Minute))
	a, _ := newEmailAccount(t, s, "a@example.com", t0)
	for _, name := range []string{"second", "revoked"} {
		_, k := docmill.NewAPIKey(a.ID, name, t0)
		if err := s.CreateKey(t.Context(), &k); err != nil {
			t.Fatalf("CreateKey: %v", err)
		}
		if name == "revoked" {
			if _, err := s.RevokeKey(t.Context(), k.Prefix, t0); err != nil {
				t.Fatalf("RevokeKey: %v", err)
			}
		}
	}
	if _, err := s.SetAccountStatus(t.Context(), b.ID, docmill.AccountSuspended, t0); err != nil {
		t.Fatalf("SetAccountStatus: %v", err)
	}
	list, err := s.ListAccounts(t.Context())
	if err != nil {
		t.Fatalf("ListAccounts: %v", err)
	}
	if len(list) != 2 {
		t.Fatalf("ListAccounts returned %d accounts, want 2", len(list))
	}
	same(t, "ListAccounts[0]", &list[0].Account, a)
	if list[0].ActiveKeys != 2 {
		t.Errorf("ListAccounts[0].ActiveKeys = %d, want 2 (one revoked)", list[0].ActiveKeys)
	}
	if got := list[1]; got.Account.ID != b.ID || got.ActiveKeys != 1 || !got.Account.Suspended() {
		t.Errorf("ListAccounts[1] = %+v, want %s, 1 key, suspended", got, b.ID)
	}
}

// testAccountStatus: suspension keeps its first time, shows through the
// account's key, and resuming clears it.
func testAccountStatus(t *testing.T, s docmill.Store) {
	ctx := t.Context()
	a, k := newEmailAccount(t, s, "a@example.com", t0)
	t1 := t0.Add(time.Hour)
	got, err := s.SetAccountStatus(ctx, a.ID, docmill.AccountSuspended, t1)
	if err != nil {
		t.Fatalf("SetAccountStatus(suspended): %v", err)
	}
	want := *a
	want.Status, want.SuspendedAt = docmill.AccountSuspended, ptr(t1)
	same(t, "suspended", got, &want)
	got, err = s.SetAccountStatus(ctx, a.ID, docmill.AccountSuspended, t1.Add(time.Hour))
	if err != nil {
		t.Fatalf("SetAccountStatus(suspended again): %v", err)
	}
	same(t, "suspended again", got, &want)
	if _, acct, err := s.KeyByHash(ctx, k.Hash); err != nil || !acct.Suspended() || acct.SuspendedAt == nil {
		t.Errorf("KeyByHash of a suspended account's key: %+v, %v", acct, err)
	}
	got, err = s.SetAccountStatus(ctx, a.ID, docmill.AccountActive, t1.Add(2*time.Hour))
	if err != nil {
		t.Fatalf("SetAccountStatus(active): %v", err)
	}
	same(t, "resumed", got, a)
	_, err = s.SetAccountStatus(ctx, "acct_missing", docmill.AccountSuspended, t1)
	wantErr(t, "SetAccountStatus(unknown)", err, docmill.ErrNotFound)
	_, err = s.SetAccountStatus(ctx, a.ID, "frozen", t1)
	wantCode(t, "SetAccountStatus(frozen)", err, docmill.CodeInvalidRequest)
}
