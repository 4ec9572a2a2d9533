package sqlstore

import (
	"context"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqltext"
)

// ListJobs returns up to f.Limit of f.AccountID's jobs matching f, newest
// first, after f.After (sqltext.ListJobs). It reads outside a transaction,
// and holds a connection only while it reads the page.
func (s *Store) ListJobs(ctx context.Context, f docmill.JobFilter) ([]*docmill.Job, error) {
	if f.Limit <= 0 {
		return nil, nil
	}
	args := []any{f.AccountID}
	if f.Status != "" {
		args = append(args, string(f.Status))
	}
	if f.Tool != "" {
		args = append(args, f.Tool)
	}
	if f.After != nil {
		args = append(args, millis(f.After.CreatedAt), f.After.ID)
	}
	args = append(args, f.Limit)
	q := sqltext.ListJobs(f.Status != "", f.Tool != "", f.After != nil)
	jobs, err := queryJobs(ctx, s.db.Read(), q, args...)
	if err != nil {
		return nil, s.errorf("list jobs: %w", err)
	}
	return jobs, nil
}
