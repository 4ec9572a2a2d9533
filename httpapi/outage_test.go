package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/docmill/docmill"
)

func TestIsOutage(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5432},
		Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	s3Status := func(code int) error { // the S3 client's error for an HTTP answer
		return &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: code}}, Err: errors.New("api error")}
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", errors.New("boom"), false},
		{"not found", docmill.ErrNotFound, false},
		{"quota", docmill.ErrQuotaExceeded, false},
		{"dial refused, wrapped", fmt.Errorf("postgres: create job: %w", refused), true},
		{"reset while reading", &net.OpError{Op: "read", Net: "tcp", Err: &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}}, true},
		{"name does not resolve", &net.DNSError{Err: "no such host", Name: "db.internal", IsNotFound: true}, true},
		{"errno alone", fmt.Errorf("write: %w", syscall.EPIPE), true},
		{"no route", &os.SyscallError{Syscall: "connect", Err: syscall.EHOSTUNREACH}, true},
		{"connection closed mid-answer", fmt.Errorf("receive message failed: %w", io.ErrUnexpectedEOF), true},
		{"HTTP transport EOF", fmt.Errorf("blob: %w", &url.Error{Op: "Put", URL: "http://bucket/k", Err: io.EOF}), true},
		{"HTTP misconfiguration", &url.Error{Op: "Put", URL: "ftp://bucket/k", Err: errors.New("unsupported protocol scheme")}, false},
		{"bare EOF", io.EOF, false},
		{"dependency deadline", fmt.Errorf("ping: %w", context.DeadlineExceeded), true},
		{"socket deadline", os.ErrDeadlineExceeded, true},
		{"canceled", context.Canceled, false},
		{"disk full", &fs.PathError{Op: "write", Path: "/data/blobs/x", Err: syscall.ENOSPC}, false},
		{"permission", &fs.PathError{Op: "open", Path: "/data/blobs/x", Err: syscall.EACCES}, false},
		{"postgres shutting down", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{"postgres starting up", &pgconn.PgError{Code: "57P03"}, true},
		{"postgres connection failure", &pgconn.PgError{Code: "08006"}, true},
		{"postgres too many connections", &pgconn.PgError{Code: "53300"}, true},
		{"postgres unique violation", &pgconn.PgError{Code: "23505"}, false},
		{"postgres serialization failure", &pgconn.PgError{Code: "40001"}, false},
		{"pgx closed connection", fmt.Errorf("begin: %w", pgconn.ErrConnClosed), true},
		{"bucket 503", fmt.Errorf("blob: %w", s3Status(http.StatusServiceUnavailable)), true},
		{"bucket 504", s3Status(http.StatusGatewayTimeout), true},
		{"bucket 500", s3Status(http.StatusInternalServerError), false},
		{"bucket 403", s3Status(http.StatusForbidden), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := isOutage(tc.err); got != tc.want {
				t.Errorf("isOutage(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// TestWriteErrorOutage: an internal error caused by an unreachable
// dependency is answered 503 service_unavailable with Retry-After, logged
// with its cause, which the body never shows; other errors keep their code.
func TestWriteErrorOutage(t *testing.T) {
	const secret = "10.1.2.3:5432"
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: errors.New(secret + ": connection refused")}
	tests := []struct {
		name       string
		err        error
		status     int
		code       docmill.Code
		retryAfter string
	}{
		{"internal, dependency down", docmill.Internal(fmt.Errorf("postgres: usage: %w", refused)), 503, docmill.CodeServiceUnavailable, "5"},
		{"unwrapped error, dependency down", fmt.Errorf("blob: %w", refused), 503, docmill.CodeServiceUnavailable, "5"},
		{"internal, other cause", docmill.Internal(errors.New("bug")), 500, docmill.CodeInternal, ""},
		{"client error with a network cause", &docmill.Error{Code: docmill.CodeInvalidRequest, Message: "The upload was interrupted.", Err: refused}, 400, docmill.CodeInvalidRequest, ""},
		{"internal, disk full", docmill.Internal(&fs.PathError{Op: "write", Path: "/" + secret, Err: syscall.ENOSPC}), 507, docmill.CodeInsufficientStorage, "60"},
		{"failed job's record, disk full", &docmill.Error{Code: docmill.CodeInsufficientStorage, Message: "short of space"}, 507, docmill.CodeInsufficientStorage, "60"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, logs := recordError("POST", "/v1/rotate-pdf/process", tc.err)
			var p docmill.Problem
			if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
				t.Fatalf("body: %v\n%s", err, w.Body)
			}
			if w.Code != tc.status || p.Code != tc.code || p.Status != tc.status {
				t.Fatalf("%d %s, want %d %s", w.Code, p.Code, tc.status, tc.code)
			}
			if got := w.Header().Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tc.retryAfter)
			}
			if strings.Contains(w.Body.String(), secret) {
				t.Errorf("body shows the cause: %s", w.Body)
			}
			if tc.code != docmill.CodeServiceUnavailable {
				return
			}
			if p.Detail != unavailable || strings.Contains(w.Body.String(), secret) {
				t.Errorf("detail %q (body %s)", p.Detail, w.Body)
			}
			if !strings.Contains(logs.String(), secret) || !strings.Contains(logs.String(), "req_test") {
				t.Errorf("cause not logged with the request id: %s", logs.String())
			}
		})
	}
}
