package main

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
	"strings"
	"syscall"

	"github.com/docmill/docmill/client"
)

// The exit codes of docmill, after sysexits.h where one fits; docs/cli.md
// lists them. A script tells a request the server refused (do not send it
// again unchanged) from a server or network failure (the CLI already
// retried; try later) and from an interruption.
const (
	exitOK = 0
	// exitFailure: a job ran and ended failed or canceled, a local file
	// could not be written, or any failure not listed below.
	exitFailure = 1
	// exitUsage (EX_USAGE): a bad flag, argument or command; no key.
	exitUsage = 64
	// exitRefused (EX_DATAERR): the server refused the request, a 4xx
	// answer (bad parameter, unauthorized, quota, not found, ...).
	exitRefused = 65
	// exitNoInput (EX_NOINPUT): an input file, or the database an
	// operator command works on, does not exist.
	exitNoInput = 66
	// exitServer (EX_UNAVAILABLE): the server failed, a 5xx answer, after
	// the retries.
	exitServer = 69
	// exitNetwork (EX_TEMPFAIL): the server could not be reached or the
	// connection broke, after the retries.
	exitNetwork = 75
	// exitInterrupted: Ctrl-C (SIGINT) or SIGTERM, 128+2 as shells say.
	exitInterrupted = 130
)

// errInterrupted marks the error of a command stopped by Ctrl-C.
var errInterrupted = errors.New("interrupted")

// usageError is a command line the command cannot run.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef is a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// jobError is a job that ended other than done: the command ran, the
// job's input or the user (a cancel) decided its end.
type jobError struct {
	job *client.Job
	msg string
}

func (e *jobError) Error() string { return e.msg }

// exitCodeOf is the exit code of a command that returned err; the first
// kind in this order decides when err joins several (a batch's files).
func exitCodeOf(err error) int {
	var usage *usageError
	var problem *client.Problem
	var jobErr *jobError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errInterrupted), errors.Is(err, context.Canceled):
		return exitInterrupted
	case errors.As(err, &usage):
		return exitUsage
	case isNetworkError(err):
		return exitNetwork
	case errors.As(err, &problem) && problem.StatusCode >= 500:
		return exitServer
	case errors.As(err, &problem) && problem.StatusCode >= 400:
		return exitRefused
	case errors.As(err, &jobErr):
		return exitFailure
	case errors.Is(err, fs.ErrNotExist):
		return exitNoInput
	}
	return exitFailure
}

// isNetworkError reports whether err is a failure to reach the server or
// a connection that broke (not an answer of the server's).
func isNetworkError(err error) bool {
	// Not net.Error: a syscall.Errno is one, ENOENT of a missing file too.
	var urlErr *url.Error
	var opErr *net.OpError
	return errors.As(err, &urlErr) || errors.As(err, &opErr) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// cliProblem is the problem+json object --json prints on stdout when a
// command fails: the server's problem as it came, or one the CLI makes
// (type urn:docmill:cli:KIND, no status), with the exit code.
type cliProblem struct {
	Type      string              `json:"type"`
	Title     string              `json:"title"`
	Status    int                 `json:"status,omitempty"`
	Detail    string              `json:"detail"`
	Code      string              `json:"code"`
	RequestID string              `json:"request_id,omitempty"`
	JobID     string              `json:"job_id,omitempty"`
	Errors    []client.FieldError `json:"errors,omitempty"`
	ExitCode  int                 `json:"exit_code"`
}

// problemOf describes err, whose exit code is code, as a problem object.
func problemOf(err error, code int) cliProblem {
	var problem *client.Problem
	var jobErr *jobError
	if code != exitInterrupted && errors.As(err, &problem) {
		p := cliProblem{Type: problem.Type, Title: problem.Title, Status: problem.StatusCode, Detail: err.Error(),
			Code: string(problem.Code), RequestID: problem.RequestID, JobID: problem.JobID, Errors: problem.Fields, ExitCode: code}
		if p.Type == "" { // not docmill's answer (a proxy's 502 page): RFC 9457's default
			p.Type, p.Title = "about:blank", http.StatusText(problem.StatusCode)
		}
		if p.Code == "" {
			p.Code = map[bool]string{true: "server_error", false: "refused"}[code == exitServer]
		}
		return p
	}
	kind := map[int]string{exitUsage: "usage", exitNetwork: "network_error", exitServer: "server_error",
		exitNoInput: "no_input", exitInterrupted: "interrupted"}[code]
	p := cliProblem{Detail: err.Error(), ExitCode: code}
	if code == exitFailure && errors.As(err, &jobErr) {
		kind, p.JobID = "job_failed", jobErr.job.JobID
		if jobErr.job.Error != nil {
			p.Code = string(jobErr.job.Error.Code)
		}
	}
	if kind == "" {
		kind = "failed"
	}
	title := map[string]string{"usage": "Usage error", "network_error": "The server could not be reached",
		"server_error": "The server failed", "no_input": "No such file", "interrupted": "Interrupted",
		"job_failed": "The job did not succeed", "failed": "The command failed"}[kind]
	p.Type, p.Title = "urn:docmill:cli:"+kind, title
	if p.Code == "" {
		p.Code = kind
	}
	return p
}

// finish ends a run of the program: it prints err on stderr (and, when
// args ask for --json, its problem object on stdout) and returns the exit
// code. A command stopped by a signal exits 130 whatever its error says.
func finish(ctx context.Context, args []string, err error, stdout, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	code := exitCodeOf(err)
	if ctx.Err() != nil {
		code = exitInterrupted
	}
	// The one place that names the program: errors below carry no
	// "docmill:" of their own.
	fmt.Fprintln(stderr, "docmill:", err)
	if wantsJSON(args) {
		b, _ := json.Marshal(problemOf(err, code))
		fmt.Fprintln(stdout, string(b))
	}
	return code
}

// wantsJSON reports whether args hold --json (or -json) among the flags,
// before any "--".
func wantsJSON(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--json" || a == "-json" || strings.HasPrefix(a, "--json=t") || strings.HasPrefix(a, "-json=t") || a == "--json=1" {
			return true
		}
	}
	return false
}
