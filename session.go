package docmill

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"time"
)

// TokenPurpose says what a mailed link does when it is opened.
type TokenPurpose string

// Token purposes.
const (
	// TokenSignup confirms an address: opening the link creates the
	// account and its first key, and starts a session.
	TokenSignup TokenPurpose = "signup"
	// TokenSignIn starts a session for an existing account.
	TokenSignIn TokenPurpose = "sign_in"
)

// AuthTokenTTL is how long a mailed link works.
const AuthTokenTTL = 24 * time.Hour

// SessionTTL is how long a browser session lasts from its start.
const SessionTTL = 30 * 24 * time.Hour

// AuthToken is a mailed link's token as stored: never the token itself,
// only its hash. A token is used at most once.
type AuthToken struct {
	// Hash is HashKey of the token.
	Hash    string
	Purpose TokenPurpose
	// Email is the mailbox the link was sent to, in CanonicalEmail form.
	Email string
	// Name is the name given at sign-up (TokenSignup).
	Name string
	// Lang is the reader's language ("en", "ru"), for the mail and pages.
	Lang string
	// AccountID is the account a sign-in link opens (TokenSignIn).
	AccountID string
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

// Session is a signed-in browser, as stored: the cookie's value is never
// stored, only its hash.
type Session struct {
	// Hash is HashKey of the cookie's value.
	Hash      string
	AccountID string
	CreatedAt time.Time
	ExpiresAt time.Time
	// IP and UserAgent are the client's when the session started.
	IP        string
	UserAgent string
	RevokedAt *time.Time
}

// Active reports whether the session may be used at now.
func (s *Session) Active(now time.Time) bool {
	return s.RevokedAt == nil && now.Before(s.ExpiresAt)
}

// NewSecret returns 32 random bytes in URL-safe base64 (43 characters):
// the value of a mailed link's token or of a session cookie.
func NewSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// NewAuthToken returns a fresh token for a link and its stored form,
// expiring AuthTokenTTL after now. The caller fills in the rest.
func NewAuthToken(purpose TokenPurpose, email string, now time.Time) (string, AuthToken) {
	tok := NewSecret()
	return tok, AuthToken{Hash: HashKey(tok), Purpose: purpose, Email: email, CreatedAt: now, ExpiresAt: now.Add(AuthTokenTTL)}
}

// NewSession returns a fresh cookie value and its stored session of
// accountID, expiring SessionTTL after now.
func NewSession(accountID, ip, userAgent string, now time.Time) (string, Session) {
	v := NewSecret()
	return v, Session{Hash: HashKey(v), AccountID: accountID, CreatedAt: now, ExpiresAt: now.Add(SessionTTL), IP: ip, UserAgent: userAgent}
}

// AuthTokens keeps mailed links' tokens.
type AuthTokens interface {
	// CreateAuthToken stores t.
	CreateAuthToken(ctx context.Context, t *AuthToken) error
	// UseAuthToken marks the token with hash used at now and returns it,
	// if it is unused and unexpired; otherwise it is ErrNotFound. Two
	// concurrent calls for one token: one succeeds.
	UseAuthToken(ctx context.Context, hash string, now time.Time) (*AuthToken, error)
	// DeleteExpiredAuthTokens removes tokens that expired before t.
	DeleteExpiredAuthTokens(ctx context.Context, t time.Time) (int64, error)
}

// Sessions keeps browser sessions.
type Sessions interface {
	// CreateSession stores s.
	CreateSession(ctx context.Context, s *Session) error
	// SessionByHash returns a session (revoked and expired ones too) and
	// its account; none is ErrNotFound.
	SessionByHash(ctx context.Context, hash string) (*Session, *Account, error)
	// RevokeSession revokes the session with hash at now; an unknown or
	// revoked one is left as it is, without error.
	RevokeSession(ctx context.Context, hash string, now time.Time) error
	// DeleteExpiredSessions removes sessions that expired before t.
	DeleteExpiredSessions(ctx context.Context, t time.Time) (int64, error)
}
