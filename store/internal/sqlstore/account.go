package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqltext"
)

// CreateAccount stores a and its first key k in one transaction. a.ID must
// be set; an empty k.AccountID is set to a.ID, and zero CreatedAt times to
// now. An email another account already has is docmill.ErrEmailTaken.
func (s *Store) CreateAccount(ctx context.Context, a *docmill.Account, k *docmill.APIKey) error {
	if a.ID == "" {
		return s.errorf("create account: empty id")
	}
	if k.AccountID == "" {
		k.AccountID = a.ID
	}
	if k.AccountID != a.ID {
		return s.errorf("create account: key belongs to another account")
	}
	if a.CreatedAt.IsZero() {
		a.CreatedAt = time.Now()
	}
	if a.Status == "" {
		a.Status = docmill.AccountActive
	}
	l := limitColumns(a.Limits)
	err := s.db.InTx(ctx, func(tx Tx) error {
		if a.Email != "" {
			var n int64
			if err := tx.QueryRow(ctx, sqltext.EmailTaken, a.Email).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return docmill.ErrEmailTaken
			}
		}
		_, err := tx.Exec(ctx, sqltext.InsertAccount, a.ID, a.Name, nullString(a.Email), a.Plan,
			l.ops, l.maxFile, l.rpm, l.inFlight, l.priority, l.ttl, millis(a.CreatedAt),
			string(a.Status), nullMillis(a.SuspendedAt))
		if err != nil && s.cfg.IsEmailTaken != nil && s.cfg.IsEmailTaken(err) {
			return docmill.ErrEmailTaken // a concurrent account took it after the check
		}
		if err != nil {
			return err
		}
		return insertKey(ctx, tx, k)
	})
	if err != nil {
		return s.errorf("create account: %w", err)
	}
	return nil
}

// CreateKey stores another key of an existing account; an unknown account
// is docmill.ErrNotFound.
func (s *Store) CreateKey(ctx context.Context, k *docmill.APIKey) error {
	err := s.db.InTx(ctx, func(tx Tx) error {
		if err := lockAccount(ctx, tx, k.AccountID); err != nil {
			return err
		}
		return insertKey(ctx, tx, k)
	})
	if err != nil {
		return s.errorf("create key: %w", err)
	}
	return nil
}

// AddAccountKey stores another key of k's account unless the account
// already has maxActive unrevoked keys (docmill.ErrTooManyKeys), counted
// in the same transaction as the insert, with the account row locked, so
// that concurrent creations cannot overshoot it.
func (s *Store) AddAccountKey(ctx context.Context, k *docmill.APIKey, maxActive int) error {
	err := s.db.InTx(ctx, func(tx Tx) error {
		if err := lockAccount(ctx, tx, k.AccountID); err != nil {
			return err
		}
		var n int64
		if err := tx.QueryRow(ctx, sqltext.CountActiveKeys, k.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= int64(maxActive) {
			return docmill.ErrTooManyKeys
		}
		return insertKey(ctx, tx, k)
	})
	if err != nil {
		return s.errorf("add key: %w", err)
	}
	return nil
}

// AccountKeys returns the keys of account accountID, revoked ones too,
// oldest first.
func (s *Store) AccountKeys(ctx context.Context, accountID string) ([]docmill.APIKey, error) {
	out, err := queryAll(ctx, s.db.Read(), func(r Row) (docmill.APIKey, error) {
		k, err := scanKey(r)
		if err != nil {
			return docmill.APIKey{}, err
		}
		return *k, nil
	}, sqltext.AccountKeys, accountID)
	if err != nil {
		return nil, s.errorf("account keys: %w", err)
	}
	return out, nil
}

// RevokeAccountKey revokes the key of account accountID whose display
// prefix is prefix, whole and exact; a key of another account is
// docmill.ErrNotFound like no key at all. Revoking a revoked key returns
// it unchanged. Two keys of the account with that prefix (a 1 in 62^4
// chance) are an invalid_request error.
func (s *Store) RevokeAccountKey(ctx context.Context, accountID, prefix string, now time.Time) (*docmill.APIKey, error) {
	var k *docmill.APIKey
	err := s.db.InTx(ctx, func(tx Tx) error {
		hash, err := accountKeyHash(ctx, tx, accountID, prefix, "Several keys of this account start with %s; revoke it with `docmill accounts revoke-key`.")
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sqltext.RevokeKey, hash, millis(now)); err != nil {
			return err
		}
		k, err = scanKey(tx.QueryRow(ctx, sqltext.KeyHash, hash))
		return err
	})
	if err != nil {
		return nil, s.errorf("revoke key: %w", err)
	}
	return k, nil
}

