package docmill

import (
	"context"
	"io"
	"time"
)

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
}

// Errors a Store returns from CreateJob.
var (
	ErrQuotaExceeded       = &Error{Code: CodeQuotaExceeded, Message: "The monthly operations quota is used up."}
	ErrTooManyInFlight     = &Error{Code: CodeRateLimited, Message: "Too many jobs in flight; wait for one to finish."}
	ErrIdempotencyConflict = &Error{Code: CodeIdempotencyConflict, Message: "This Idempotency-Key was used with a different request."}
	// ErrTooManyKeys is returned by AddAccountKey past the account's
	// number of active keys.
	ErrTooManyKeys = &Error{Code: CodeConflict, Message: "This account has as many active keys as it may; revoke one first."}
	// ErrEmailTaken is returned by CreateAccount for an email already used.
	ErrEmailTaken = &Error{Code: CodeConflict, Message: "An account with this email already exists."}
)

// KeyListing is a key with its account (Store.ListKeys).
type KeyListing struct {
	Key     APIKey
	Account Account
}

// Usage is an account's consumption in one period.
type Usage struct {
	Period string
	// Operations is how many jobs of the period ended done.
	Operations int64
	// InFlight is how many jobs are queued or processing now.
	InFlight int64
}

// Store keeps accounts, keys and jobs. Implementations: store/sqlite and
// store/postgres; store/storetest is the conformance suite both pass.
type Store interface {
	Accounts
	AuthTokens
	Sessions

	// CreateAccount stores a new account and its first key together.
	CreateAccount(ctx context.Context, a *Account, k *APIKey) error
	// CreateKey stores another key of an existing account.
	CreateKey(ctx context.Context, k *APIKey) error
	// KeyByHash returns a key (revoked ones too) and its account.
	KeyByHash(ctx context.Context, hash string) (*APIKey, *Account, error)
	// Account returns an account by id.
	Account(ctx context.Context, id string) (*Account, error)
	// ListKeys returns every key with its account, oldest first.
	ListKeys(ctx context.Context) ([]KeyListing, error)
	// RevokeKey revokes the one key whose prefix starts with prefix. It
	// fails with not_found if none matches and invalid_request if several do.
	RevokeKey(ctx context.Context, prefix string, now time.Time) (*APIKey, error)
	// AddAccountKey stores another key of k's account unless the account
	// has maxActive unrevoked keys already (ErrTooManyKeys), checked in the
	// same transaction as the insert.
	AddAccountKey(ctx context.Context, k *APIKey, maxActive int) error
	// AccountKeys returns one account's keys, revoked ones too, oldest first.
	AccountKeys(ctx context.Context, accountID string) ([]APIKey, error)
	// RevokeAccountKey revokes the key of account accountID whose display
	// prefix is exactly prefix; none (a key of another account included)
	// is ErrNotFound. Revoking a revoked key returns it unchanged.
	RevokeAccountKey(ctx context.Context, accountID, prefix string, now time.Time) (*APIKey, error)

	// CreateJob inserts j (status queued) and its queue entry in one
	// transaction, after checking adm against the account's usage in the
	// same transaction. If j has an IdempotencyKey the account already used,
	// it returns the earlier job when RequestHash matches and
	// ErrIdempotencyConflict otherwise; the returned job is the one that
	// stands. It returns ErrQuotaExceeded or ErrTooManyInFlight when adm
	// refuses the job.
	CreateJob(ctx context.Context, j *Job, adm Admission) (*Job, error)
	// Job returns a job by id.
	Job(ctx context.Context, id string) (*Job, error)
	// JobByIdempotencyKey returns, as it stands now, the job that the
	// account created with the Idempotency-Key key; keys are per account.
	// No such job (an empty key included) is ErrNotFound. The process
	// handler asks it first, so that a replay is answered before any limit
	// is checked or charged.
	JobByIdempotencyKey(ctx context.Context, accountID, key string) (*Job, error)
	// StartJob moves a queued or processing job to processing and returns
	// it; a job in a final status is returned unchanged.
	StartJob(ctx context.Context, id string, now time.Time) (*Job, error)
	// RequeueJob moves a processing job back to queued, for a worker that
	// stopped before finishing it (its node shut down) and handed it back
	// to the queue; StartedAt keeps the first start. A job in any other
	// status is returned unchanged.
	RequeueJob(ctx context.Context, id string) (*Job, error)
	// RecordUsed records that processing job id has used used of its
	// work budget, all its attempts together (Job.Used), unless more is
	// recorded already: it never lowers it. A job in another status, or
	// an unknown id, is left unchanged, without error.
	RecordUsed(ctx context.Context, id string, used time.Duration) error
	// FinishJob records the final status, result, meta, error and params
	// (from which the caller removes secrets such as passwords) of a
	// processing job and, when it is done, charges its operations
	// (Job.Charge: one for a tool, one a step for a pipeline) to the
	// period of its creation. It reports false, changing nothing, if the job
	// is no longer processing (it was canceled). Like CancelJob, it hands
	// the job's webhook deliveries (one per enabled endpoint of the
	// account subscribed to the event) to the store's delivery hook in the
	// same transaction.
	FinishJob(ctx context.Context, j *Job) (bool, error)
	// CancelJob moves a queued or processing job to canceled and returns the
	// job as it now stands.
	CancelJob(ctx context.Context, id string, now time.Time) (*Job, error)
	// SetExport records where a job's export stands (Job.Export), for the
	// job with id whatever its status; an unknown id is ErrNotFound.
	SetExport(ctx context.Context, id string, e *Export) error
	// MarkResultDeleted records that a job's result file is gone.
	MarkResultDeleted(ctx context.Context, id string, now time.Time) error
	// MarkInputsDeleted records that a job's input files are gone.
	MarkInputsDeleted(ctx context.Context, id string, now time.Time) error
	// ExpiredResults returns up to limit jobs whose result expired before
	// now and is not yet deleted.
	ExpiredResults(ctx context.Context, now time.Time, limit int) ([]*Job, error)
	// StaleInputs returns up to limit finished jobs whose inputs still exist.
	StaleInputs(ctx context.Context, limit int) ([]*Job, error)
	// DeleteJobsCreatedBefore deletes up to limit finished job records
	// created before t, with their webhook delivery records, and returns
	// them, so their files can be removed.
	DeleteJobsCreatedBefore(ctx context.Context, t time.Time, limit int) ([]*Job, error)
	// Usage returns an account's operations in period and its jobs in flight.
	Usage(ctx context.Context, accountID, period string) (Usage, error)
	// CountByStatus returns how many jobs are in each non-final status.
	CountByStatus(ctx context.Context) (map[Status]int64, error)
	// UnfinishedJobs returns up to limit queued or processing jobs created
	// before t, oldest first, for the janitor to find jobs whose queue
	// entry is gone.
	UnfinishedJobs(ctx context.Context, t time.Time, limit int) ([]*Job, error)
	// ListJobs returns up to f.Limit of account f.AccountID's jobs that
	// match f, newest first (the order of JobPosition), starting after
	// f.After: the pages of GET /v1/jobs. Paging by position, not by
	// offset, neither repeats nor skips a job when others are created
	// meanwhile, and costs the same on every page.
	ListJobs(ctx context.Context, f JobFilter) ([]*Job, error)

	// Heartbeat records that worker node id is alive at now.
	Heartbeat(ctx context.Context, id string, now time.Time) error
	// ClaimDeadNodes removes the nodes whose last heartbeat is before t and
	// returns their ids; each dead node is returned to one caller only.
	ClaimDeadNodes(ctx context.Context, t time.Time) ([]string, error)
	// ForgetNode removes node id (a node that stops cleanly).
	ForgetNode(ctx context.Context, id string) error

	// Webhook endpoints and their delivery records.

	// CreateWebhook stores w unless its account already has max endpoints
	// (ErrTooManyWebhooks), checked in the same transaction as the insert.
	CreateWebhook(ctx context.Context, w *Webhook, max int) error
	// Webhook returns an endpoint by id.
	Webhook(ctx context.Context, id string) (*Webhook, error)
	// ListWebhooks returns an account's endpoints, oldest first.
	ListWebhooks(ctx context.Context, accountID string) ([]*Webhook, error)
	// DeleteWebhook removes an endpoint and its delivery records.
	DeleteWebhook(ctx context.Context, id string) error
	// RotateWebhookSecret makes secret the endpoint's secret; the one it
	// replaces keeps signing until previousUntil. It returns the endpoint
	// as it then stands.
	RotateWebhookSecret(ctx context.Context, id, secret string, previousUntil time.Time) (*Webhook, error)
	// EnableWebhook enables a disabled endpoint again, clearing its
	// DisabledReason and FailingSince, and returns it as it then stands.
	EnableWebhook(ctx context.Context, id string) (*Webhook, error)
	// RecordWebhookAttempt stores a delivery attempt and, in the same
	// transaction, the endpoint's health: a successful attempt clears
	// FailingSince, a failed one sets it if unset, and a non-empty
	// disable disables the endpoint (once) with that reason. It returns
	// the endpoint as it then stands; a deleted one is ErrNotFound.
	RecordWebhookAttempt(ctx context.Context, a *WebhookAttempt, disable string) (*Webhook, error)
	// WebhookAttempts returns up to limit attempts of an endpoint, newest
	// first. Attempts are deleted with their job's record.
	WebhookAttempts(ctx context.Context, webhookID string, limit int) ([]*WebhookAttempt, error)

	// Setting returns a server setting, creating it with value if absent, so
	// that every node of a deployment agrees on it (the URL signing secret).
	Setting(ctx context.Context, name, value string) (string, error)
	// Ping checks the database.
	Ping(ctx context.Context) error
}

