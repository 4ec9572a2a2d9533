package docmill

import "context"

// Admission is what CreateJob checks, atomically with the insert, before it
// accepts a job: the account's monthly operations and jobs in flight.
type Admission struct {
	// Period is the usage period the job is charged to ("2006-01").
	Period string
	// MaxOperations is the plan's operations per period; jobs in flight
	// hold their operations (Job.Charge) against it so that concurrency
	// cannot overshoot it, and a job is admitted only if its own
	// operations fit in what is left (a 5-step pipeline needs 5).
	MaxOperations int64
	// MaxInFlight is how many queued or processing jobs the account may have.
	MaxInFlight int
	// Waited says that the caller answers for the job only once it has
	// ended, or after Admissions.Durable: the job's insert may then commit
	// without waiting for the disk, since its end (a commit that does
	// wait) makes it durable with it. A sync process call is waited.
	Waited bool
}

// Errors of Admissions.CreateJob.
var (
	ErrQuotaExceeded       = &Error{Code: CodeQuotaExceeded, Message: "The monthly operations quota is used up."}
	ErrTooManyInFlight     = &Error{Code: CodeRateLimited, Message: "Too many jobs in flight; wait for one to finish."}
	ErrIdempotencyConflict = &Error{Code: CodeIdempotencyConflict, Message: "This Idempotency-Key was used with a different request."}
)

// Usage is an account's consumption in one period.
type Usage struct {
	Period string
	// Operations is how many jobs of the period ended done.
	Operations int64
	// InFlight is how many jobs are queued or processing now.
	InFlight int64
}

// Admissions admits new jobs: against the account's usage and limits
// (Admission), and once per Idempotency-Key.
type Admissions interface {
	// CreateJob inserts j (status queued) and its queue entry in one
	// transaction, after checking adm against the account's usage in the
	// same transaction. If j has an IdempotencyKey the account already used,
	// it returns the earlier job when RequestHash matches and
	// ErrIdempotencyConflict otherwise; the returned job is the one that
	// stands. It returns ErrQuotaExceeded or ErrTooManyInFlight when adm
	// refuses the job.
	CreateJob(ctx context.Context, j *Job, adm Admission) (*Job, error)
	// JobByIdempotencyKey returns, as it stands now, the job that the
	// account created with the Idempotency-Key key; keys are per account.
	// No such job (an empty key included) is ErrNotFound. The process
	// handler asks it first, so that a replay is answered before any limit
	// is checked or charged.
	JobByIdempotencyKey(ctx context.Context, accountID, key string) (*Job, error)
	// Usage returns an account's operations in period and its jobs in flight.
	Usage(ctx context.Context, accountID, period string) (Usage, error)
	// Durable returns once job id's record, and every commit before this
	// call, would survive a crash of the database: what a caller whose
	// CreateJob was Waited calls before it answers for a job that has not
	// ended. An unknown id is not an error.
	Durable(ctx context.Context, id string) error
}
