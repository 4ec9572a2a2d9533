package docmill

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

var keyPattern = regexp.MustCompile(`^dm_live_[0-9A-Za-z]{32}$`)

func TestNewAPIKey(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	for range 100 {
		key, stored := NewAPIKey("acct_1", "ci", now)
		if !keyPattern.MatchString(key) {
			t.Fatalf("key %q does not match %v", key, keyPattern)
		}
		if !WellFormedKey(key) {
			t.Fatalf("WellFormedKey(%q) = false for a new key", key)
		}
		if seen[key] {
			t.Fatalf("duplicate key %q", key)
		}
		seen[key] = true
		if stored.Hash != HashKey(key) || strings.Contains(stored.Hash, key) {
			t.Fatalf("stored hash %q is not HashKey of the key", stored.Hash)
		}
		if stored.Prefix != key[:12] || !strings.HasPrefix(stored.Prefix, KeyPrefix) {
			t.Fatalf("prefix = %q, want %q", stored.Prefix, key[:12])
		}
		if stored.AccountID != "acct_1" || stored.Name != "ci" || !stored.CreatedAt.Equal(now) || stored.RevokedAt != nil {
			t.Fatalf("stored = %+v", stored)
		}
	}
}

func TestHashKey(t *testing.T) {
	tests := []struct{ key, want string }{
		{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"dm_live_abc", "829bc04570ac332486b743bd9b2b79806f73fefa540cfe72ebfc8e56e2782e6f"},
	}
	for _, tt := range tests {
		if got := HashKey(tt.key); got != tt.want {
			t.Errorf("HashKey(%q) = %s, want %s", tt.key, got, tt.want)
		}
	}
}

func TestWellFormedKey(t *testing.T) {
	valid := "dm_live_" + strings.Repeat("aZ09", 8)
	tests := []struct {
		key  string
		want bool
	}{
		{valid, true},
		{"dm_live_" + strings.Repeat("x", 32), true},
		{"", false},
		{"dm_live_", false},
		{valid[:len(valid)-1], false},
		{valid + "a", false},
		{"dm_test_" + strings.Repeat("a", 32), false},
		{"DM_LIVE_" + strings.Repeat("a", 32), false},
		{"dm_live_" + strings.Repeat("a", 31) + "-", false},
		{"dm_live_" + strings.Repeat("a", 31) + "_", false},
		{"dm_live_" + strings.Repeat("a", 31) + " ", false},
		{"dm_live_" + strings.Repeat("a", 30) + "é", false}, // 32 bytes, 31 runes
		{"Bearer " + valid, false},
	}
	for _, tt := range tests {
		if got := WellFormedKey(tt.key); got != tt.want {
			t.Errorf("WellFormedKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}
