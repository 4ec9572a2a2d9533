package docmill

import (
	"context"
	"io"
	"time"
)

// Store keeps a deployment's records: accounts, keys, sessions, jobs,
// nodes, webhooks and settings, one interface per entity beside its type;
// a consumer that needs only some of them takes those.
// Implementations: store/sqlite and store/postgres; store/storetest is the
// conformance suite both pass, grouped by the same entities.
type Store interface {
	Accounts
	Keys
	AuthTokens
	Sessions
	Admissions
	Jobs
	JobMaintenance
	Nodes
	Webhooks
	Settings
	// Ping checks the database.
	Ping(ctx context.Context) error
}

// Settings keeps the server settings every node of a deployment shares.
type Settings interface {
	// Setting returns a server setting, creating it with value if absent, so
	// that every node of a deployment agrees on it (the URL signing secret).
	Setting(ctx context.Context, name, value string) (string, error)
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
