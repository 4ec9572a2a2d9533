package sqltext

import "strconv"

// ListJobs is the query of one page of an account's jobs ($1), newest
// first, with the optional filters asked for: status, tool, and after a
// position (created_at, id), in that order of placeholders, then the
// limit. The order and the row-value comparison match the index
// jobs_account_list (account_id, created_at DESC, id DESC), so a page is
// read straight from it, in both SQLite and PostgreSQL, however deep it is.
func ListJobs(status, tool, after bool) string {
	q := `SELECT ` + JobColumns + ` FROM jobs WHERE account_id = $1`
	n := 1
	next := func() string { n++; return "$" + strconv.Itoa(n) }
	if status {
		q += ` AND status = ` + next()
	}
	if tool {
		q += ` AND tool = ` + next()
	}
	if after {
		q += ` AND (created_at, id) < (` + next() + `, ` + next() + `)`
	}
	return q + ` ORDER BY created_at DESC, id DESC LIMIT ` + next()
}
