package docmill

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Status is the state of a job: queued -> processing -> done | failed, or
// canceled after a DELETE of an unfinished job.
type Status string

// Job statuses.
const (
	StatusQueued     Status = "queued"
	StatusProcessing Status = "processing"
	StatusDone       Status = "done"
	StatusFailed     Status = "failed"
	StatusCanceled   Status = "canceled"
)

// Finished reports whether s is a final status.
func (s Status) Finished() bool {
	return s == StatusDone || s == StatusFailed || s == StatusCanceled
}

// RecordRetention is how long job records are kept.
const RecordRetention = 30 * 24 * time.Hour

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewID returns prefix followed by 128 random bits in lowercase base32.
func NewID(prefix string) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return prefix + strings.ToLower(idEncoding.EncodeToString(b[:]))
}

// NewJobID returns a fresh, unguessable job id.
func NewJobID() string { return NewID("job_") }

// InputKey is the blob key of a job's index-th input. Keys are flat (no
// directory per job): on a local disk every directory costs a creation and
// is left behind when its files are deleted.
func InputKey(jobID string, index int) string {
	return "in/" + jobID + "." + strconv.Itoa(index)
}

// ResultKey is the blob key of a job's result file.
func ResultKey(jobID, filename string) string {
	return "out/" + jobID + "." + filename
}

// PreviewName is the file name of the preview of a result named
// filename: a PNG of its first page, stored beside it under
// ResultKey(jobID, PreviewName(filename)) and served like it. It extends
// the result's name, so it can never be the result's own.
func PreviewName(filename string) string {
	return filename + ".preview.png"
}

// ResultName names a job's result after the client's file: its base name
// (whatever path separator the client's system used), without ext when it
// ends so (any case; ext "" drops any extension of up to five characters),
// followed by suffix; "document" stands in for a name left empty.
// ResultName("C:\\a\\report.PDF", ".pdf", "-rotated.pdf") is
// "report-rotated.pdf".
func ResultName(filename, ext, suffix string) string {
	base := filename
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	if ext != "" {
		if n := len(base) - len(ext); n >= 0 && strings.EqualFold(base[n:], ext) {
			base = base[:n]
		}
	} else if i := strings.LastIndexByte(base, '.'); i >= 0 && len(base)-i <= 6 {
		base = base[:i]
	}
	if strings.TrimSpace(base) == "" {
		base = "document"
	}
	return base + suffix
}

// InputFile is one uploaded file of a job, kept in the blob store under Key
// until the job ends.
type InputFile struct {
	Key         string `json:"key"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
}

// Result describes a job's output file.
type Result struct {
	Key         string
	Filename    string
	ContentType string
	Size        int64
	ExpiresAt   time.Time
	// DeletedAt is set once the result file is gone (expired or deleted).
	DeletedAt *time.Time
}

// JobError is the failure reason of a failed job.
type JobError struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	// Fields names the parameters at fault, for invalid_parameter.
	Fields []FieldError `json:"errors,omitempty"`
}

// Job is one process call: its inputs, parameters, state and result.
type Job struct {
	ID        string
	AccountID string
	Tool      string
	Status    Status
	Params    Params
	Inputs    []InputFile
	// Priority is the queue priority, 1 (highest) to 4 (lowest).
	Priority int
	// Operations is what the job is charged when it ends done, and holds
	// against the account's quota while in flight: one for a tool, one a
	// step for a pipeline; 0 counts as 1 (Charge).
	Operations int
	// ResultTTL is how long the result stays downloadable after the job ends.
	ResultTTL time.Duration

	IdempotencyKey string
	RequestHash    string

	CreatedAt  time.Time
	StartedAt  *time.Time
	FinishedAt *time.Time

	Result *Result
	Meta   map[string]any
	Error  *JobError

	// InputsDeletedAt is set once the input files are removed.
	InputsDeletedAt *time.Time

	// Export, when set, is where the result is sent once the job is done
	// (the request's export_url) and how that went.
	Export *Export

	// Used is the processing time the job's attempts have used so far,
	// as last recorded while they ran (Jobs.RecordUsed): a job handed
	// back after its worker was lost runs again with only what is left of
	// its work budget (WorkBudget).
	Used time.Duration

	// Preview asks the job for a preview of its result (the request's
	// preview=true): a PDF result's first page as a PNG, never charged
	// (jobs/preview.go).
	Preview bool
}

// ExportStatus is where the export of a job's result stands.
type ExportStatus string

// Export statuses: pending until the result is sent (or the job ends
// otherwise), then done or failed.
const (
	ExportPending ExportStatus = "pending"
	ExportDone    ExportStatus = "done"
	ExportFailed  ExportStatus = "failed"
)

// Export is the export of a job's result to a URL of the client's (a
// presigned PUT URL of S3, GCS or Azure): the result is PUT there once the
// job is done.
type Export struct {
	// URL is the destination. While the export is pending it holds the
	// whole URL, query (the presigned signature) included; once it ended,
	// only Destination is kept.
	URL string `json:"url"`
	// KeepResult false deletes docmill's copy of the result once it is
	// exported; true (the default) keeps the download link.
	KeepResult bool `json:"keep_result"`
	// Status is pending, done or failed.
	Status ExportStatus `json:"status"`
	// Reason says why a failed export failed, safe to show the client.
	Reason string `json:"reason,omitempty"`
	// Attempts is how many PUTs were made.
	Attempts int `json:"attempts,omitempty"`
}

// Destination is the export's URL without its query and fragment, which
// carry the presigned signature: what a job record may show.
func (e *Export) Destination() string {
	u, err := url.Parse(e.URL)
	if err != nil {
		return ""
	}
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment, u.User = "", false, "", "", nil
	return u.String()
}

// Charge returns the operations j is charged when it ends done: its
// Operations, at least 1.
func (j *Job) Charge() int { return max(1, j.Operations) }

// InputSize is the total size of the job's inputs in bytes.
func (j *Job) InputSize() int64 {
	var n int64
	for _, f := range j.Inputs {
		n += f.Size
	}
	return n
}

// Jobs keeps a job's record from its admission (Admissions.CreateJob) to
// its end: the worker's moves, the client's reads and cancel, the export.
type Jobs interface {
	// Job returns a job by id.
	Job(ctx context.Context, id string) (*Job, error)
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
	// ListJobs returns up to f.Limit of account f.AccountID's jobs that
	// match f, newest first (the order of JobPosition), starting after
	// f.After: the pages of GET /v1/jobs. Paging by position, not by
	// offset, neither repeats nor skips a job when others are created
	// meanwhile, and costs the same on every page.
	ListJobs(ctx context.Context, f JobFilter) ([]*Job, error)
}

// JobMaintenance is the store's side of the janitor and the metrics: the
// jobs whose files or records are due to go, the jobs whose queue entry
// may be gone, and how many jobs are waiting or running.
type JobMaintenance interface {
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
	// UnfinishedJobs returns up to limit queued or processing jobs created
	// before t, oldest first, for the janitor to find jobs whose queue
	// entry is gone.
	UnfinishedJobs(ctx context.Context, t time.Time, limit int) ([]*Job, error)
	// CountByStatus returns how many jobs are in each non-final status.
	CountByStatus(ctx context.Context) (map[Status]int64, error)
}
