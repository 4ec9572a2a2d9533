package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
)

// TestExitCodes: each kind of failure maps to its documented exit code
// (docs/cli.md), wrapped or not; a batch's joined failures take the code
// of the first kind in exitCodeOf's order.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	_, missing := os.Open("/nonexistent/in.pdf")
	failed := &jobError{job: &client.Job{JobID: "job_1", Status: "failed"}, msg: "job job_1 failed"}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, 0},
		{"other", errors.New("disk full"), 1},
		{"job failed", fmt.Errorf("a.pdf: %w", failed), 1},
		{"usage", usagef("want one job id"), 64},
		{"bad flag", (&environment{getenv: func(string) string { return "" }, stdout: io.Discard}).parse(newFlags("x", "x"), []string{"--nope"}), 64},
		{"400", &client.Problem{StatusCode: 400, Code: "invalid_parameter"}, 65},
		{"401", fmt.Errorf("a.pdf: %w", &client.Problem{StatusCode: 401}), 65},
		{"429 quota", &client.Problem{StatusCode: 429, Code: "quota_exceeded"}, 65},
		{"500", &client.Problem{StatusCode: 500, Code: "internal"}, 69},
		{"502", &client.Problem{StatusCode: 502}, 69},
		{"503", &client.Problem{StatusCode: 503}, 69},
		{"missing file", missing, 66},
		{"refused connection", &url.Error{Op: "Post", URL: "http://127.0.0.1:1", Err: syscall.ECONNREFUSED}, 75},
		{"cut answer", fmt.Errorf("decode: %w", io.ErrUnexpectedEOF), 75},
		{"interrupted", fmt.Errorf("a.pdf: %w during the upload", errInterrupted), 130},
		{"canceled context", &url.Error{Op: "Get", URL: "http://x", Err: context.Canceled}, 130},
		{"batch", &batchError{failed: 2, total: 3, errs: errors.Join(failed, &client.Problem{StatusCode: 503})}, 69},
		{"batch interrupted", &batchError{failed: 2, total: 3, errs: errors.Join(&client.Problem{StatusCode: 400}, errInterrupted)}, 130},
	} {
		if got := exitCodeOf(tc.err); got != tc.want {
			t.Errorf("%s: exit code %d, want %d (%v)", tc.name, got, tc.want, tc.err)
		}
	}
}

// TestFailureJSON: with --json a failure is one problem object on stdout:
// the server's problem with its status, code and request id, or one the
// CLI makes; always with the exit code. Without --json stdout stays empty.
func TestFailureJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		err  error
		want cliProblem
	}{
		{[]string{"process", "--json", "rotate-pdf"}, fmt.Errorf("a.pdf: %w", &client.Problem{StatusCode: 400, Type: "https://docmill.dev/errors/invalid_parameter",
			Title: "Invalid parameter", Code: "invalid_parameter", RequestID: "req_1", Fields: []client.FieldError{{Field: "angle"}}}),
			cliProblem{Type: "https://docmill.dev/errors/invalid_parameter", Title: "Invalid parameter", Status: 400, Code: "invalid_parameter", RequestID: "req_1", ExitCode: 65}},
		{[]string{"jobs", "wait", "job_1", "--json"}, &jobError{job: &client.Job{JobID: "job_1", Error: &client.JobError{Code: "invalid_document"}}, msg: "job job_1 failed"},
			cliProblem{Type: "urn:docmill:cli:job_failed", Title: "The job did not succeed", Code: "invalid_document", JobID: "job_1", ExitCode: 1}},
		{[]string{"jobs", "-json", "get", "x"}, &url.Error{Op: "Get", URL: "http://x", Err: syscall.ECONNREFUSED},
			cliProblem{Type: "urn:docmill:cli:network_error", Title: "The server could not be reached", Code: "network_error", ExitCode: 75}},
	} {
		var out, errOut bytes.Buffer
		code := finish(context.Background(), tc.args, tc.err, &out, &errOut)
		var got cliProblem
		if err := json.Unmarshal(out.Bytes(), &got); err != nil || strings.Count(out.String(), "\n") != 1 {
			t.Fatalf("%v: stdout %q: %v", tc.args, out.String(), err)
		}
		if got.Detail != tc.err.Error() || !strings.HasPrefix(errOut.String(), "docmill: ") || code != tc.want.ExitCode {
			t.Errorf("%v: detail %q, stderr %q, code %d", tc.args, got.Detail, errOut.String(), code)
		}
		got.Detail, got.Errors = "", nil
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tc.want) {
			t.Errorf("%v: problem %+v, want %+v", tc.args, got, tc.want)
		}
	}
	var out bytes.Buffer
	if finish(context.Background(), []string{"jobs", "get", "x", "--", "--json"}, errors.New("x"), &out, io.Discard) != 1 || out.Len() != 0 {
		t.Errorf("without --json (after --): %q", out.String())
	}
}

// TestLogDurationsInMs: a time.Duration attribute is logged as KEY_ms, a
// number of milliseconds, in JSON and in text.
func TestLogDurationsInMs(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"json", "text"} {
		var buf bytes.Buffer
		log, err := (&opsFlags{logLevel: "info", logFormat: format}).newLogger(&buf)
		if err != nil {
			t.Fatal(err)
		}
		log.Info("x", "wait", 1500*time.Millisecond, slog.Duration("took_ms", 2250*time.Microsecond), "n", 3)
		line := buf.String()
		want := []string{`"wait_ms":1500`, `"took_ms":2.25`, `"n":3`}
		if format == "text" {
			want = []string{"wait_ms=1500", "took_ms=2.25", "n=3"}
		}
		for _, w := range want {
			if !strings.Contains(line, w) {
				t.Errorf("%s: %q lacks %s", format, line, w)
			}
		}
	}
}

// TestOperatorNeedsDatabase: an accounts command on a data directory
// without a database refuses (exit 66) and creates nothing; accounts
// create makes one and says where; DOCMILL_DATA_DIR finds it as
// --data-dir does, as it does for serve.
func TestOperatorNeedsDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	noenv := func(string) string { return "" }
	err := run(ctx, []string{"accounts", "list", "--data-dir", dir}, noenv, nil, &out, &errOut)
	if exitCodeOf(err) != exitNoInput || !strings.Contains(fmt.Sprint(err), "DOCMILL_DATA_DIR") {
		t.Fatalf("accounts list on an empty directory: %v (exit %d)", err, exitCodeOf(err))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("accounts list left %v in the empty directory", entries)
	}
	err = run(ctx, []string{"accounts", "create", "--plan", "pro", "--name", "first", "--data-dir", dir}, noenv, nil, &out, &errOut)
	if err != nil || !strings.Contains(errOut.String(), "creating one") {
		t.Fatalf("accounts create on an empty directory: %v\n%s", err, errOut.String())
	}
	out.Reset()
	env := func(k string) string { return map[string]string{"DOCMILL_DATA_DIR": dir}[k] }
	if err := run(ctx, []string{"accounts", "list"}, env, nil, &out, io.Discard); err != nil || !strings.Contains(out.String(), "first") {
		t.Errorf("accounts list with DOCMILL_DATA_DIR: %v\n%s", err, out.String())
	}
}