// accountKeyHash returns the hash of the key of account accountID whose
// display prefix is exactly prefix: none is docmill.ErrNotFound; several
// (a 1 in 62^4 chance) are an invalid_request error, several saying so
// with the prefix as its one verb.
func accountKeyHash(ctx context.Context, tx Tx, accountID, prefix, several string) (string, error) {
	keys, err := queryAll(ctx, tx, scanKey, sqltext.AccountKeyByPrefix, accountID, prefix)
	if err != nil {
		return "", err
	}
	switch len(keys) {
	case 0:
		return "", docmill.ErrNotFound
	case 1:
		return keys[0].Hash, nil
	default:
		return "", docmill.Errorf(docmill.CodeInvalidRequest, several, prefix)
	}
}

// lockAccount touches the account row (see sqltext.LockAccount): it serializes the
// writers of one account and fails with docmill.ErrNotFound if there is no
// such account.
func lockAccount(ctx context.Context, tx Tx, id string) error {
	n, err := tx.Exec(ctx, sqltext.LockAccount, id, millis(time.Now()))
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("account %s: %w", id, docmill.ErrNotFound)
	}
	return nil
}

func insertKey(ctx context.Context, tx Tx, k *docmill.APIKey) error {
	if k.CreatedAt.IsZero() {
		k.CreatedAt = time.Now()
	}
	_, err := tx.Exec(ctx, sqltext.InsertKey, k.Hash, k.Prefix, k.AccountID, k.Name,
		millis(k.CreatedAt), nullMillis(k.RevokedAt), nullMillis(k.LastUsedAt), nullString(k.LastUsedIP))
	return err
}

// KeyByHash returns the key with hash, revoked or not, and its account; an
// unknown hash is docmill.ErrNotFound.
func (s *Store) KeyByHash(ctx context.Context, hash string) (*docmill.APIKey, *docmill.Account, error) {
	var k docmill.APIKey
	var a docmill.Account
	err := scanKeyAccount(s.db.Read().QueryRow(ctx, sqltext.KeyByHash, hash), &k, &a)
	if err != nil {
		return nil, nil, s.errorf("key: %w", s.notFound(err))
	}
	return &k, &a, nil
}

// Account returns the account with id; an unknown id is docmill.ErrNotFound.
func (s *Store) Account(ctx context.Context, id string) (*docmill.Account, error) {
	a, err := scanAccount(s.db.Read().QueryRow(ctx, sqltext.Account, id))
	if err != nil {
		return nil, s.errorf("account %s: %w", id, s.notFound(err))
	}
	return a, nil
}

// ListKeys returns every key with its account, oldest first.
func (s *Store) ListKeys(ctx context.Context) ([]docmill.KeyListing, error) {
	out, err := queryAll(ctx, s.db.Read(), func(r Row) (docmill.KeyListing, error) {
		var l docmill.KeyListing
		err := scanKeyAccount(r, &l.Key, &l.Account)
		return l, err
	}, sqltext.ListKeys)
	if err != nil {
		return nil, s.errorf("list keys: %w", err)
	}
	return out, nil
}

// RevokeKey revokes the key whose 12-character display prefix starts with
// prefix (a whole key is accepted too). Revoked keys are candidates as well:
// revoking one again returns it unchanged. No match is docmill.ErrNotFound;
// several are an invalid_request error.
func (s *Store) RevokeKey(ctx context.Context, prefix string, now time.Time) (*docmill.APIKey, error) {
	var k *docmill.APIKey
	err := s.db.InTx(ctx, func(tx Tx) error {
		var err error
		if k, err = keyByPrefix(ctx, tx, prefix); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, sqltext.RevokeKey, k.Hash, millis(now)); err != nil {
			return err
		}
		k, err = scanKey(tx.QueryRow(ctx, sqltext.KeyHash, k.Hash))
		return err
	})
	if err != nil {
		return nil, s.errorf("revoke key: %w", err)
	}
	return k, nil
}

