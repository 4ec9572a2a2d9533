// Package pgtest gives tests a PostgreSQL schema of their own, so that test
// runs and packages tested at once cannot collide: the database of
// DOCMILL_POSTGRES_URL (default the local test database), skipped loudly
// when it does not answer, unless CI is set, where that fails the test.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"github.com/docmill/docmill/tools/toolstest"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// URLEnv names the database the tests use.
const URLEnv = "DOCMILL_POSTGRES_URL"

const defaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// BaseURL returns the tests' database URL, or skips t (fails it when CI is
// set) if the database does not answer.
func BaseURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(URLEnv)
	if base == "" {
		base = defaultURL
	}
	if err := exec(base, "SELECT 1"); err != nil {
		toolstest.NeedService(t, "PostgreSQL at "+base+" (set "+URLEnv+")", err)
	}
	return base
}

// SchemaURL creates a fresh schema, dropped when t ends, and returns the
// database URL whose connections use it (search_path, sent as a run-time
// parameter). Call it before starting anything that uses the schema, so
// that the drop runs after their cleanups.
func SchemaURL(t testing.TB) string {
	t.Helper()
	base := BaseURL(t)
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	schema := "test_" + hex.EncodeToString(b)
	if err := exec(base, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if err := exec(base, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", URLEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// exec runs one statement on a connection of its own.
func exec(dbURL, sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}
