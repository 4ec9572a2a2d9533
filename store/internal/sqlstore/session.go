package sqlstore

import (
	"context"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqltext"
)

// CreateAuthToken stores t; a sign-in token's AccountID must name an
// account.
func (s *Store) CreateAuthToken(ctx context.Context, t *docmill.AuthToken) error {
	err := s.db.InTx(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, sqltext.InsertAuthToken, t.Hash, string(t.Purpose), t.Email, t.Name, t.Lang,
			nullString(t.AccountID), millis(t.CreatedAt), millis(t.ExpiresAt), nullMillis(t.UsedAt))
		return err
	})
	if err != nil {
		return s.errorf("create auth token: %w", err)
	}
	return nil
}

// UseAuthToken marks the token used at now and returns it, in one
// statement, if it is unused and expires after now; otherwise it is
// docmill.ErrNotFound. Of concurrent calls for one token, one succeeds.
func (s *Store) UseAuthToken(ctx context.Context, hash string, now time.Time) (*docmill.AuthToken, error) {
	var t *docmill.AuthToken
	err := s.db.InTx(ctx, func(tx Tx) error {
		var err error
		t, err = scanAuthToken(tx.QueryRow(ctx, sqltext.UseAuthToken, hash, millis(now)))
		return s.notFound(err)
	})
	if err != nil {
		return nil, s.errorf("use auth token: %w", err)
	}
	return t, nil
}

// DeleteExpiredAuthTokens removes the tokens that expired before t, used
// or not.
func (s *Store) DeleteExpiredAuthTokens(ctx context.Context, t time.Time) (int64, error) {
	return s.deleteExpired(ctx, "auth tokens", sqltext.DeleteExpiredAuthTokens, t)
}

// CreateSession stores sess.
func (s *Store) CreateSession(ctx context.Context, sess *docmill.Session) error {
	err := s.db.InTx(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, sqltext.InsertSession, sess.Hash, sess.AccountID, millis(sess.CreatedAt),
			millis(sess.ExpiresAt), sess.IP, sess.UserAgent, nullMillis(sess.RevokedAt))
		return err
	})
	if err != nil {
		return s.errorf("create session: %w", err)
	}
	return nil
}

// SessionByHash returns the session with hash, whatever its state, and its
// account; none is docmill.ErrNotFound.
func (s *Store) SessionByHash(ctx context.Context, hash string) (*docmill.Session, *docmill.Account, error) {
	var sess docmill.Session
	var a docmill.Account
	var created, expires int64
	var revoked *int64
	dest, fill := accountDest(&a)
	dest = append([]any{&sess.Hash, &sess.AccountID, &created, &expires, &sess.IP, &sess.UserAgent, &revoked}, dest...)
	if err := s.db.Read().QueryRow(ctx, sqltext.SessionByHash, hash).Scan(dest...); err != nil {
		return nil, nil, s.errorf("session: %w", s.notFound(err))
	}
	fill()
	sess.CreatedAt = fromMillis(created)
	sess.ExpiresAt = fromMillis(expires)
	sess.RevokedAt = timePtr(revoked)
	return &sess, &a, nil
}

// RevokeSession revokes the session with hash at now, unless it is
// revoked already or unknown.
func (s *Store) RevokeSession(ctx context.Context, hash string, now time.Time) error {
	err := s.db.InTx(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, sqltext.RevokeSession, hash, millis(now))
		return err
	})
	if err != nil {
		return s.errorf("revoke session: %w", err)
	}
	return nil
}

// DeleteExpiredSessions removes the sessions that expired before t,
// revoked or not.
func (s *Store) DeleteExpiredSessions(ctx context.Context, t time.Time) (int64, error) {
	return s.deleteExpired(ctx, "sessions", sqltext.DeleteExpiredSessions, t)
}

// deleteExpired runs the delete query with t and returns how many rows it
// removed.
func (s *Store) deleteExpired(ctx context.Context, what, query string, t time.Time) (int64, error) {
	var n int64
	err := s.db.InTx(ctx, func(tx Tx) error {
		var err error
		n, err = tx.Exec(ctx, query, millis(t))
		return err
	})
	if err != nil {
		return 0, s.errorf("delete expired %s: %w", what, err)
	}
	return n, nil
}

// scanAuthToken reads one row of sqltext.AuthTokenColumns.
func scanAuthToken(r Row) (*docmill.AuthToken, error) {
	var t docmill.AuthToken
	var purpose string
	var created, expires int64
	var used *int64
	err := r.Scan(&t.Hash, &purpose, &t.Email, &t.Name, &t.Lang, &t.AccountID, &created, &expires, &used)
	if err != nil {
		return nil, err
	}
	t.Purpose = docmill.TokenPurpose(purpose)
	t.CreatedAt = fromMillis(created)
	t.ExpiresAt = fromMillis(expires)
	t.UsedAt = timePtr(used)
	return &t, nil
}