// BlobAttributes describe a stored file.
type BlobAttributes struct {
	Size        int64
	ContentType string
	ModTime     time.Time
}

// BlobStore keeps uploaded inputs and results (a local directory or an
// S3-compatible bucket).
type BlobStore interface {
	// Put streams r to key. If r fails, nothing is left at key.
	Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
	// NewRangeReader reads length bytes of key from offset (length < 0:
	// to the end). A missing key is ErrNotFound.
	NewRangeReader(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	// Attributes describes key; a missing key is ErrNotFound.
	Attributes(ctx context.Context, key string) (BlobAttributes, error)
	// Delete removes key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// Ping checks the store is reachable.
	Ping(ctx context.Context) error
}

// BlobPresigner is a BlobStore that signs its own download links (an S3
// bucket's presigned GET), so that results are fetched from the bucket
// without passing through an API node. ok is false when this store cannot
// (a local directory).
type BlobPresigner interface {
	PresignGet(ctx context.Context, key, downloadName string, expiry time.Duration) (url string, ok bool, err error)
}

// LocalBlobStore is a BlobStore whose files may be on this machine's disk
// (a local directory), so that a worker moves files in and out by hard
// links instead of copies. Both methods answer for one key at a time: a
// store may hold some keys where it cannot link them.
type LocalBlobStore interface {
	BlobStore
	// LocalPath returns the file that holds key; ok is false when key is
	// not kept as a plain file on this machine. The caller must not change
	// the file.
	LocalPath(key string) (path string, ok bool)
	// LinkFile stores the local file at path under key by hard-linking it;
	// it reports false, having stored nothing, when it cannot (the store is
	// not local, or path is on another file system), and the caller then
	// writes the file with Put. The file must not change afterwards.
	LinkFile(key, path string) bool
}

// LimitResult is the outcome of one rate-limit check.
type LimitResult struct {
	Allowed   bool
	Limit     int
	Remaining int
	// RetryAfter is how long to wait before a request would be allowed
	// (zero when allowed).
	RetryAfter time.Duration
	// ResetAfter is how long until the limiter is back to full capacity.
	ResetAfter time.Duration
}

// Limiter is a rate limiter: limit requests per period for each key, with
// bursts up to limit (GCRA). Implementations: in-process and Redis.
type Limiter interface {
	Allow(ctx context.Context, key string, limit int, period time.Duration) (LimitResult, error)
}

// Queue is the part of the job lifecycle that the HTTP API drives beyond the
// store: waiting for a job to finish and canceling one.
type Queue interface {
	// Wait returns the job once it is finished or d has passed, whichever
	// comes first; it works whichever process runs the job.
	Wait(ctx context.Context, id string, d time.Duration) (*Job, error)
	// Cancel cancels an unfinished job (stopping it if it runs), or deletes
	// a finished job's result now; it returns the job as it then stands.
	Cancel(ctx context.Context, j *Job) (*Job, error)
}