// keyByPrefix finds the one key that prefix designates.
func keyByPrefix(ctx context.Context, tx Tx, prefix string) (*docmill.APIKey, error) {
	if prefix == "" {
		return nil, docmill.Errorf(docmill.CodeInvalidRequest, "A key prefix is required.")
	}
	hash := ""
	if docmill.WellFormedKey(prefix) {
		hash = docmill.HashKey(prefix)
	}
	keys, err := queryAll(ctx, tx, scanKey, sqltext.KeysByPrefix, prefix, len(prefix), hash)
	if err != nil {
		return nil, err
	}
	switch len(keys) {
	case 0:
		return nil, docmill.ErrNotFound
	case 1:
		return keys[0], nil
	}
	return nil, docmill.Errorf(docmill.CodeInvalidRequest,
		"The prefix %q matches several keys; give more of it.", prefix)
}

// limitCols are the custom-limit columns of an account, all NULL for none.
type limitCols struct {
	ops, maxFile, rpm, inFlight, priority, ttl *int64
}

func limitColumns(p *docmill.Plan) limitCols {
	if p == nil {
		return limitCols{}
	}
	v := func(n int64) *int64 { return &n }
	return limitCols{
		ops:      v(p.OperationsPerMonth),
		maxFile:  v(p.MaxFileBytes),
		rpm:      v(int64(p.RequestsPerMinute)),
		inFlight: v(int64(p.JobsInFlight)),
		priority: v(int64(p.Priority)),
		ttl:      v(int64(p.ResultTTL / time.Second)),
	}
}

// keyDest returns the scan destinations of sqltext.KeyColumns and a
// function that fills k from them once scanned.
func keyDest(k *docmill.APIKey) ([]any, func()) {
	var created int64
	var revoked, lastUsed *int64
	dest := []any{&k.Hash, &k.Prefix, &k.AccountID, &k.Name, &created, &revoked, &lastUsed, &k.LastUsedIP}
	return dest, func() {
		k.CreatedAt = fromMillis(created)
		k.RevokedAt = timePtr(revoked)
		k.LastUsedAt = timePtr(lastUsed)
	}
}

func scanKey(r Row) (*docmill.APIKey, error) {
	var k docmill.APIKey
	dest, fill := keyDest(&k)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	fill()
	return &k, nil
}

// accountDest returns the scan destinations of sqltext.AccountColumns and a function
// that fills a from them once scanned.
func accountDest(a *docmill.Account) ([]any, func()) {
	var l limitCols
	var created int64
	var status string
	var suspended *int64
	dest := []any{&a.ID, &a.Name, &a.Email, &a.Plan, &l.ops, &l.maxFile,
		&l.rpm, &l.inFlight, &l.priority, &l.ttl, &created, &status, &suspended}
	return dest, func() {
		a.CreatedAt = fromMillis(created)
		a.Status = docmill.AccountStatus(status)
		a.SuspendedAt = timePtr(suspended)
		a.Limits = nil
		if l.ops != nil {
			// The limits' name is the account's plan, as EffectivePlan has it.
			a.Limits = &docmill.Plan{
				Name:               a.Plan,
				OperationsPerMonth: *l.ops,
				MaxFileBytes:       deref(l.maxFile),
				RequestsPerMinute:  int(deref(l.rpm)),
				JobsInFlight:       int(deref(l.inFlight)),
				Priority:           int(deref(l.priority)),
				ResultTTL:          time.Duration(deref(l.ttl)) * time.Second,
			}
		}
	}
}

func scanAccount(r Row) (*docmill.Account, error) {
	var a docmill.Account
	dest, fill := accountDest(&a)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	fill()
	return &a, nil
}

func scanKeyAccount(r Row, k *docmill.APIKey, a *docmill.Account) error {
	kdest, kfill := keyDest(k)
	adest, afill := accountDest(a)
	if err := r.Scan(append(kdest, adest...)...); err != nil {
		return err
	}
	kfill()
	afill()
	return nil
}

// deref reads an optional number; NULL is 0.
func deref(n *int64) int64 {
	if n == nil {
		return 0
	}
	return *n
}
