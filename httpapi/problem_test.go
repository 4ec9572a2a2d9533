package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/docmill/docmill"
)

// declaredCodes parses ../error.go and returns the value of every constant
// of type Code, so that a code added there without a status fails here.
func declaredCodes(t *testing.T) map[string]docmill.Code {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "../error.go", nil, 0)
	if err != nil {
		t.Fatalf("parse error.go: %v", err)
	}
	codes := map[string]docmill.Code{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "Code" {
				continue
			}
			for i, name := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("%s: want a string literal", name.Name)
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				codes[name.Name] = docmill.Code(v)
			}
		}
	}
	if len(codes) < 10 {
		t.Fatalf("found only %d Code constants in error.go; is the parser still right?", len(codes))
	}
	return codes
}

func TestEveryCodeHasAStatus(t *testing.T) {
	declared := map[docmill.Code]bool{}
	for name, code := range declaredCodes(t) {
		declared[code] = true
		if _, ok := statusOf[code]; !ok {
			t.Errorf("docmill.%s (%q) has no entry in statusOf", name, code)
		}
	}
	for code := range statusOf {
		if !declared[code] {
			t.Errorf("statusOf has %q, which error.go does not declare", code)
		}
	}
}

func TestStatusOf(t *testing.T) {
	want := map[docmill.Code]int{
		docmill.CodeInvalidRequest:      400,
		docmill.CodeMissingFile:         400,
		docmill.CodeTooManyFiles:        400,
		docmill.CodeUnsupportedFileType: 400,
		docmill.CodeFileTooLarge:        400,
		docmill.CodeInvalidParameter:    400,
		docmill.CodeInvalidDocument:     400,
		docmill.CodeUnknownTool:         404,
		docmill.CodeUnauthorized:        401,
		docmill.CodeForbidden:           403,
		docmill.CodeNotFound:            404,
		docmill.CodeMethodNotAllowed:    405,
		docmill.CodeUploadTooSlow:       408,
		docmill.CodeIdempotencyConflict: 409,
		docmill.CodeConflict:            409,
		docmill.CodeGone:                410,
		docmill.CodeRateLimited:         429,
		docmill.CodeQuotaExceeded:       429,
		docmill.CodeInternal:            500,
		docmill.CodeWorkerLost:          500,
		docmill.CodeEngineUnavailable:   503,
		docmill.CodeProcessingTimeout:   422,
		docmill.CodeServiceUnavailable:  503,
		docmill.CodeRangeNotSatisfiable: 416,
		docmill.CodePreconditionFailed:  412,
		docmill.CodeInsufficientStorage: 507,
		docmill.CodeFetchFailed:         400,

		docmill.CodeUnprocessableDocument: 422,
		docmill.CodeNoText:                422,
		docmill.CodeNoTables:              422,
		docmill.CodeAccountSuspended:      403,
	}
	if len(want) != len(statusOf) {
		t.Errorf("statusOf has %d entries, this test expects %d: update the test", len(statusOf), len(want))
	}
	for code, status := range want {
		if got := StatusOf(code); got != status {
			t.Errorf("StatusOf(%q) = %d, want %d", code, got, status)
		}
	}
	for _, code := range []docmill.Code{"", "no_such_code", "INTERNAL"} {
		if got := StatusOf(code); got != 500 {
			t.Errorf("StatusOf(%q) = %d, want 500", code, got)
		}
	}
}

