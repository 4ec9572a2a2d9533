package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/docmill/docmill"
)

// statusOf is the one table mapping error codes to HTTP statuses.
var statusOf = map[docmill.Code]int{
	docmill.CodeInvalidRequest:      http.StatusBadRequest,
	docmill.CodeMissingFile:         http.StatusBadRequest,
	docmill.CodeTooManyFiles:        http.StatusBadRequest,
	docmill.CodeUnsupportedFileType: http.StatusBadRequest,
	docmill.CodeFileTooLarge:        http.StatusBadRequest,
	docmill.CodeInvalidParameter:    http.StatusBadRequest,
	docmill.CodeInvalidDocument:     http.StatusBadRequest,
	docmill.CodeUnknownTool:         http.StatusNotFound,
	docmill.CodeUnauthorized:        http.StatusUnauthorized,
	docmill.CodeForbidden:           http.StatusForbidden,
	docmill.CodeNotFound:            http.StatusNotFound,
	docmill.CodeMethodNotAllowed:    http.StatusMethodNotAllowed,
	docmill.CodeUploadTooSlow:       http.StatusRequestTimeout,
	docmill.CodeIdempotencyConflict: http.StatusConflict,
	docmill.CodeConflict:            http.StatusConflict,
	docmill.CodeGone:                http.StatusGone,
	docmill.CodeRateLimited:         http.StatusTooManyRequests,
	docmill.CodeQuotaExceeded:       http.StatusTooManyRequests,
	docmill.CodeInternal:            http.StatusInternalServerError,
	docmill.CodeWorkerLost:          http.StatusInternalServerError,
	docmill.CodeEngineUnavailable:   http.StatusServiceUnavailable,
	docmill.CodeProcessingTimeout:   http.StatusUnprocessableEntity,
	docmill.CodeServiceUnavailable:  http.StatusServiceUnavailable,
	docmill.CodeRangeNotSatisfiable: http.StatusRequestedRangeNotSatisfiable,
	docmill.CodePreconditionFailed:  http.StatusPreconditionFailed,
	docmill.CodeInsufficientStorage: http.StatusInsufficientStorage,
	docmill.CodeFetchFailed:         http.StatusBadRequest,

	// The crash rule (jobs): an engine crashed twice on the file.
	docmill.CodeUnprocessableDocument: http.StatusUnprocessableEntity,
	// The document holds nothing the tool takes: no text, no table.
	docmill.CodeNoText:           http.StatusUnprocessableEntity,
	docmill.CodeNoTables:         http.StatusUnprocessableEntity,
	docmill.CodeAccountSuspended: http.StatusForbidden,
}

// StatusOf returns the HTTP status for an error code (500 if unknown).
func StatusOf(code docmill.Code) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// writeError answers with err as problem+json. Internal errors are logged
// with their cause and shown only as a generic message; those caused by an
// unreachable dependency are 503 service_unavailable (asOutage).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	s.writeJobError(w, r, err, "")
}

func (s *Server) writeJobError(w http.ResponseWriter, r *http.Request, err error, jobID string) {
	e := asOutage(docmill.AsError(err))
	status := StatusOf(e.Code)
	noteCode(r.Context(), e.Code)
	switch {
	case e.Code == docmill.CodeInternal && e.Err != nil:
		s.log.Error("internal error", "request_id", requestID(r.Context()), "method", r.Method, "path", r.URL.Path, "err", e.Err)
	case e.Code == docmill.CodeServiceUnavailable && e.Err != nil:
		s.log.Warn("dependency unavailable", "request_id", requestID(r.Context()), "method", r.Method, "path", r.URL.Path, "err", e.Err)
	case e.Code == docmill.CodeInsufficientStorage && e.Err != nil:
		s.log.Warn("insufficient storage", "request_id", requestID(r.Context()), "method", r.Method, "path", r.URL.Path, "err", e.Err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	retryAfter := e.RetryAfter
	if retryAfter <= 0 && e.Code == docmill.CodeInsufficientStorage {
		// A failed job's record keeps no Retry-After; the wait is the code's.
		retryAfter = docmill.StorageRetryAfter
	}
	if retryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	if status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="docmill"`)
	}
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	p := docmill.NewProblem(status, e.Code, e.Message, requestID(r.Context()))
	p.JobID, p.Errors = jobID, e.Fields
	_ = enc.Encode(p)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // result URLs keep a plain "&"
	_ = enc.Encode(v)
}
