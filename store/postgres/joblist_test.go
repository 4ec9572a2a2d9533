package postgres_test

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/docmill/docmill/store/internal/sqltext"
	"github.com/docmill/docmill/store/postgres/pgtest"
)

// TestListJobsIndex checks that PostgreSQL reads a page of the job list,
// the first or a later one, from the index jobs_account_list in its order,
// with no sort. Sequential scans are disabled for the check, since on an
// empty table one is cheapest.
func TestListJobsIndex(t *testing.T) {
	s := open(t, pgtest.SchemaURL(t))
	for _, after := range []bool{false, true} {
		args := []any{"acct_x"}
		if after {
			args = append(args, int64(1), "job_x")
		}
		args = append(args, 20)
		tx, err := s.Pool().Begin(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(t.Context(), "SET LOCAL enable_seqscan = off"); err != nil {
			t.Fatal(err)
		}
		rows, err := tx.Query(t.Context(), "EXPLAIN "+sqltext.ListJobs(false, false, after), args...)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
		_ = tx.Rollback(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(plan, "\n")
		if !strings.Contains(got, "jobs_account_list") || strings.Contains(got, "Sort") {
			t.Errorf("after=%v: plan\n%s\nwant a scan of jobs_account_list and no sort", after, got)
		}
	}
}
