package docmill

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Code is a machine-readable error code; clients switch on it.
type Code string

// Error codes. The HTTP status of each lives in one table in httpapi.
const (
	CodeInvalidRequest      Code = "invalid_request"
	CodeMissingFile         Code = "missing_file"
	CodeTooManyFiles        Code = "too_many_files"
	CodeUnsupportedFileType Code = "unsupported_file_type"
	CodeFileTooLarge        Code = "file_too_large"
	CodeInvalidParameter    Code = "invalid_parameter"
	CodeInvalidDocument     Code = "invalid_document"
	CodeUnknownTool         Code = "unknown_tool"
	CodeUnauthorized        Code = "unauthorized"
	CodeNotFound            Code = "not_found"
	CodeIdempotencyConflict Code = "idempotency_conflict"
	CodeRateLimited         Code = "rate_limited"
	CodeQuotaExceeded       Code = "quota_exceeded"
	CodeInternal            Code = "internal"
	CodeEngineUnavailable   Code = "engine_unavailable"
	CodeMethodNotAllowed    Code = "method_not_allowed"
	CodeGone                Code = "gone"
	CodeForbidden           Code = "forbidden"
	CodeConflict            Code = "conflict"
	// CodeProcessingTimeout: this input takes the tool longer than its
	// limit; retrying the same input gives the same answer.
	CodeProcessingTimeout Code = "processing_timeout"
	// CodeUploadTooSlow: the request's body came in below the server's
	// minimum upload rate, or stopped; nothing of it was kept or charged,
	// and the request may be sent again over a better link.
	CodeUploadTooSlow Code = "upload_too_slow"
	// CodeServiceUnavailable: a dependency of the server (database, file
	// store, Redis) is down, or the server is shutting down; the request
	// may be retried later.
	CodeServiceUnavailable Code = "service_unavailable"
	// CodeWorkerLost: the node working a job died (or was cut off) on
	// each of its attempts; the job failed uncharged and may be sent again.
	CodeWorkerLost Code = "worker_lost"
	// CodeRangeNotSatisfiable: no byte range a download asked for is
	// inside the file.
	CodeRangeNotSatisfiable Code = "range_not_satisfiable"
	// CodePreconditionFailed: a conditional request's precondition
	// (If-Match, If-Unmodified-Since) does not hold.
	CodePreconditionFailed Code = "precondition_failed"
	// CodeInsufficientStorage: the server has too little free disk space
	// to take or finish the request right now; it is not the input's
	// fault, and the request may be retried later (Retry-After).
	CodeInsufficientStorage Code = "insufficient_storage"
	// CodeFetchFailed: an input given by URL (file_url) could not be
	// fetched: the address is refused, the server answered an error or
	// too slowly, or the connection failed. The problem names the URL
	// (field file_url[i]) and the reason.
	CodeFetchFailed Code = "fetch_failed"
	// CodeUnprocessableDocument: an engine crashed on this file the same
	// way on two runs (the crash rule, jobs): the file may be valid, but
	// this server cannot process it, and sending it again gives the same
	// answer.
	CodeUnprocessableDocument Code = "unprocessable_document"
	// CodeNoText: the document has no text to take (a scan without a
	// text layer); running ocr-pdf first gives it one.
	CodeNoText Code = "no_text"
	// CodeNoTables: the document has text but no table the tool can
	// find (pdf-to-csv, pdf-to-xlsx); an empty result is not made.
	CodeNoTables Code = "no_tables"
	// CodeAccountSuspended: the account of this key or session is
	// suspended by the operator; nothing it asks is done until resumed.
	CodeAccountSuspended Code = "account_suspended"
)

// FieldError names one invalid form field or parameter.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Title returns the code in words, as a problem's title:
// "file_too_large" is "File too large".
func (c Code) Title() string {
	s := strings.ReplaceAll(string(c), "_", " ")
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Problem is the body of every error answer over HTTP, the API's and the
// web pages': RFC 9457 problem details (application/problem+json) that
// carry docmill's code and the request's id, and for a job's error the
// job and the invalid fields.
type Problem struct {
	Type      string       `json:"type"`
	Title     string       `json:"title"`
	Status    int          `json:"status"`
	Detail    string       `json:"detail"`
	Code      Code         `json:"code"`
	RequestID string       `json:"request_id"`
	JobID     string       `json:"job_id,omitempty"`
	Errors    []FieldError `json:"errors,omitempty"`
}

// NewProblem returns the problem of an error of code answered with
// status: its type is the code's page under https://docmill.dev/errors/,
// its title the code's Title.
func NewProblem(status int, code Code, detail, requestID string) Problem {
	return Problem{
		Type:      "https://docmill.dev/errors/" + string(code),
		Title:     code.Title(),
		Status:    status,
		Detail:    detail,
		Code:      code,
		RequestID: requestID,
	}
}

// Error is the one error type of docmill. Message is safe to show to a
// client; Err is the internal cause, logged but never shown.
type Error struct {
	Code    Code
	Message string
	Fields  []FieldError
	// RetryAfter, when positive, is the number of seconds a client should
	// wait before trying again (rate limits, quotas).
	RetryAfter int
	Err        error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with a public message built from format.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ParamError returns an invalid_parameter error naming field.
func ParamError(field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	return &Error{
		Code:    CodeInvalidParameter,
		Message: fmt.Sprintf("Parameter %q %s.", field, msg),
		Fields:  []FieldError{{Field: field, Message: msg}},
	}
}

// InvalidDocument returns an invalid_document error: the input is damaged
// or is not what it claims to be. The public message is built from format;
// err, which may be nil, is the internal cause (logged, never shown).
func InvalidDocument(err error, format string, args ...any) *Error {
	e := Errorf(CodeInvalidDocument, format, args...)
	e.Err = err
	return e
}

// Internal wraps err as an internal error whose public message reveals
// nothing about it.
func Internal(err error) *Error {
	return &Error{Code: CodeInternal, Message: "An internal error occurred; please retry.", Err: err}
}

// ErrorCode returns the code of err: the Code of an *Error in its chain,
// CodeInsufficientStorage for an internal or unknown error caused by a full
// disk (IsNoSpace), or CodeInternal for any other non-nil error.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	return AsError(err).Code
}

// AsError returns err as an *Error, wrapping unknown errors as internal.
// An internal or unknown error caused by a full disk (IsNoSpace) is
// insufficient_storage instead: a write that found no room is the
// server's state, not a bug, and retrying it at once would fail again.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		if e.Code == CodeInternal && IsNoSpace(e.Err) {
			return InsufficientStorage(e.Err)
		}
		return e
	}
	if IsNoSpace(err) {
		return InsufficientStorage(err)
	}
	return Internal(err)
}

