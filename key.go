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
	// used (Accounts.TouchKey), to the minute; nil if never.
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
// already used is ErrEmailTaken (Store.CreateAccount).
func CreateAccount(ctx context.Context, st Store, a *Account, keyName string, now time.Time) (key string, stored APIKey, err error) {
	a.ID = NewID("acct_")
	a.CreatedAt = now
	key, stored = NewAPIKey(a.ID, keyName, now)
	if err := st.CreateAccount(ctx, a, &stored); err != nil {
		return "", APIKey{}, err
	}
	return key, stored, nil
}
