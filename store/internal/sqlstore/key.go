package sqlstore

import (
	"context"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqltext"
)

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

// touchEvery is how old a key's recorded use must be before TouchKey
// records a new one.
const touchEvery = time.Minute

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
