package storetest

import (
	"context"
	"database/sql"
	"testing"

	"github.com/docmill/docmill"
)

// DriverStore is a new, empty store of a driver with what the checks
// below docmill.Store's methods (driverChecks) need: plain SQL on its
// database and its transaction hooks.
type DriverStore struct {
	docmill.Store
	// DB is the store's database, for statements outside the store and
	// outside any transaction; its placeholders are $1, $2, ...
	DB *sql.DB
	// Tables is the query of the names of the tables of the store's
	// schema.
	Tables string
	// Reopen opens (and migrates) the store's database again, as another
	// store.
	Reopen func(t *testing.T) docmill.Store
	// SetEnqueue makes hook the store's enqueue hook.
	SetEnqueue func(hook EnqueueHook)
	// SetDeliver makes hook the store's webhook delivery hook.
	SetDeliver func(hook DeliverHook)
}

// driverChecks are the checks below docmill.Store's methods, each run
// by Run on a new store.
var driverChecks = []struct {
	name  string
	check func(t *testing.T, s DriverStore)
}{
	{"DeleteAccountRows", deleteAccountRows},
	{"UpgradeAccounts", upgradeAccounts},
	{"Enqueue", enqueue},
	{"Deliver", deliver},
}

// exec runs a statement on s's database.
func (s DriverStore) exec(ctx context.Context, query string, args ...any) error {
	_, err := s.DB.ExecContext(ctx, query, args...)
	return err
}

// queryStrings returns the one text column of every row query returns.
func (s DriverStore) queryStrings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.DB.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var vs []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, rows.Err()
}

// queryCount runs a query of one row and one integer column (a COUNT) and
// returns that column.
func (s DriverStore) queryCount(ctx context.Context, query string, args ...any) (int64, error) {
	var n int64
	err := s.DB.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}
