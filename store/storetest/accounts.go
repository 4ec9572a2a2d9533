package storetest

import (
	"testing"
	"time"

	"github.com/docmill/docmill"
)

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

func testKeys(t *testing.T, s docmill.Store) {
	a, first, key := NewAccount(t, s, docmill.PlanPro)
	b, _, _ := NewAccount(t, s, docmill.PlanFree)
	_, second := docmill.NewAPIKey(a.ID, "second", t0.Add(time.Minute))
	if err := s.CreateKey(t.Context(), &second); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	_, orphan := docmill.NewAPIKey("acct_missing", "orphan", t0)
	if err := s.CreateKey(t.Context(), &orphan); err == nil {
		t.Errorf("CreateKey of an unknown account succeeded")
	}

	gotKey, gotAccount, err := s.KeyByHash(t.Context(), docmill.HashKey(key))
	if err != nil {
		t.Fatalf("KeyByHash: %v", err)
	}
	same(t, "KeyByHash key", gotKey, first)
	same(t, "KeyByHash account", gotAccount, a)
	_, _, err = s.KeyByHash(t.Context(), docmill.HashKey("dm_live_nope"))
	wantErr(t, "KeyByHash(unknown)", err, docmill.ErrNotFound)

	list, err := s.ListKeys(t.Context())
	if err != nil {
		t.Fatalf("ListKeys: %v", err)
	}
	if len(list) != 3 {
		t.Fatalf("ListKeys returned %d keys, want 3", len(list))
	}
	// a's first key and b's key share t0; the second key is a minute later.
	last := list[2]
	same(t, "ListKeys[2].Key", &last.Key, &second)
	same(t, "ListKeys[2].Account", &last.Account, a)
	for _, l := range list[:2] {
		if l.Key.AccountID != l.Account.ID || (l.Account.ID != a.ID && l.Account.ID != b.ID) {
			t.Errorf("ListKeys: key of %s listed with account %s", l.Key.AccountID, l.Account.ID)
		}
	}
}

// prefixKeys stores keys with chosen display prefixes on one account.
func prefixKeys(t *testing.T, s docmill.Store, prefixes ...string) map[string]docmill.APIKey {
	t.Helper()
	a := &docmill.Account{ID: docmill.NewID("acct_"), Name: "prefixes", Plan: docmill.PlanFree, CreatedAt: t0}
	// The account's first key has a fixed prefix too, so that no random
	// prefix can make the tests' matches ambiguous.
	first := docmill.APIKey{Hash: docmill.HashKey("first"), Prefix: "dm_live_0000", AccountID: a.ID, Name: "first", CreatedAt: t0}
	if err := s.CreateAccount(t.Context(), a, &first); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	out := map[string]docmill.APIKey{}
	for i, p := range prefixes {
		k := docmill.APIKey{Hash: docmill.HashKey(p + "-secret"), Prefix: p, AccountID: a.ID,
			Name: p, CreatedAt: t0.Add(time.Duration(i+1) * time.Second)}
		if err := s.CreateKey(t.Context(), &k); err != nil {
			t.Fatalf("CreateKey(%s): %v", p, err)
		}
		out[p] = k
	}
	return out
}

func testRevokeKey(t *testing.T, s docmill.Store) {
	keys := prefixKeys(t, s, "dm_live_AAAA", "dm_live_AAAB", "dm_live_aaaa")
	now := t0.Add(time.Hour + 456*time.Microsecond)

	_, err := s.RevokeKey(t.Context(), "dm_live_AAA", now)
	wantCode(t, "RevokeKey(ambiguous)", err, docmill.CodeInvalidRequest)
	_, err = s.RevokeKey(t.Context(), "dm_live_X", now)
	wantErr(t, "RevokeKey(no match)", err, docmill.ErrNotFound)
	// "_" is no wildcard: "dmXlive" matches nothing.
	_, err = s.RevokeKey(t.Context(), "dmXlive_AAAB", now)
	wantErr(t, "RevokeKey(dmXlive_AAAB)", err, docmill.ErrNotFound)
	if _, err := s.RevokeKey(t.Context(), "", now); err == nil {
		t.Errorf("RevokeKey(\"\") succeeded")
	}

	// Prefixes are case-sensitive: "dm_live_a" is the lowercase key only.
	got, err := s.RevokeKey(t.Context(), "dm_live_a", now)
	if err != nil {
		t.Fatalf("RevokeKey(dm_live_a): %v", err)
	}
	want := keys["dm_live_aaaa"]
	want.RevokedAt = ptr(ms(now))
	same(t, "RevokeKey(dm_live_a)", got, &want)
	gotKey, _, err := s.KeyByHash(t.Context(), want.Hash)
	if err != nil {
		t.Fatalf("KeyByHash(revoked): %v", err)
	}
	same(t, "KeyByHash(revoked)", gotKey, &want)

	// Revoking again keeps the first revocation time.
	got, err = s.RevokeKey(t.Context(), "dm_live_aaaa", now.Add(time.Hour))
	if err != nil {
		t.Fatalf("RevokeKey(again): %v", err)
	}
	same(t, "RevokeKey(again)", got, &want)

	// The whole display prefix, and a whole key, designate one key.
	got, err = s.RevokeKey(t.Context(), "dm_live_AAAB", now)
	if err != nil || got.Hash != keys["dm_live_AAAB"].Hash || got.RevokedAt == nil {
		t.Errorf("RevokeKey(dm_live_AAAB) = %+v, %v", got, err)
	}
	a, _, key := NewAccount(t, s, docmill.PlanFree)
	got, err = s.RevokeKey(t.Context(), key, now)
	if err != nil || got.AccountID != a.ID || got.RevokedAt == nil {
		t.Errorf("RevokeKey(whole key) = %+v, %v", got, err)
	}
	if k, _, _ := s.KeyByHash(t.Context(), keys["dm_live_AAAA"].Hash); k == nil || k.RevokedAt != nil {
		t.Errorf("dm_live_AAAA was revoked too: %+v", k)
	}
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
