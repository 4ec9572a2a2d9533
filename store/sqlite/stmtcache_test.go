package sqlite

import (
	"context"
	"path/filepath"
	"testing"
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
