package httpapi

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/docmill/docmill"
)

// outageRetryAfter is the Retry-After, in seconds, of a 503
// service_unavailable answer.
const outageRetryAfter = 5

// unavailable is what a client is told when a dependency is down.
const unavailable = "A service this request needs is unavailable right now; please retry shortly."

// asOutage turns an internal error caused by an unreachable dependency
// (isOutage) into service_unavailable with a Retry-After; any other error
// is returned as it is. writeError applies it to every answer, so that a
// database, bucket or Redis outage anywhere in a request (authentication,
// admission, upload, job record) is a 503 the client may retry, never a
// 500. The cause is kept for the log and never shown.
func asOutage(e *docmill.Error) *docmill.Error {
	if e.Code != docmill.CodeInternal || !isOutage(e.Err) {
		return e
	}
	return &docmill.Error{Code: docmill.CodeServiceUnavailable, Message: unavailable, RetryAfter: outageRetryAfter, Err: e.Err}
}

// isOutage reports whether err, returned by a dependency of a request (the
// store, the blob store, the queue), says that the dependency could not be
// reached or did not answer, rather than that it refused the request or
// that docmill is wrong:
//
//   - a socket error (connection refused or reset, no route, a dial, read
//     or write failure: *net.OpError), a name that does not resolve
//     (*net.DNSError), or a socket deadline;
//   - a connection closed in the middle of an answer (io.ErrUnexpectedEOF,
//     or io.EOF from an HTTP transport: the bucket's *url.Error);
//   - a dependency's deadline (context.DeadlineExceeded);
//   - PostgreSQL: a failed connection (*pgconn.ConnectError), a connection
//     the driver already closed, a driver timeout, or a server that refuses
//     work (SQLSTATE class 08 connection exception, 57P01-57P03 shutting
//     down or starting up, 53300 too many connections);
//   - an HTTP dependency (the S3 API) answering 502, 503 or 504 after its
//     client's retries.
//
// A client's own failures never get here: a broken request body is told
// apart where it is read (storePart).
func isOutage(err error) bool {
	if err == nil {
		return false
	}
	var (
		opErr   *net.OpError
		dnsErr  *net.DNSError
		urlErr  *url.Error
		connErr *pgconn.ConnectError
		pgErr   *pgconn.PgError
		status  interface{ HTTPStatusCode() int }
	)
	switch {
	case errors.As(err, &opErr), errors.As(err, &dnsErr),
		errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, io.ErrUnexpectedEOF):
		return true
	case errors.As(err, &urlErr) && errors.Is(err, io.EOF):
		return true
	case errors.As(err, &connErr), errors.Is(err, pgconn.ErrConnClosed), pgconn.Timeout(err):
		return true
	case errors.As(err, &pgErr):
		c := pgErr.Code
		return strings.HasPrefix(c, "08") || c == "57P01" || c == "57P02" || c == "57P03" || c == "53300"
	case errors.As(err, &status):
		c := status.HTTPStatusCode()
		return c == http.StatusBadGateway || c == http.StatusServiceUnavailable || c == http.StatusGatewayTimeout
	}
	for _, errno := range []syscall.Errno{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.ECONNABORTED,
		syscall.EPIPE, syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ENETDOWN} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}
