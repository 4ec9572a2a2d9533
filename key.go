package docmill

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// KeyPrefix starts every API key.
const KeyPrefix = "dm_live_"

// keyDisplayLen is how many leading characters of a key are kept for display.
const keyDisplayLen = 12

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// APIKey is a stored key: never the key itself, only its hash and prefix.
type APIKey struct {
	// Hash is the hex SHA-256 of the full key.
	Hash string
	// Prefix is the key's first 12 characters, for display and revocation.
	Prefix    string
	AccountID string
	Name      string
	CreatedAt time.Time
	RevokedAt *time.Time
	// LastUsedAt and LastUsedIP are when and from where the key was last
	// used (Keys.TouchKey), to the minute; nil if never.
	LastUsedAt *time.Time
	LastUsedIP string
}

// NewAPIKey returns a fresh key ("dm_live_" + 32 base62 characters) and its
// stored form. The key itself is shown once and never stored.
func NewAPIKey(accountID, name string, now time.Time) (string, APIKey) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	var sb strings.Builder
	sb.WriteString(KeyPrefix)
	for _, c := range b {
		// 256 = 4*62 + 8: rejection would be unbiased, but 32 bytes of
		// entropy reduced mod 62 keeps > 185 bits, ample for a bearer key.
		sb.WriteByte(base62[int(c)%62])
	}
	key := sb.String()
	return key, APIKey{
		Hash:      HashKey(key),
		Prefix:    key[:keyDisplayLen],
		AccountID: accountID,
		Name:      name,
		CreatedAt: now,
	}
}

// HashKey returns the stored hash of a key.
func HashKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

// WellFormedKey reports whether key has the shape of an API key, so that
// malformed keys are refused without a store lookup.
func WellFormedKey(key string) bool {
	if len(key) != len(KeyPrefix)+32 || !strings.HasPrefix(key, KeyPrefix) {
		return false
	}
	for _, c := range key[len(KeyPrefix):] {
		if !strings.ContainsRune(base62, c) {
			return false
		}
	}
	return true
}

// CreateAccount stores a as a new account, created at now under a fresh
// ID, together with its first API key, named keyName. The caller fills in
// a's name, email, plan and limits. It returns the key itself, shown to
// the client once and never stored, and the key's stored form. An email
// already used is ErrEmailTaken (Accounts.CreateAccount).
func CreateAccount(ctx context.Context, st Accounts, a *Account, keyName string, now time.Time) (key string, stored APIKey, err error) {
	a.ID = NewID("acct_")
	a.CreatedAt = now
	key, stored = NewAPIKey(a.ID, keyName, now)
	if err := st.CreateAccount(ctx, a, &stored); err != nil {
		return "", APIKey{}, err
	}
	return key, stored, nil
}

// ErrTooManyKeys is returned by AddAccountKey past the account's number of
// active keys.
var ErrTooManyKeys = &Error{Code: CodeConflict, Message: "This account has as many active keys as it may; revoke one first."}

// KeyListing is a key with its account (Keys.ListKeys).
type KeyListing struct {
	Key     APIKey
	Account Account
}

// Keys keeps API keys beyond an account's first (Accounts.CreateAccount):
// the lookup of every request, the operator's and the account's own key
// management, and each key's name and last use.
type Keys interface {
	// CreateKey stores another key of an existing account.
	CreateKey(ctx context.Context, k *APIKey) error
	// KeyByHash returns a key (revoked ones too) and its account.
	KeyByHash(ctx context.Context, hash string) (*APIKey, *Account, error)
	// ListKeys returns every key with its account, oldest first.
	ListKeys(ctx context.Context) ([]KeyListing, error)
	// RevokeKey revokes the one key whose prefix starts with prefix. It
	// fails with not_found if none matches and invalid_request if several do.
	RevokeKey(ctx context.Context, prefix string, now time.Time) (*APIKey, error)
	// AddAccountKey stores another key of k's account unless the account
	// has maxActive unrevoked keys already (ErrTooManyKeys), checked in the
	// same transaction as the insert.
	AddAccountKey(ctx context.Context, k *APIKey, maxActive int) error
	// AccountKeys returns one account's keys, revoked ones too, oldest first.
	AccountKeys(ctx context.Context, accountID string) ([]APIKey, error)
	// RevokeAccountKey revokes the key of account accountID whose display
	// prefix is exactly prefix; none (a key of another account included)
	// is ErrNotFound. Revoking a revoked key returns it unchanged.
	RevokeAccountKey(ctx context.Context, accountID, prefix string, now time.Time) (*APIKey, error)
	// RenameAccountKey names the key of account accountID whose display
	// prefix is exactly prefix; none (a key of another account included)
	// is ErrNotFound.
	RenameAccountKey(ctx context.Context, accountID, prefix, name string) (*APIKey, error)
	// TouchKey records that the key with hash was used at now from ip. A
	// store may skip the write when the recorded use is less than a
	// minute older, so that a busy key costs no write per request; an
	// earlier use than the recorded one changes nothing. An unknown key
	// is left alone, without error.
	TouchKey(ctx context.Context, hash, ip string, now time.Time) error
}
