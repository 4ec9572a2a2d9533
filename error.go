package docmill

import (
	"errors"
	"fmt"
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
	// CodeServiceUnavailable: a dependency of the server (database, file
	// store, Redis) is down, or the server is shutting down; the request
	// may be retried later.
	CodeServiceUnavailable Code = "service_unavailable"
	// CodeRangeNotSatisfiable: no byte range a download asked for is
	// inside the file.
	CodeRangeNotSatisfiable Code = "range_not_satisfiable"
	// CodePreconditionFailed: a conditional request's precondition
	// (If-Match, If-Unmodified-Since) does not hold.
	CodePreconditionFailed Code = "precondition_failed"
)

// FieldError names one invalid form field or parameter.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
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

// Internal wraps err as an internal error whose public message reveals
// nothing about it.
func Internal(err error) *Error {
	return &Error{Code: CodeInternal, Message: "An internal error occurred; please retry.", Err: err}
}

// ErrorCode returns the code of err: the Code of an *Error in its chain, or
// CodeInternal for any other non-nil error.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// AsError returns err as an *Error, wrapping unknown errors as internal.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Internal(err)
}

// ErrUnreadable marks, in an *Error's cause, a document its parser could
// not read (damaged, truncated, a structure it does not support), as
// opposed to one it read and refused (encrypted, over a limit): a repair
// may make it readable.
var ErrUnreadable = errors.New("docmill: the document could not be read")

// ErrNotFound is returned by stores when a record does not exist.
var ErrNotFound = &Error{Code: CodeNotFound, Message: "Not found."}
