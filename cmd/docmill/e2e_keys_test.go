package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/docmill/docmill/client"
)

// TestAccountKeys: a Free account adds a second key, lists its keys,
// renames and revokes the second (which then gets 401) but not another
// account's, and is refused an eleventh active key.
func TestAccountKeys(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	ctx := context.Background()
	first := s.client(newKey(t, s.DataDir, "free"))
	stranger := s.client(newKey(t, s.DataDir, "free"))

	second, err := first.CreateKey(ctx, "billing")
	if err != nil {
		t.Fatal(err)
	}
	if acct, err := s.client(second.APIKey).Account(ctx); err != nil || acct.Plan != "free" {
		t.Fatalf("the second key: %v %v", acct, err)
	}
	keys, err := first.Keys(ctx)
	if err != nil || len(keys) != 2 || !keys[0].Current || keys[1].Current || keys[1].Name != "billing" || keys[1].Prefix != second.Prefix {
		t.Fatalf("keys %+v, %v", keys, err)
	}
	_, err = stranger.RevokeKey(ctx, second.Prefix)
	apiError(t, err, 404, "not_found")
	_, err = stranger.RenameKey(ctx, second.Prefix, "mine")
	apiError(t, err, 404, "not_found")
	if renamed, err := first.RenameKey(ctx, second.Prefix, "payments"); err != nil || renamed.Name != "payments" || renamed.LastUsedAt == nil {
		t.Fatalf("rename: %+v %v", renamed, err)
	}
	revoked, err := first.RevokeKey(ctx, second.Prefix)
	if err != nil || revoked.RevokedAt == nil {
		t.Fatalf("revoke: %+v %v", revoked, err)
	}
	_, err = s.client(second.APIKey).Account(ctx)
	apiError(t, err, 401, "unauthorized")

	// One key is active: nine more may be added, not ten.
	for range 9 {
		if _, err := first.CreateKey(ctx, ""); err != nil {
			t.Fatal(err)
		}
	}
	_, err = first.CreateKey(ctx, "eleventh")
	apiError(t, err, 409, "conflict")
}

// TestConfigPlans: GET /v1/config shows sign-up open by default and the
// specification's prices, and --plans changes them.
func TestConfigPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, err := startServer(t, "").client("").Config(ctx)
	if err != nil {
		t.Fatal(err)
	}
	prices := map[string]*client.Price{}
	for _, p := range cfg.Plans {
		prices[p.Name] = p.Price
	}
	if cfg.Signup != "open" || len(cfg.Plans) != 4 || cfg.Plans[0].Name != "free" || cfg.Plans[0].OperationsPerMonth != 100 ||
		cfg.Plans[0].MaxFileBytes != 100<<20 || prices["custom"] != nil ||
		*prices["pro"] != (client.Price{Amount: 490, Currency: "RUB", Period: "month"}) ||
		*prices["team"] != (client.Price{Amount: 2490, Currency: "RUB", Period: "month", From: true}) {
		t.Fatalf("config %+v", cfg)
	}

	plans := filepath.Join(t.TempDir(), "plans.json")
	if err := os.WriteFile(plans, []byte(`{"pro": {"price": {"amount": 590}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err = startServer(t, "", "--plans", plans, "--signup", "closed").client("").Config(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Signup != "closed" || cfg.Plans[1].Name != "pro" || cfg.Plans[1].Price.Amount != 590 || cfg.Plans[1].Price.Currency != "RUB" {
		t.Fatalf("config with --plans %+v %+v", cfg, cfg.Plans[1].Price)
	}
	if err := os.WriteFile(plans, []byte(`{"gold": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, serveArgs(t.TempDir(), []string{"--plans", plans}), func(string) string { return "" }, nil, testWriter{t}, testWriter{t}); err == nil {
		t.Error("serve started with an unknown plan in --plans")
	}
}
