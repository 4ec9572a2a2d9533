package storetest

import (
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// sessionTests are the tests of docmill.AuthTokens and docmill.Sessions.
var sessionTests = []test{
	{"AuthTokens", testAuthTokens},
	{"ConcurrentAuthToken", testConcurrentAuthToken},
	{"Sessions", testSessions},
}

// testAuthTokens: a mailed link's token round-trips, works once and only
// before it expires, and is deleted once expired.
func testAuthTokens(t *testing.T, s docmill.Store) {
	ctx := t.Context()
	a, _ := newEmailAccount(t, s, "a@example.com", t0)
	_, signup := docmill.NewAuthToken(docmill.TokenSignup, "new@example.com", t0)
	signup.Name, signup.Lang = "Newcomer", "ru"
	_, signIn := docmill.NewAuthToken(docmill.TokenSignIn, a.Email, t0.Add(time.Hour))
	signIn.AccountID, signIn.Lang = a.ID, "en"
	for _, tok := range []*docmill.AuthToken{&signup, &signIn} {
		if err := s.CreateAuthToken(ctx, tok); err != nil {
			t.Fatalf("CreateAuthToken: %v", err)
		}
	}
	used := t0.Add(time.Minute)
	got, err := s.UseAuthToken(ctx, signup.Hash, used)
	if err != nil {
		t.Fatalf("UseAuthToken: %v", err)
	}
	want := signup
	want.UsedAt = ptr(used)
	same(t, "UseAuthToken(signup)", got, &want)
	_, err = s.UseAuthToken(ctx, signup.Hash, used.Add(time.Second))
	wantErr(t, "UseAuthToken(used)", err, docmill.ErrNotFound)
	_, err = s.UseAuthToken(ctx, docmill.HashKey("unknown"), used)
	wantErr(t, "UseAuthToken(unknown)", err, docmill.ErrNotFound)

	// The sign-in token expires AuthTokenTTL after its creation.
	_, err = s.UseAuthToken(ctx, signIn.Hash, signIn.ExpiresAt)
	wantErr(t, "UseAuthToken(expired)", err, docmill.ErrNotFound)
	got, err = s.UseAuthToken(ctx, signIn.Hash, signIn.ExpiresAt.Add(-time.Millisecond))
	if err != nil {
		t.Fatalf("UseAuthToken(just before it expires): %v", err)
	}
	if got.AccountID != a.ID || got.Purpose != docmill.TokenSignIn || got.Email != a.Email {
		t.Errorf("UseAuthToken(sign-in) = %+v", got)
	}

	// Deleting: only what expired before t goes, used or not.
	_, fresh := docmill.NewAuthToken(docmill.TokenSignup, "fresh@example.com", t0.Add(48*time.Hour))
	if err := s.CreateAuthToken(ctx, &fresh); err != nil {
		t.Fatal(err)
	}
	n, err := s.DeleteExpiredAuthTokens(ctx, signIn.ExpiresAt.Add(time.Millisecond))
	if err != nil || n != 2 {
		t.Errorf("DeleteExpiredAuthTokens = %d, %v; want 2", n, err)
	}
	if _, err := s.UseAuthToken(ctx, fresh.Hash, fresh.CreatedAt); err != nil {
		t.Errorf("the unexpired token was deleted: %v", err)
	}
}

// testConcurrentAuthToken: of concurrent uses of one token, exactly one
// succeeds.
func testConcurrentAuthToken(t *testing.T, s docmill.Store) {
	_, tok := docmill.NewAuthToken(docmill.TokenSignup, "race@example.com", t0)
	if err := s.CreateAuthToken(t.Context(), &tok); err != nil {
		t.Fatal(err)
	}
	const uses = 8
	won := concurrentWins(t, "UseAuthToken(concurrent)", uses, docmill.ErrNotFound, func() error {
		_, err := s.UseAuthToken(t.Context(), tok.Hash, t0.Add(time.Minute))
		return err
	})
	if won != 1 {
		t.Errorf("%d of %d concurrent uses of one token succeeded, want 1", won, uses)
	}
}

// testSessions: a session round-trips with its account, is revoked once,
// and is deleted once expired.
func testSessions(t *testing.T, s docmill.Store) {
	ctx := t.Context()
	a, _ := newEmailAccount(t, s, "a@example.com", t0)
	_, sess := docmill.NewSession(a.ID, "192.0.2.7", "Firefox", t0)
	_, old := docmill.NewSession(a.ID, "192.0.2.8", "Chromium", t0.Add(-docmill.SessionTTL))
	for _, x := range []*docmill.Session{&sess, &old} {
		if err := s.CreateSession(ctx, x); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
	}
	got, acct, err := s.SessionByHash(ctx, sess.Hash)
	if err != nil {
		t.Fatalf("SessionByHash: %v", err)
	}
	same(t, "SessionByHash session", got, &sess)
	same(t, "SessionByHash account", acct, a)
	if !got.Active(t0.Add(time.Hour)) {
		t.Errorf("a new session is not active")
	}
	_, _, err = s.SessionByHash(ctx, docmill.HashKey("unknown"))
	wantErr(t, "SessionByHash(unknown)", err, docmill.ErrNotFound)

	revoked := t0.Add(time.Hour)
	for _, at := range []time.Time{revoked, revoked.Add(time.Hour)} {
		if err := s.RevokeSession(ctx, sess.Hash, at); err != nil {
			t.Fatalf("RevokeSession: %v", err)
		}
	}
	if err := s.RevokeSession(ctx, docmill.HashKey("unknown"), revoked); err != nil {
		t.Errorf("RevokeSession(unknown): %v, want nil", err)
	}
	got, _, err = s.SessionByHash(ctx, sess.Hash)
	if err != nil {
		t.Fatalf("SessionByHash(revoked): %v", err)
	}
	want := sess
	want.RevokedAt = ptr(revoked)
	same(t, "revoked session (first revocation stands)", got, &want)
	if got.Active(revoked) {
		t.Errorf("a revoked session is active")
	}
	if got, _, err := s.SessionByHash(ctx, old.Hash); err != nil || got.RevokedAt != nil {
		t.Errorf("revoking one session touched another: %+v, %v", got, err)
	}

	n, err := s.DeleteExpiredSessions(ctx, t0.Add(time.Millisecond))
	if err != nil || n != 1 {
		t.Errorf("DeleteExpiredSessions = %d, %v; want 1", n, err)
	}
	_, _, err = s.SessionByHash(ctx, old.Hash)
	wantErr(t, "SessionByHash(expired, deleted)", err, docmill.ErrNotFound)
	if _, _, err := s.SessionByHash(ctx, sess.Hash); err != nil {
		t.Errorf("the unexpired session was deleted: %v", err)
	}
}
