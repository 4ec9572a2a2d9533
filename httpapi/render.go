package httpapi

import (
	"context"
	"time"

	"github.com/docmill/docmill"
)

// jobBody is the job record: the body of 200, 202
// and of a poll.
type jobBody struct {
	JobID      string            `json:"job_id"`
	Status     docmill.Status    `json:"status"`
	Tool       string            `json:"tool"`
	CreatedAt  string            `json:"created_at"`
	FinishedAt *string           `json:"finished_at,omitempty"`
	Result     *resultBody       `json:"result,omitempty"`
	Meta       map[string]any    `json:"meta"`
	Error      *docmill.JobError `json:"error"`
}

type resultBody struct {
	URL string `json:"url,omitempty"`
	// PreviewURL links the result's preview, a PNG of its first page
	// (jobs/preview.go), while the result can be downloaded.
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

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func (s *Server) renderJob(ctx context.Context, j *docmill.Job) jobBody {
	b := jobBody{
		JobID:     j.ID,
		Status:    j.Status,
		Tool:      j.Tool,
		CreatedAt: timestamp(j.CreatedAt),
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
		f := timestamp(*j.FinishedAt)
		b.FinishedAt = &f
	}
	if j.Status == docmill.StatusDone && j.Result != nil {
		res := j.Result
		b.Result = &resultBody{Size: res.Size, Filename: res.Filename, ContentType: res.ContentType, ExpiresAt: timestamp(res.ExpiresAt)}
		exported := j.Export != nil && j.Export.Status == docmill.ExportDone && !j.Export.KeepResult
		switch {
		case exported && res.DeletedAt != nil:
			// keep_result=false: the result went to the client's storage
			// only; there is no link, and nothing expired.
		case res.DeletedAt != nil || !s.cfg.Now().Before(res.ExpiresAt):
			b.Result.Expired = true
		default:
			b.Result.URL = s.resultURL(ctx, j, res.Key, res.Filename, res.ExpiresAt)
			if _, ok := j.Meta["preview_size"]; ok {
				name := docmill.PreviewName(res.Filename)
				b.Result.PreviewURL = s.resultURL(ctx, j, docmill.ResultKey(j.ID, name), name, res.ExpiresAt)
			}
		}
		if e := j.Export; e != nil {
			b.Result.ExportedTo, b.Result.ExportStatus = e.Destination(), string(e.Status)
			if e.Status == docmill.ExportFailed {
				b.Result.ExportError = e.Reason
			}
		}
	}
	return b
}

// resultURL is the download link of a job's file stored at key (its
// result or the result's preview), valid until expiresAt: the bucket's
// own presigned link when it can sign one, else ours.
func (s *Server) resultURL(ctx context.Context, j *docmill.Job, key, filename string, expiresAt time.Time) string {
	if s.presigner != nil {
		// Rounded up to whole seconds, so the link lives until expires_at.
		ttl := expiresAt.Sub(s.cfg.Now()).Truncate(time.Second) + time.Second
		u, ok, err := s.presigner.PresignGet(ctx, key, filename, ttl)
		if err == nil && ok {
			return u
		}
		if err != nil {
			s.log.Warn("presigning a result failed; linking through the API", "job", j.ID, "err", err)
		}
	}
	return s.fileURL(j.ID, filename, expiresAt)
}
