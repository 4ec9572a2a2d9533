// Package jobview renders the job record, a job as its client sees it:
// the body of GET /v1/jobs/{id}, of a process call's 200 and 202 and of
// each entry of GET /v1/jobs, and the "data" of a webhook event. The HTTP
// API and the queue (which renders an event inside the transaction that
// finishes its job) both render through a Renderer, so a webhook's data is
// the record a poll returns. It also signs the records' download links,
// and checks them for the file endpoint that serves them.
package jobview

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/docmill/docmill"
)

// Record is the job record.
type Record struct {
	JobID      string            `json:"job_id"`
	Status     docmill.Status    `json:"status"`
	Tool       string            `json:"tool"`
	CreatedAt  string            `json:"created_at"`
	FinishedAt *string           `json:"finished_at,omitempty"`
	Result     *Result           `json:"result,omitempty"`
	Meta       map[string]any    `json:"meta"`
	Error      *docmill.JobError `json:"error"`
}

// Result is a done job's result in its record.
type Result struct {
	URL string `json:"url,omitempty"`
	// PreviewURL links the result's preview, a PNG of its first page,
	// while the result can be downloaded.
	PreviewURL  string `json:"preview_url,omitempty"`
	Size        int64  `json:"size"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	ExpiresAt   string `json:"expires_at"`
	Expired     bool   `json:"expired,omitempty"`
	// The export (export_url): its destination without the query, and
	// pending, done or failed, with the reason of a failure.
	ExportedTo   string `json:"exported_to,omitempty"`
	ExportStatus string `json:"export_status,omitempty"`
	ExportError  string `json:"export_error,omitempty"`
}

// Timestamp is a time as the API writes it: RFC 3339 in UTC, to the
// second.
func Timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// Config is what a Renderer needs; cmd/docmill builds it once for the
// API and the queue.
type Config struct {
	// BaseURL is where clients reach the API; result links point to it
	// when there is no CDNURL and Blob does not presign.
	BaseURL string
	// CDNURL is where result files are downloaded from, with links signed
	// by us. When empty, a Blob that presigns its own links
	// (docmill.BlobPresigner) is linked to directly, and otherwise BaseURL
	// serves the files.
	CDNURL string
	// SigningKey signs result links; every node of a deployment shares it.
	SigningKey []byte
	// Blob is the file store that holds the results.
	Blob docmill.BlobStore
	// Logger reports a presigned link that failed (the record then links
	// through the API); default slog.Default.
	Logger *slog.Logger
	// Now is the clock that says whether a result has expired; default
	// time.Now.
	Now func() time.Time
}

// Renderer renders job records. It uses no store, so it may run inside a
// store's transaction.
type Renderer struct {
	// fileBase is where our signed links point: the CDN URL, or the API.
	fileBase   string
	signingKey []byte
	// presigner links results to the bucket itself (no CDN URL configured).
	presigner docmill.BlobPresigner
	log       *slog.Logger
	now       func() time.Time
}

// New returns the renderer of cfg.
func New(cfg Config) *Renderer {
	r := &Renderer{fileBase: cfg.CDNURL, signingKey: cfg.SigningKey, log: cfg.Logger, now: cfg.Now}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.fileBase == "" {
		r.presigner, _ = cfg.Blob.(docmill.BlobPresigner)
		r.fileBase = cfg.BaseURL
	}
	r.fileBase = strings.TrimRight(r.fileBase, "/")
	return r
}

// Record is j's record, with links to its result and preview while they
// can be downloaded.
func (r *Renderer) Record(ctx context.Context, j *docmill.Job) Record {
	b := Record{
		JobID:     j.ID,
		Status:    j.Status,
		Tool:      j.Tool,
		CreatedAt: Timestamp(j.CreatedAt),
		Meta:      map[string]any{},
		Error:     j.Error,
	}
	for k, v := range j.Meta {
		b.Meta[k] = v
	}
	// input_size is the job's, known from its record whatever its status,
	// and is set here only: a tool's own figure of the same name (and the
	// copy older records kept in their meta) gives way to it.
	b.Meta["input_size"] = j.InputSize()
	if j.FinishedAt != nil {
		f := Timestamp(*j.FinishedAt)
		b.FinishedAt = &f
	}
	if j.Status == docmill.StatusDone && j.Result != nil {
		b.Result = r.result(ctx, j)
	}
	return b
}

// result is the result of j, a done job with one.
func (r *Renderer) result(ctx context.Context, j *docmill.Job) *Result {
	res := j.Result
	b := &Result{Size: res.Size, Filename: res.Filename, ContentType: res.ContentType, ExpiresAt: Timestamp(res.ExpiresAt)}
	exported := j.Export != nil && j.Export.Status == docmill.ExportDone && !j.Export.KeepResult
	switch {
	case exported && res.DeletedAt != nil:
		// keep_result=false: the result went to the client's storage
		// only; there is no link, and nothing expired.
	case res.DeletedAt != nil || !r.now().Before(res.ExpiresAt):
		b.Expired = true
	default:
		b.URL = r.resultURL(ctx, j, res.Key, res.Filename, res.ExpiresAt)
		if _, ok := j.Meta["preview_size"]; ok {
			name := docmill.PreviewName(res.Filename)
			b.PreviewURL = r.resultURL(ctx, j, docmill.ResultKey(j.ID, name), name, res.ExpiresAt)
		}
	}
	if e := j.Export; e != nil {
		b.ExportedTo, b.ExportStatus = e.Destination(), string(e.Status)
		if e.Status == docmill.ExportFailed {
			b.ExportError = e.Reason
		}
	}
	return b
}

// resultURL is the download link of a job's file stored at key (its
// result or the result's preview), valid until expiresAt: the bucket's
// own presigned link when it can sign one, else ours.
func (r *Renderer) resultURL(ctx context.Context, j *docmill.Job, key, filename string, expiresAt time.Time) string {
	if r.presigner != nil {
		// Rounded up to whole seconds, so the link lives until expires_at.
		ttl := expiresAt.Sub(r.now()).Truncate(time.Second) + time.Second
		u, ok, err := r.presigner.PresignGet(ctx, key, filename, ttl)
		if err == nil && ok {
			return u
		}
		if err != nil {
			r.log.Warn("presigning a result failed; linking through the API", "job", j.ID, "err", err)
		}
	}
	return r.FileURL(j.ID, filename, expiresAt)
}

// FileURL is our signed download link of a job's file, valid until
// expiresAt: GET /files/{job_id}/{filename} on the CDN URL (or the API's).
func (r *Renderer) FileURL(jobID, filename string, expiresAt time.Time) string {
	exp := expiresAt.Unix()
	return fmt.Sprintf("%s/files/%s/%s?expires=%d&signature=%s",
		r.fileBase, url.PathEscape(jobID), url.PathEscape(filename), exp, r.signature(jobID, filename, exp))
}

// CheckLink checks a download link's signature and expiry (query's
// expires and signature) for jobID's filename at now, and returns when
// it expires: a link not signed by this deployment is forbidden, an
// expired one gone.
func (r *Renderer) CheckLink(jobID, filename string, query url.Values, now time.Time) (time.Time, error) {
	exp, err := strconv.ParseInt(query.Get("expires"), 10, 64)
	want := r.signature(jobID, filename, exp)
	if err != nil || !hmac.Equal([]byte(want), []byte(query.Get("signature"))) {
		return time.Time{}, docmill.Errorf(docmill.CodeForbidden, "The download link is not valid.")
	}
	expiresAt := time.Unix(exp, 0)
	if !now.Before(expiresAt) {
		return time.Time{}, docmill.Errorf(docmill.CodeGone, "The download link expired at %s.", Timestamp(expiresAt))
	}
	return expiresAt, nil
}

// signature is the URL-safe HMAC-SHA256 of a file's path and expiry.
func (r *Renderer) signature(jobID, filename string, expires int64) string {
	m := hmac.New(sha256.New, r.signingKey)
	fmt.Fprintf(m, "%s\n%s\n%d", jobID, filename, expires)
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