// ErrUnreadable marks, in an *Error's cause, a document its parser could
// not read (damaged, truncated, a structure it does not support), as
// opposed to one it read and refused (encrypted, over a limit): a repair
// may make it readable.
var ErrUnreadable = errors.New("docmill: the document could not be read")

// Errors of outbound requests to users' URLs (webhooks): the destination
// is an internal address (loopback, private, link-local, metadata...), or
// a plain http:// URL, and the request was not sent.
var (
	ErrInternalAddress = errors.New("docmill: refused internal address")
	ErrInsecureURL     = errors.New("docmill: refused URL scheme")
)

// ErrNotFound is returned by stores when a record does not exist.
var ErrNotFound = &Error{Code: CodeNotFound, Message: "Not found."}

// StorageRetryAfter is the Retry-After, in seconds, of an
// insufficient_storage answer: space comes back when the janitor removes
// expired results or an operator frees it, not in a moment.
const StorageRetryAfter = 60

// InsufficientStorage wraps err, a write that found no free space, as an
// insufficient_storage error whose public message reveals nothing of it
// (no path, no device).
func InsufficientStorage(err error) *Error {
	return &Error{
		Code:       CodeInsufficientStorage,
		Message:    "The server is short of storage space for this request right now; please retry later.",
		RetryAfter: StorageRetryAfter,
		Err:        err,
	}
}

// IsNoSpace reports whether err says that a file system had no room left
// (ENOSPC anywhere in its chain). Stores whose engines report a full disk
// otherwise (SQLite's SQLITE_FULL) wrap syscall.ENOSPC into their errors
// so that this one test holds for every write.
func IsNoSpace(err error) bool { return errors.Is(err, syscall.ENOSPC) }

// EngineFailure is an engine process that died by a signal instead of
// exiting: killed from outside (the kernel's OOM killer, an operator) or
// crashed. Once, it says nothing sure about the input, so it travels as
// the cause of an internal error, and the job runner counts it by engine
// (docmill_engine_failures_total). The job runner's crash rule (jobs)
// runs a crashed engine once more on fresh processes, and fails the job
// as unprocessable_document when it crashes the same way again; a kill
// from outside is retried as internal. A tool never answers it with a
// second, different route inside the same run.
type EngineFailure struct {
	// Engine is the program's name ("gs", "soffice").
	Engine string
	// Signal is the signal that ended it, as Go names it ("killed",
	// "segmentation fault").
	Signal string
	// Err is the run's own error, for the log.
	Err error
}

func (f *EngineFailure) Error() string {
	return fmt.Sprintf("engine %s died: %s: %v", f.Engine, f.Signal, f.Err)
}

func (f *EngineFailure) Unwrap() error { return f.Err }

// crashSignals are the signals a program raises on itself when it
// crashes (a bad memory access, a failed assertion, an illegal
// instruction, a division by zero, a breakpoint left in), as Go names
// them. SIGKILL, SIGTERM and the other signals sent from outside (the
// OOM killer, an operator, a memory cap) are not among them.
var crashSignals = map[string]bool{
	syscall.SIGSEGV.String(): true,
	syscall.SIGBUS.String():  true,
	syscall.SIGABRT.String(): true,
	syscall.SIGILL.String():  true,
	syscall.SIGFPE.String():  true,
	syscall.SIGTRAP.String(): true,
}

// Crashed reports whether the engine died by a signal it raised on
// itself (segmentation fault, abort...), which the input may cause, as
// opposed to one sent from outside (killed), which the node causes.
func (f *EngineFailure) Crashed() bool { return crashSignals[f.Signal] }

// SameCrash reports whether f and g are the same crash: the same engine
// crashed (Crashed) by the same signal.
func (f *EngineFailure) SameCrash(g *EngineFailure) bool {
	return f != nil && g != nil && f.Crashed() && f.Engine == g.Engine && f.Signal == g.Signal
}
