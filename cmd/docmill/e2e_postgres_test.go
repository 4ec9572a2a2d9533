package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/internal/testserver"
	"github.com/docmill/docmill/store/postgres/pgtest"
)

// The end-to-end tests on PostgreSQL (the distributed shape): each test has
// a schema of its own in the database of DOCMILL_POSTGRES_URL. They are
// skipped when it does not answer, unless CI=true.

// postgresDir is a data directory (for files) whose metadata and queue are
// in a fresh PostgreSQL schema; servers of it migrate at start-up.
func postgresDir(t testing.TB) string {
	t.Helper()
	dbURL := pgtest.SchemaURL(t)
	dir := t.TempDir()
	databases.Store(dir, dbURL)
	t.Cleanup(func() { databases.Delete(dir) })
	return dir
}

// TestPostgres runs a representative part of the end-to-end tests on
// PostgreSQL with riverpgxv5.
func TestPostgres(t *testing.T) {
	// Serial, its subtests too: their sync calls must be answered within
	// the default 10 s sync budget, which tests run beside them stretch.
	pgtest.BaseURL(t)
	tests := []struct {
		name string
		run  func(*testing.T, dataDirFunc)
	}{
		{"RotateSync", testRotateSync},
		{"AsyncThenPoll", testAsyncThenPoll},
		{"IdempotencyKey", testIdempotencyKey},
		{"Quota", testQuota},
		{"DeleteJob", testDeleteJob},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, postgresDir) })
	}
}

// TestPostgresWaitAcrossProcesses: an API process and a worker process on
// one schema answer a sync call with 200, and the API's wait is woken by
// the worker's NOTIFY, not by its safety poll. (Its timing is logged, not
// asserted: the metrics tell what woke the wait.)
func TestPostgresWaitAcrossProcesses(t *testing.T) {
	t.Parallel() // its schema and nodes are its own; it bounds no time
	api := testWaitAcrossProcesses(t, postgresDir)
	m := scrape(t, api.URL)
	if m[`docmill_job_notifications_listening`] != 1 {
		t.Errorf("API node not listening for job notifications: %v", m)
	}
	if m[`docmill_job_wait_wakeups_total{by="notification"}`] < 1 {
		t.Errorf("the wait was not woken by a notification: %v", m)
	}
}

// scrape returns the samples of docmill's own metrics (docmill_*) on a
// server's /metrics.
func scrape(t testing.TB, base string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	out := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok || !strings.HasPrefix(name, "docmill_") {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out[name] = v
		}
	}
	return out
}

// TestPostgresMigrations: serve refuses an unmigrated schema and says what
// to do; `docmill migrate` then lets it start; `serve --migrate` migrates
// by itself.
func TestPostgresMigrations(t *testing.T) {
	// Its schema and servers are its own.
	t.Parallel()
	dbURL := pgtest.SchemaURL(t)
	dir := t.TempDir()
	args := []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dir, "--database-url", dbURL, "--log-level", "warn"}
	var out bytes.Buffer
	err := run(context.Background(), args, func(string) string { return "" }, nil, &out, testWriter{t})
	if err == nil || !strings.Contains(err.Error(), "run docmill migrate or pass --migrate") {
		t.Fatalf("serve on an unmigrated schema: %v, want a refusal naming docmill migrate", err)
	}
	// The environment variable works as the flag does.
	env := func(k string) string {
		if k == "DOCMILL_DATABASE_URL" {
			return dbURL
		}
		return ""
	}
	if err := run(context.Background(), []string{"migrate", "--data-dir", dir}, env, nil, &out, testWriter{t}); err != nil {
		t.Fatalf("docmill migrate: %v", err)
	}
	if strings.Contains(out.String(), "docmill.db") {
		t.Fatalf("migrate used SQLite: %s", out.String())
	}
	s := startServer(t, dir, "--database-url", dbURL)
	if _, err := s.client(s.DevKey).Account(context.Background()); err != nil {
		t.Fatalf("account after migrate: %v", err)
	}
	s.stop(t)

	// A second schema, served with --migrate at once.
	other := postgresDir(t)
	s = startServer(t, other)
	if _, err := s.client(s.DevKey).Account(context.Background()); err != nil {
		t.Fatalf("account after --migrate: %v", err)
	}
}

// TestPostgresUnreachable: a node whose database does not answer at
// start-up exits at once with an error that names the server (its
// supervisor restarts it), rather than serve nothing.
func TestPostgresUnreachable(t *testing.T) {
	// Its directory is its own; the address refuses at once.
	t.Parallel()
	addr := testserver.ClosedAddr(t)
	start := time.Now()
	args := []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--migrate",
		"--database-url", "postgres://postgres:secret@" + addr + "/test?sslmode=disable"}
	err := run(context.Background(), args, func(string) string { return "" }, nil, io.Discard, testWriter{t})
	if err == nil || !strings.Contains(err.Error(), "cannot reach "+addr) || strings.Contains(err.Error(), "secret") {
		t.Fatalf("serve with an unreachable database: %v, want cannot reach %s (without the password)", err, addr)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %s to give up", d)
	}
}

// readyz returns /readyz's status code and database check.
func readyz(t *testing.T, base string) (int, string) {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatalf("readyz: %v", err)
	}
	defer resp.Body.Close()
	var body struct {
		Checks map[string]string `json:"checks"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body.Checks["database"]
}
