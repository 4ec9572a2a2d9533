package sqlite_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmill/docmill/store/internal/sqltext"
)

// TestListJobsIndex checks that SQLite reads a page of the job list, the
// first or a later one, from the index jobs_account_list, in its order:
// no scan of the table, no sort.
func TestListJobsIndex(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "docmill.db"))
	for _, after := range []bool{false, true} {
		args := []any{"acct_x"}
		if after {
			args = append(args, int64(1), "job_x")
		}
		args = append(args, 20)
		rows, err := s.WriteDB().QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+sqltext.ListJobs(false, false, after), args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		got := strings.Join(plan, "; ")
		if !strings.Contains(got, "INDEX jobs_account_list") || strings.Contains(got, "TEMP B-TREE") {
			t.Errorf("after=%v: plan %q, want a search of jobs_account_list and no sort", after, got)
		}
	}
}
