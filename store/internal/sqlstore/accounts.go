package sqlstore

import (
	"context"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqltext"
)

// touchEvery is how old a key's recorded use must be before TouchKey
// records a new one.
const touchEvery = time.Minute

// AccountByEmail returns the account whose stored email is email; none
// (an empty email included) is docmill.ErrNotFound.
func (s *Store) AccountByEmail(ctx context.Context, email string) (*docmill.Account, error) {
	if email == "" {
		return nil, s.errorf("account by email: %w", docmill.ErrNotFound)
	}
	a, err := scanAccount(s.db.Read().QueryRow(ctx, sqltext.AccountByEmail, email))
	if err != nil {
		return nil, s.errorf("account by email: %w", s.notFound(err))
	}
	return a, nil
}

// ListAccounts returns every account with its number of active keys,
// oldest first.
func (s *Store) ListAccounts(ctx context.Context) ([]docmill.AccountListing, error) {
	out, err := queryAll(ctx, s.db.Read(), func(r Row) (docmill.AccountListing, error) {
		var l docmill.AccountListing
		dest, fill := accountDest(&l.Account)
		if err := r.Scan(append(dest, &l.ActiveKeys)...); err != nil {
			return l, err
		}
		fill()
		return l, nil
	}, sqltext.ListAccounts)
	if err != nil {
		return nil, s.errorf("list accounts: %w", err)
	}
	return out, nil
}

// SetAccountStatus moves account id to status. Suspending a suspended
// account keeps its first SuspendedAt. A status other than active and
// suspended is an invalid_request error.
func (s *Store) SetAccountStatus(ctx context.Context, id string, status docmill.AccountStatus, now time.Time) (*docmill.Account, error) {
	if status != docmill.AccountActive && status != docmill.AccountSuspended {
		return nil, docmill.Errorf(docmill.CodeInvalidRequest, "Unknown account status %q.", status)
	}
	return s.updateAccount(ctx, "set account status", id, sqltext.SetAccountStatus,
		id, string(status), millis(now), millis(time.Now()))
}

// SetAccountPlan moves account id to plan, with limits as its own limits,
// or none when limits is nil.
func (s *Store) SetAccountPlan(ctx context.Context, id, plan string, limits *docmill.Plan) (*docmill.Account, error) {
	l := limitColumns(limits)
	return s.updateAccount(ctx, "set plan", id, sqltext.SetPlan,
		id, plan, l.ops, l.maxFile, l.rpm, l.inFlight, l.priority, l.ttl, millis(time.Now()))
}

// updateAccount runs the update query with args on account id and returns
// the account as it then is, in one transaction; an unknown id is
// docmill.ErrNotFound. what names the operation in errors.
func (s *Store) updateAccount(ctx context.Context, what, id, query string, args ...any) (*docmill.Account, error) {
	return updateRow(ctx, s, what, id, query, args, func(tx Tx) (*docmill.Account, error) {
		return scanAccount(tx.QueryRow(ctx, sqltext.Account, id))
	})
}

// updateRow runs the update query with args on the row id and returns
// the row as read then reads it, in one transaction; an update that
// changes no row is docmill.ErrNotFound. what names the operation in
// errors.
func updateRow[T any](ctx context.Context, s *Store, what, id, query string, args []any, read func(Tx) (*T, error)) (*T, error) {
	var row *T
	err := s.db.InTx(ctx, func(tx Tx) error {
		n, err := tx.Exec(ctx, query, args...)
		if err != nil {
			return err
		}
		if n == 0 {
			return docmill.ErrNotFound
		}
		row, err = read(tx)
		return err
	})
	if err != nil {
		return nil, s.errorf("%s %s: %w", what, id, err)
	}
	return row, nil
}

// DeleteAccount removes account id and every row of it, in one
// transaction: its jobs and their webhook attempts, its usage, webhook
// endpoints and their attempts, keys, sessions, and the mailed tokens
// that name it or its email. The account row is locked first, as in
// CreateJob, so that no job of it is admitted meanwhile. It returns the
// jobs as they were, so that their files can be removed.
func (s *Store) DeleteAccount(ctx context.Context, id string) (*docmill.AccountDeletion, error) {
	var d docmill.AccountDeletion
	err := s.db.InTx(ctx, func(tx Tx) error {
		if err := lockAccount(ctx, tx, id); err != nil {
			return err
		}
		a, err := scanAccount(tx.QueryRow(ctx, sqltext.Account, id))
		if err != nil {
			return err
		}
		d.Account = *a
		if d.Jobs, err = queryJobs(ctx, tx, sqltext.AccountJobs, id); err != nil {
			return err
		}
		counts := []struct {
			query string
			n     *int
		}{
			{sqltext.DeleteAccountAttempts, nil},
			{sqltext.DeleteAccountJobs, nil},
			{sqltext.DeleteAccountUsage, nil},
			{sqltext.DeleteAccountWebhooks, &d.Webhooks},
			{sqltext.DeleteAccountKeys, &d.Keys},
			{sqltext.DeleteAccountSessions, &d.Sessions},
		}
		for _, c := range counts {
			n, err := tx.Exec(ctx, c.query, id)
			if err != nil {
				return err
			}
			if c.n != nil {
				*c.n = int(n)
			}
		}
		// An account without email has none of the sign-up tokens.
		n, err := tx.Exec(ctx, sqltext.DeleteAccountTokens, id, nullString(a.Email))
		if err != nil {
			return err
		}
		d.AuthTokens = int(n)
		_, err = tx.Exec(ctx, sqltext.DeleteAccount, id)
		return err
	})
	if err != nil {
		return nil, s.errorf("delete account %s: %w", id, err)
	}
	return &d, nil
}

// RenameAccountKey names the key of account accountID whose display prefix
// is prefix, whole and exact, as RevokeAccountKey finds it; a revoked key
// may be renamed too.
func (s *Store) RenameAccountKey(ctx context.Context, accountID, prefix, name string) (*docmill.APIKey, error) {
	var k *docmill.APIKey
	err := s.db.InTx(ctx, func(tx Tx) error {
		hash, err := accountKeyHash(ctx, tx, accountID, prefix, "Several keys of this account start with %s.")
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sqltext.RenameKey, hash, name); err != nil {
			return err
		}
		k, err = scanKey(tx.QueryRow(ctx, sqltext.KeyHash, hash))
		return err
	})
	if err != nil {
		return nil, s.errorf("rename key: %w", err)
	}
	return k, nil
}

// TouchKey records the key's use at now from ip unless its recorded use
// is less than a minute older (or newer: a late call never moves it
// back). The check is read first on the read pool, so that a busy key
// takes no write lock per request; the update checks again. An unknown
// key is left alone, without error.
func (s *Store) TouchKey(ctx context.Context, hash, ip string, now time.Time) error {
	var last int64
	err := s.db.Read().QueryRow(ctx, sqltext.KeyLastUsed, hash).Scan(&last)
	if err != nil {
		if s.cfg.IsNoRows(err) {
			return nil
		}
		return s.errorf("touch key: %w", err)
	}
	before := millis(now) - touchEvery.Milliseconds()
	if last != 0 && last > before {
		return nil
	}
	err = s.db.InTx(ctx, func(tx Tx) error {
		_, err := tx.Exec(ctx, sqltext.TouchKey, hash, millis(now), nullString(ip), before)
		return err
	})
	if err != nil {
		return s.errorf("touch key: %w", err)
	}
	return nil
}
