package storetest

import (
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// keyTests are the tests of docmill.Keys.
var keyTests = []test{
	{"Keys", testKeys},
	{"RevokeKey", testRevokeKey},
	{"AccountKeys", testAccountKeys},
	{"RenameAccountKey", testRenameAccountKey},
	{"TouchKey", testTouchKey},
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

// testAccountKeys: an account's own keys are listed, added up to a bound
// that holds under concurrent additions, and revoked by their whole
// display prefix, never across accounts.
func testAccountKeys(t *testing.T, s docmill.Store) {
	keys := prefixKeys(t, s, "dm_live_AAAA", "dm_live_AAAB")
	acct := keys["dm_live_AAAA"].AccountID
	b := &docmill.Account{ID: docmill.NewID("acct_"), Name: "other", Plan: docmill.PlanFree, CreatedAt: t0}
	other := docmill.APIKey{Hash: docmill.HashKey("other"), Prefix: "dm_live_BBBB", AccountID: b.ID, Name: "other", CreatedAt: t0}
	if err := s.CreateAccount(t.Context(), b, &other); err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}

	list, err := s.AccountKeys(t.Context(), acct)
	if err != nil {
		t.Fatalf("AccountKeys: %v", err)
	}
	var prefixes []string
	for _, k := range list {
		prefixes = append(prefixes, k.Prefix)
	}
	same(t, "AccountKeys prefixes", prefixes, []string{"dm_live_0000", "dm_live_AAAA", "dm_live_AAAB"})
	want := keys["dm_live_AAAB"]
	same(t, "AccountKeys[2]", &list[2], &want)
	if list, err := s.AccountKeys(t.Context(), "acct_none"); err != nil || len(list) != 0 {
		t.Errorf("AccountKeys(unknown) = %v, %v; want none", list, err)
	}

	now := t0.Add(time.Hour)
	// Only the whole prefix of a key of the same account designates it.
	_, err = s.RevokeAccountKey(t.Context(), acct, "dm_live_AAA", now)
	wantErr(t, "RevokeAccountKey(part of a prefix)", err, docmill.ErrNotFound)
	_, err = s.RevokeAccountKey(t.Context(), acct, other.Prefix, now)
	wantErr(t, "RevokeAccountKey(another account's)", err, docmill.ErrNotFound)
	got, err := s.RevokeAccountKey(t.Context(), acct, "dm_live_AAAB", now)
	if err != nil {
		t.Fatalf("RevokeAccountKey: %v", err)
	}
	want.RevokedAt = ptr(ms(now))
	same(t, "RevokeAccountKey", got, &want)
	got, err = s.RevokeAccountKey(t.Context(), acct, "dm_live_AAAB", now.Add(time.Hour))
	if err != nil {
		t.Fatalf("RevokeAccountKey(again): %v", err)
	}
	same(t, "RevokeAccountKey(again)", got, &want)
	if k, _, err := s.KeyByHash(t.Context(), other.Hash); err != nil || k.RevokedAt != nil {
		t.Errorf("the other account's key: %+v, %v", k, err)
	}

	// Two keys are active (the first and AAAA); a bound of 5 admits three
	// more of eight concurrent additions.
	added := concurrentWins(t, "AddAccountKey(past the bound)", 8, docmill.ErrTooManyKeys, func() error {
		_, k := docmill.NewAPIKey(acct, "more", t0)
		return s.AddAccountKey(t.Context(), &k, 5)
	})
	if added != 3 {
		t.Errorf("AddAccountKey added %d keys under a bound of 5 with 2 active, want 3", added)
	}
	_, orphan := docmill.NewAPIKey("acct_none", "orphan", t0)
	wantErr(t, "AddAccountKey(unknown account)", s.AddAccountKey(t.Context(), &orphan, 5), docmill.ErrNotFound)
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
