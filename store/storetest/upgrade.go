package storetest

import (
	"testing"

	"github.com/docmill/docmill"
)

// undoAccountsMigration takes a migrated schema back to before migration
// 0009_accounts, as a database made by an earlier release has it.
var undoAccountsMigration = []string{
	`DROP TABLE auth_tokens`,
	`DROP TABLE sessions`,
	`ALTER TABLE accounts DROP COLUMN status`,
	`ALTER TABLE accounts DROP COLUMN suspended_at`,
	`ALTER TABLE api_keys DROP COLUMN last_used_at`,
	`ALTER TABLE api_keys DROP COLUMN last_used_ip`,
	`DELETE FROM schema_migrations WHERE version = 9`,
	`INSERT INTO accounts (id, name, email, plan, created_at, updated_at)
VALUES ('acct_old', 'Old', 'old@example.com', 'pro', 1700000000000, 1700000000000)`,
	`INSERT INTO api_keys (hash, prefix, account_id, name, created_at)
VALUES ('hash_old', 'dm_live_OLD0', 'acct_old', 'default', 1700000000000)`,
}

// upgradeAccounts checks that a database made before the accounts'
// migration (0009) opens: d's database, taken back to before it, is
// opened (and migrated) again. Its accounts are then active and its keys
// never used.
func upgradeAccounts(t *testing.T, d DriverStore) {
	ctx := t.Context()
	for _, q := range undoAccountsMigration {
		if err := d.exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	s := d.Reopen(t)
	k, a, err := s.KeyByHash(ctx, "hash_old")
	if err != nil {
		t.Fatalf("KeyByHash after the upgrade: %v", err)
	}
	if a.Status != docmill.AccountActive || a.SuspendedAt != nil || a.Email != "old@example.com" {
		t.Errorf("an earlier account reads as %+v, want active", a)
	}
	if k.LastUsedAt != nil || k.LastUsedIP != "" {
		t.Errorf("an earlier key reads as used: %+v", k)
	}
	if err := s.TouchKey(ctx, "hash_old", "192.0.2.1", t0); err != nil {
		t.Errorf("TouchKey after the upgrade: %v", err)
	}
	_, sess := docmill.NewSession(a.ID, "192.0.2.1", "test", t0)
	if err := s.CreateSession(ctx, &sess); err != nil {
		t.Errorf("CreateSession after the upgrade: %v", err)
	}
}
