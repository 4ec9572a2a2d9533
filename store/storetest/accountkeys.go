package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

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
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, k := docmill.NewAPIKey(acct, "more", t0)
			errs[i] = s.AddAccountKey(t.Context(), &k, 5)
		}()
	}
	wg.Wait()
	added := 0
	for _, err := range errs {
		if err == nil {
			added++
		} else {
			wantErr(t, "AddAccountKey(past the bound)", err, docmill.ErrTooManyKeys)
		}
	}
	if added != 3 {
		t.Errorf("AddAccountKey added %d keys under a bound of 5 with 2 active, want 3", added)
	}
	_, orphan := docmill.NewAPIKey("acct_none", "orphan", t0)
	wantErr(t, "AddAccountKey(unknown account)", s.AddAccountKey(t.Context(), &orphan, 5), docmill.ErrNotFound)
}