// recordError answers a request (method, target) of id req_test with err,
// as writeError does on a server that logs to the returned buffer.
func recordError(method, target string, err error) (*httptest.ResponseRecorder, *bytes.Buffer) {
	var logs bytes.Buffer
	s := NewServer(Config{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	r := httptest.NewRequest(method, target, nil)
	r = r.WithContext(context.WithValue(r.Context(), ctxRequestID, "req_test"))
	w := httptest.NewRecorder()
	s.writeError(w, r, err)
	return w, &logs
}

func TestWriteError(t *testing.T) {
	const secret = "/var/secret/x"
	limited := docmill.Errorf(docmill.CodeRateLimited, "Slow down.")
	limited.RetryAfter = 30
	quota := docmill.Errorf(docmill.CodeQuotaExceeded, "Quota used up.")
	quota.RetryAfter = 86400

	tests := []struct {
		name       string
		err        error
		status     int
		code       docmill.Code
		detail     string // "" means: the error's own message, not checked
		retryAfter string
		fields     int
	}{
		{name: "client error", err: docmill.Errorf(docmill.CodeFileTooLarge, "Too big."), status: 400, code: "file_too_large", detail: "Too big."},
		{name: "field errors", err: docmill.ParamError("quality", "must be between 1 and 100"), status: 400, code: "invalid_parameter", fields: 1},
		{name: "wrapped", err: fmt.Errorf("lookup: %w", docmill.Errorf(docmill.CodeNotFound, "No such job.")), status: 404, code: "not_found", detail: "No such job."},
		{name: "unauthorized", err: docmill.Errorf(docmill.CodeUnauthorized, "Unknown API key."), status: 401, code: "unauthorized"},
		{name: "rate limited", err: limited, status: 429, code: "rate_limited", retryAfter: "30"},
		{name: "quota", err: quota, status: 429, code: "quota_exceeded", retryAfter: "86400"},
		{name: "internal", err: docmill.Internal(errors.New("open " + secret + ": permission denied")), status: 500, code: "internal"},
		{name: "plain error", err: errors.New("stat " + secret + ": no such file"), status: 500, code: "internal"},
		{name: "engine", err: docmill.Errorf(docmill.CodeEngineUnavailable, "No ghostscript."), status: 503, code: "engine_unavailable"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, logs := recordError("GET", "/v1/jobs/job_x", tc.err)

			if w.Code != tc.status {
				t.Errorf("status = %d, want %d", w.Code, tc.status)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type = %q", ct)
			}
			if got := w.Header().Get("Retry-After"); got != tc.retryAfter {
				t.Errorf("Retry-After = %q, want %q", got, tc.retryAfter)
			}
			wwwAuth := w.Header().Get("WWW-Authenticate")
			if (tc.status == 401) != strings.HasPrefix(wwwAuth, "Bearer") {
				t.Errorf("WWW-Authenticate = %q with status %d", wwwAuth, tc.status)
			}

			body := w.Body.String()
			var p map[string]any
			if err := json.Unmarshal([]byte(body), &p); err != nil {
				t.Fatalf("body is not JSON: %v\n%s", err, body)
			}
			want := map[string]any{
				"type":       "https://docmill.dev/errors/" + string(tc.code),
				"title":      tc.code.Title(),
				"status":     float64(tc.status),
				"code":       string(tc.code),
				"request_id": "req_test",
			}
			if tc.detail != "" {
				want["detail"] = tc.detail
			}
			for k, v := range want {
				if p[k] != v {
					t.Errorf("%s = %#v, want %#v", k, p[k], v)
				}
			}
			if d, _ := p["detail"].(string); d == "" {
				t.Error("detail is empty")
			}
			if _, ok := p["job_id"]; ok {
				t.Error("job_id present in a plain error")
			}
			if errs, _ := p["errors"].([]any); len(errs) != tc.fields {
				t.Errorf("errors = %v, want %d entries", p["errors"], tc.fields)
			}
			if tc.code == docmill.CodeInternal {
				if strings.Contains(body, secret) || strings.Contains(body, "permission") {
					t.Errorf("internal cause leaked into the body: %s", body)
				}
				if p["detail"] != docmill.Internal(nil).Message {
					t.Errorf("internal detail = %q", p["detail"])
				}
				if !strings.Contains(logs.String(), secret) || !strings.Contains(logs.String(), "req_test") {
					t.Errorf("internal cause not logged with the request id: %s", logs.String())
				}
			}
		})
	}
}

func TestWriteJobErrorNamesJob(t *testing.T) {
	s := NewServer(Config{Logger: slog.New(slog.DiscardHandler)})
	w := httptest.NewRecorder()
	s.writeJobError(w, httptest.NewRequest("POST", "/v1/x/process", nil), docmill.Errorf(docmill.CodeInvalidDocument, "Damaged."), "job_42")
	var p docmill.Problem
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if w.Code != 400 || p.JobID != "job_42" || p.Code != docmill.CodeInvalidDocument {
		t.Errorf("got %d %+v", w.Code, p)
	}
}

// Unknown routes and wrong methods answer problem+json through the full
// middleware chain, with the X-Request-Id in the body.
func TestMuxProblems(t *testing.T) {
	s := NewServer(Config{Logger: slog.New(slog.DiscardHandler)})
	for _, tc := range []struct {
		method, path string
		status       int
		code         docmill.Code
	}{
		{"GET", "/no/such/route", 404, docmill.CodeNotFound},
		{"POST", "/files/job_x/a.pdf", 405, docmill.CodeMethodNotAllowed},
		{"PUT", "/v1/jobs/job_x", 405, docmill.CodeMethodNotAllowed},
	} {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		var p docmill.Problem
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.path, err)
		}
		id := w.Header().Get("X-Request-Id")
		if w.Code != tc.status || p.Code != tc.code || !strings.HasPrefix(id, "req_") || p.RequestID != id {
			t.Errorf("%s %s: %d %+v (X-Request-Id %q)", tc.method, tc.path, w.Code, p, id)
		}
		if tc.status == http.StatusMethodNotAllowed && w.Header().Get("Allow") == "" {
			t.Errorf("%s %s: no Allow header", tc.method, tc.path)
		}
	}
}

// TestOpenAPIErrorCodes: the OpenAPI document's Problem schema names every
// code of the status table, insufficient_storage included.
func TestOpenAPIErrorCodes(t *testing.T) {
	s := NewServer(Config{Registry: docmill.NewRegistry(), Logger: slog.New(slog.DiscardHandler)})
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties struct {
					Code struct {
						Enum []string `json:"enum"`
					} `json:"code"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	get(t, s, "/v1/openapi.json", &doc)
	codes := doc.Components.Schemas["Problem"].Properties.Code.Enum
	if len(codes) != len(statusOf) || !slices.Contains(codes, string(docmill.CodeInsufficientStorage)) {
		t.Errorf("Problem.code enum %v", codes)
	}
}
