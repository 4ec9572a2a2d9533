package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	sqlite3 "modernc.org/sqlite/lib"
)

// TestStatementCacheReentrant: the same query text run again while its
// first rows are still open (inside one transaction, on one connection)
// must not disturb those rows.
func TestStatementCacheReentrant(t *testing.T) {
	ctx := context.Background()
	db := openDB(filepath.Join(t.TempDir(), "c.db"))
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2), (3);`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	const q = `SELECT n FROM t WHERE n >= $1 ORDER BY n`
	outer, err := tx.QueryContext(ctx, q, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for outer.Next() {
		var n, inner int
		if err := outer.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if err := tx.QueryRowContext(ctx, q, 3).Scan(&inner); err != nil || inner != 3 {
			t.Fatalf("inner query: %d %v", inner, err)
		}
		got = append(got, n)
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Fatalf("outer rows %v", got)
	}
	// Repeated use hits the cache and still sees fresh arguments.
	for i := 1; i <= 3; i++ {
		var n int
		if err := tx.QueryRowContext(ctx, q, i).Scan(&n); err != nil || n != i {
			t.Fatalf("run %d: %d %v", i, n, err)
		}
	}
}

// TestStablePlans: every connection of both pools has SQLite's query
// planner stability guarantee on, so that a statement with a bound LIMIT
// (River's fetch) stays compiled in the statement cache. It fails when a
// modernc.org/sqlite upgrade hides the connection's handle from
// stablePlans.
func TestStablePlans(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "d.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for name, db := range map[string]*sql.DB{"write": s.write, "read": s.read} {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = c.Raw(func(dc any) error {
			h, ok := sqliteHandle(dc.(*cachingConn).Conn)
			if !ok {
				t.Fatalf("%s pool: no SQLite handle in %T", name, dc.(*cachingConn).Conn)
			}
			on, err := dbConfigFlag(h, sqlite3.SQLITE_DBCONFIG_ENABLE_QPSG, -1)
			if err != nil || !on {
				t.Errorf("%s pool: query planner stability guarantee on = %v, %v", name, on, err)
			}
			return nil
		})
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
}
