package docmill

import "time"

// Statuses are every job status, in lifecycle order.
var Statuses = []Status{StatusQueued, StatusProcessing, StatusDone, StatusFailed, StatusCanceled}

// Valid reports whether s is one of Statuses.
func (s Status) Valid() bool {
	for _, v := range Statuses {
		if s == v {
			return true
		}
	}
	return false
}

// JobPosition is a job's place in an account's job list, which runs newest
// first: by CreatedAt descending, then by ID descending among jobs created
// in the same millisecond (CreatedAt is stored at millisecond precision).
// It is the keyset a page of ListJobs continues after.
type JobPosition struct {
	CreatedAt time.Time
	ID        string
}

// PositionOf returns j's place in its account's job list.
func PositionOf(j *Job) JobPosition { return JobPosition{CreatedAt: j.CreatedAt, ID: j.ID} }

// JobFilter selects a page of one account's jobs for Store.ListJobs.
type JobFilter struct {
	// AccountID is the account whose jobs are listed; required.
	AccountID string
	// Status, when set, keeps only the jobs in that status.
	Status Status
	// Tool, when set, keeps only the jobs of that tool slug.
	Tool string
	// After, when set, keeps only the jobs after it in the list's order
	// (older, or as old with a smaller ID): the next page after a job.
	After *JobPosition
	// Limit is the most jobs returned; it must be positive.
	Limit int
}
