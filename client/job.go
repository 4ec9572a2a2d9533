package client

import (
	"time"

	"github.com/docmill/docmill"
)

// Job is the job record of the API (the body of 200, 202, a poll and a
// cancel). Its fields, their order and which are left
// out when absent follow the server's rendering, so encoding a Job decoded
// from an answer (indented by two spaces, HTML left unescaped) gives the
// answer's body back.
type Job struct {
	JobID     string         `json:"job_id"`
	Status    docmill.Status `json:"status"`
	Tool      string         `json:"tool"`
	CreatedAt time.Time      `json:"created_at"`
	// FinishedAt is set once the job is done, failed or canceled.
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	// Result is set only when the job is done.
	Result *Result `json:"result,omitempty"`
	Meta   Meta    `json:"meta"`
	// Error is set only when the job failed; the API always sends the
	// field (null otherwise).
	Error *JobError `json:"error"`
}

// Finished reports whether the job reached a final status.
func (j *Job) Finished() bool {
	return j.Status == docmill.StatusDone || j.Status == docmill.StatusFailed || j.Status == docmill.StatusCanceled
}

// Result describes a done job's file.
type Result struct {
	// URL is the signed download link; it is absent once the result has
	// expired or was deleted (Expired is then true).
	URL string `json:"url,omitempty"`
	// PreviewURL links a PDF result's first page as a small PNG, while
	// URL does; absent when none was made.
	PreviewURL  string    `json:"preview_url,omitempty"`
	Size        int64     `json:"size"`
	Filename    string    `json:"filename"`
	ContentType string    `json:"content_type"`
	ExpiresAt   time.Time `json:"expires_at"`
	Expired     bool      `json:"expired,omitempty"`
	// The export to export_url: its destination (without the query),
	// status (pending, done, failed) and the reason of a failure.
	ExportedTo   string `json:"exported_to,omitempty"`
	ExportStatus string `json:"export_status,omitempty"`
	ExportError  string `json:"export_error,omitempty"`
}

// JobError is a failed job's reason.
type JobError struct {
	Code    docmill.Code `json:"code"`
	Message string       `json:"message"`
	// Fields names the parameters at fault, for invalid_parameter.
	Fields []FieldError `json:"errors,omitempty"`
}

// FieldError is one field at fault in a refused request or a failed job.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Meta holds a job's figures: duration_ms, queued_ms and input_size for
// every job, and each tool's own (pages, saved_bytes, repaired, ...). It
// is open-ended, so it stays a map; Int reads a number from it.
type Meta map[string]any

// Int returns the named figure as a whole number, and whether it is there
// and a number.
func (m Meta) Int(name string) (int64, bool) {
	f, ok := m[name].(float64)
	return int64(f), ok
}
