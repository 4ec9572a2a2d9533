package storetest

import (
	"testing"
	"time"

	"github.com/docmill/docmill"
)

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

// testRenameAccountKey: an account renames its own keys by their whole
// display prefix, never another account's.
func testRenameAccountKey(t *testing.T, s docmill.Store) {
	ctx := t.Context()
	a, k := newEmailAccount(t, s, "a@example.com", t0)
	b, other := newEmailAccount(t, s, "b@example.com", t0)
	got, err := s.RenameAccountKey(ctx, a.ID, k.Prefix, "laptop")
	if err != nil {
		t.Fatalf("RenameAccountKey: %v", err)
	}
	want := *k
	want.Name = "laptop"
	same(t, "RenameAccountKey", got, &want)
	if keys, err := s.AccountKeys(ctx, a.ID); err != nil || len(keys) != 1 || keys[0].Name != "laptop" {
		t.Errorf("AccountKeys after the rename: %+v, %v", keys, err)
	}
	_, err = s.RenameAccountKey(ctx, a.ID, other.Prefix, "stolen")
	wantErr(t, "RenameAccountKey(another account's key)", err, docmill.ErrNotFound)
	_, err = s.RenameAccountKey(ctx, a.ID, k.Prefix[:10], "part")
	wantErr(t, "RenameAccountKey(part of a prefix)", err, docmill.ErrNotFound)
	if keys, err := s.AccountKeys(ctx, b.ID); err != nil || keys[0].Name != other.Name {
		t.Errorf("the other account's key: %+v, %v", keys, err)
	}
}

// testTouchKey: a key's last use is recorded, at most once a minute, never
// moved back, and read by every method that returns keys.
func testTouchKey(t *testing.T, s docmill.Store) {
	ctx := t.Context()
	a, k := newEmailAccount(t, s, "a@example.com", t0)
	touch := func(ip string, at time.Time) {
		t.Helper()
		if err := s.TouchKey(ctx, k.Hash, ip, at); err != nil {
			t.Fatalf("TouchKey: %v", err)
		}
	}
	wantUse := func(what string, at time.Time, ip string) {
		t.Helper()
		want := *k
		want.LastUsedAt, want.LastUsedIP = ptr(ms(at)), ip
		got, _, err := s.KeyByHash(ctx, k.Hash)
		if err != nil {
			t.Fatalf("KeyByHash: %v", err)
		}
		same(t, what+": KeyByHash", got, &want)
		keys, err := s.AccountKeys(ctx, a.ID)
		if err != nil || len(keys) != 1 {
			t.Fatalf("AccountKeys: %v, %v", keys, err)
		}
		same(t, what+": AccountKeys", &keys[0], &want)
		list, err := s.ListKeys(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("ListKeys: %v, %v", list, err)
		}
		same(t, what+": ListKeys", &list[0].Key, &want)
	}
	if got, _, _ := s.KeyByHash(ctx, k.Hash); got.LastUsedAt != nil || got.LastUsedIP != "" {
		t.Errorf("a new key was used at %v from %q", got.LastUsedAt, got.LastUsedIP)
	}
	at := t0.Add(123 * time.Microsecond)
	touch("192.0.2.1", at)
	wantUse("first use", at, "192.0.2.1")
	touch("2001:db8::1", at.Add(59*time.Second))
	wantUse("within the minute", at, "192.0.2.1")
	touch("2001:db8::1", at.Add(-time.Hour))
	wantUse("an earlier use", at, "192.0.2.1")
	later := at.Add(time.Minute)
	touch("2001:db8::1", later)
	wantUse("a minute later", later, "2001:db8::1")
	if err := s.TouchKey(ctx, docmill.HashKey("unknown"), "192.0.2.1", later); err != nil {
		t.Errorf("TouchKey(unknown key): %v, want nil", err)
	}
}
