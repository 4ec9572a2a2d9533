package main

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/docmill/docmill/blob/s3test"
	"github.com/docmill/docmill/client"
)

// TestAccountsCLI: the operator's accounts commands on the data of a
// running server (SQLite, files in the data directory): create with a
// canonical email, list, show, set-plan, suspend (403 account_suspended)
// and resume, revoke-key, and delete, which leaves no row that names the
// account or its job in any table and no file of the job on disk.
func TestAccountsCLI(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	db, err := sql.Open("sqlite", filepath.Join(s.DataDir, "docmill.db")+"?_pragma=busy_timeout(10000)&_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testAccountsLifecycle(t, s, nil, sqliteMentions(db), filesNaming(filepath.Join(s.DataDir, "blobs")))

	// Flags also come from DOCMILL_* variables.
	var buf strings.Builder
	env := func(k string) string {
		if k == "DOCMILL_DATA_DIR" {
			return s.DataDir
		}
		return ""
	}
	if err := run(context.Background(), []string{"accounts", "list"}, env, nil, &buf, os.Stderr); err != nil || !strings.Contains(buf.String(), "ACCOUNT") {
		t.Fatalf("env data dir: %v %s", err, buf.String())
	}
	key := newKey(t, s.DataDir, "free", "--email", "bob@example.com")
	runCLI(t, "accounts", "revoke-key", "--data-dir", s.DataDir, key[:12])
	_, err = s.client(key).Account(context.Background())
	apiError(t, err, 401, "unauthorized")

	// Refusals say why.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"accounts", "show", "nobody@example.com"}, "Not found"},
		{[]string{"accounts", "delete", "acct_none"}, "Not found"},
		{[]string{"accounts", "suspend", "someone"}, "want an account id"},
		{[]string{"accounts", "create", "--name", "x", "--email", "not an address"}, "not one plain address"},
		{[]string{"accounts", "create", "--name", "x", "--email", "Bob+2@Example.com"}, "already exists"},
		{[]string{"accounts", "set-plan", "bob@example.com", "gold"}, "unknown plan"},
		{[]string{"accounts", "show"}, "usage: docmill accounts show"},
	} {
		_, _, err := runCLIAll(context.Background(), append(tc.args, "--data-dir", s.DataDir)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("docmill %s: %v, want an error saying %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

// TestAccountsDeletePostgres: accounts delete on PostgreSQL with the files
// in a bucket (versitygw) leaves no row that names the account or its job
// in any table of the schema, and no object of the job in the bucket.
func TestAccountsDeletePostgres(t *testing.T) {
	// Serial: its in-process server reads the bucket's credentials from
	// this process's environment (s3.Setenv).
	dir := postgresDir(t)
	dbURL, _ := databases.Load(dir)
	s3 := s3test.Start(t)
	s3.Setenv(t)
	bucket := s3.URL("docmill")
	s := startServer(t, dir, "--blob-url", bucket)
	conn, err := pgx.Connect(t.Context(), dbURL.(string))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	testAccountsLifecycle(t, s, []string{"--blob-url", bucket}, pgMentions(conn), filesNaming(filepath.Join(s3.Root, "docmill")))
}

// mentionsFunc returns the table.column places of the database whose
// value contains needle, one per row; runningEntries asks instead for
// River's running entries.
type mentionsFunc func(t *testing.T, needle string) []string

// runningEntries is the needle of mentionsFunc that asks for River's
// running entries.
const runningEntries = "\x00running"

// qRunningEntries lists River's running entries, in SQLite and PostgreSQL.
const qRunningEntries = `SELECT CAST(id AS TEXT) FROM river_job WHERE state = 'running'`

// testAccountsLifecycle drives an account through the operator's commands
// on server s; blobArgs reach its file store, mentions searches its
// database and files lists the files whose name contains a string.
func testAccountsLifecycle(t *testing.T, s *testServer, blobArgs []string, mentions mentionsFunc, files func(t *testing.T, part string) []string) {
	ctx := context.Background()
	cli := func(args ...string) string {
		t.Helper()
		return runCLI(t, append(append(args, dataArgs(s.DataDir)...), blobArgs...)...)
	}
	key := newKey(t, s.DataDir, "free", "--email", "Alice+Docs@Example.com")
	c := s.client(key)
	acct, err := c.Account(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if out := cli("accounts", "list"); !regexp.MustCompile(acct.AccountID + `\s+alice@example.com\s+.*\s+free\s+active\s+1\s`).MatchString(out) {
		t.Errorf("accounts list:\n%s", out)
	}
	if out := cli("accounts", "show", "ALICE+other@example.com"); !strings.Contains(out, key[:12]) || !strings.Contains(out, "status:   active") {
		t.Errorf("accounts show:\n%s", out)
	}
	cli("accounts", "set-plan", key[:12], "team")
	if a, err := c.Account(ctx); err != nil || a.Plan != "team" {
		t.Fatalf("after set-plan: %v %v", a, err)
	}
	cli("accounts", "set-plan", "--ops", "5000000", "--rpm", "9", "alice@example.com", "custom")
	if a, err := c.Account(ctx); err != nil || a.Plan != "custom" || a.Limits.RequestsPerMinute != 9 {
		t.Fatalf("after set-plan custom: %v %v", a, err)
	}

	job, _, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())},
		client.ProcessOptions{Params: map[string]string{"angle": "90", "preview": "true"}})
	if err != nil || job.Status != "done" || job.Result == nil {
		t.Fatalf("process: %+v %v", job, err)
	}

	cli("accounts", "suspend", acct.AccountID)
	_, err = c.Account(ctx)
	apiError(t, err, 403, "account_suspended")
	_, _, err = c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	apiError(t, err, 403, "account_suspended")
	if out := cli("accounts", "show", acct.AccountID); !strings.Contains(out, "suspended since") {
		t.Errorf("accounts show of a suspended account:\n%s", out)
	}
	cli("accounts", "resume", acct.AccountID)
	if _, err := c.Job(ctx, job.JobID); err != nil {
		t.Fatalf("after resume: %v", err)
	}

	// River marks the job's entry completed shortly after the job, and
	// the worker has removed its inputs by then: a running entry would
	// not be removed.
	eventually(t, 10*time.Second, "the job's queue entry to leave running", func() bool {
		return len(mentions(t, runningEntries)) == 0
	})
	if len(files(t, job.JobID)) < 2 || len(mentions(t, acct.AccountID)) == 0 {
		t.Fatalf("before delete: files %v, rows %v; the checks would prove nothing", files(t, job.JobID), mentions(t, acct.AccountID))
	}
	out := cli("accounts", "delete", "alice@example.com")
	if !strings.Contains(out, "1 jobs, 2 files, 1 keys, 0 sessions, 0 webhooks, 0 sign-in links, 1 queue entries") {
		t.Errorf("accounts delete said:\n%s", out)
	}
	for _, needle := range []string{acct.AccountID, job.JobID, "alice@example.com"} {
		if m := mentions(t, needle); len(m) > 0 {
			t.Errorf("rows still name %s: %v", needle, m)
		}
	}
	if f := files(t, job.JobID); len(f) > 0 {
		t.Errorf("files of the deleted account's job: %v", f)
	}
	_, err = c.Account(ctx)
	apiError(t, err, 401, "unauthorized")
}

// sqliteMentions searches every text column of every table of db.
func sqliteMentions(db *sql.DB) mentionsFunc {
	return func(t *testing.T, needle string) []string {
		t.Helper()
		if needle == runningEntries {
			return queryStrings(t, db, qRunningEntries)
		}
		tables := queryStrings(t, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
		var out []string
		for _, table := range tables {
			for _, col := range queryStrings(t, db, `SELECT name FROM pragma_table_info(?)`, table) {
				q := fmt.Sprintf(`SELECT CAST(%q AS TEXT) FROM %q WHERE instr(CAST(%q AS TEXT), ?) > 0`, col, table, col)
				for _, v := range queryStrings(t, db, q, needle) {
					out = append(out, table+"."+col+": "+v)
				}
			}
		}
		return out
	}
}

func queryStrings(t *testing.T, db *sql.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s.String)
	}
	return out
}

// pgMentions searches every column of every table of the connection's
// schema, as text.
func pgMentions(conn *pgx.Conn) mentionsFunc {
	return func(t *testing.T, needle string) []string {
		t.Helper()
		if needle == runningEntries {
			rows, err := conn.Query(t.Context(), qRunningEntries)
			if err != nil {
				t.Fatal(err)
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			return ids
		}
		rows, err := conn.Query(t.Context(), `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`)
		if err != nil {
			t.Fatal(err)
		}
		cols, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Table, Column string }])
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cols {
			q := fmt.Sprintf(`SELECT CAST(%s AS TEXT) FROM %s WHERE strpos(CAST(%s AS TEXT), $1) > 0`,
				pgx.Identifier{c.Column}.Sanitize(), pgx.Identifier{c.Table}.Sanitize(), pgx.Identifier{c.Column}.Sanitize())
			rows, err := conn.Query(t.Context(), q, needle)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			vals, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				out = append(out, c.Table+"."+c.Column+": "+v)
			}
		}
		return out
	}
}

// filesNaming returns the files under root whose path contains part.
func filesNaming(root string) func(t *testing.T, part string) []string {
	return func(t *testing.T, part string) []string {
		t.Helper()
		var out []string
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.Contains(p, part) {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
}
