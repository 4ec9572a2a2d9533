package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/docmill/docmill/tools/toolstest"
)

func init() {
	// Results and pages: bodies the download and web operations declare
	// as */* and text/html, read as bytes.
	openapi3filter.RegisterBodyDecoder("application/pdf", openapi3filter.FileBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}

// apiChecker sends requests to a server and validates each answer
// (status, headers, body) against the server's own OpenAPI document.
type apiChecker struct {
	t   *testing.T
	s   *testServer
	doc *openapi3.T
	// covered holds the operationIds of the answers checked.
	covered map[string]bool
}

func newAPIChecker(t *testing.T, s *testServer) *apiChecker {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openAPIDocument(t, s))
	if err != nil {
		t.Fatalf("loading the OpenAPI document: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the OpenAPI document is not valid: %v", err)
	}
	return &apiChecker{t: t, s: s, doc: doc, covered: map[string]bool{}}
}

// call sends method url (a path on the server, or a full URL) with key
// (none if empty), header and body, wants status, and validates the
// answer against the operation of the document's path tmpl. It returns
// the answer's header and body.
func (c *apiChecker) call(key, method, url, tmpl string, header http.Header, body []byte, status int) (http.Header, []byte) {
	c.t.Helper()
	if strings.HasPrefix(url, "/") {
		url = c.s.URL + url
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, b := send(c.t, req)
	what := fmt.Sprintf("%s %s", method, strings.TrimPrefix(url, c.s.URL))
	if resp.StatusCode != status {
		c.t.Fatalf("%s: %d, want %d: %s", what, resp.StatusCode, status, b)
	}
	item := c.doc.Paths.Value(tmpl)
	if item == nil {
		c.t.Fatalf("%s: no path %s in the document", what, tmpl)
	}
	op := item.GetOperation(method)
	if op == nil {
		c.t.Fatalf("%s: no %s operation on %s in the document", what, method, tmpl)
	}
	c.covered[op.OperationID] = true
	if op.Responses.Status(status) == nil {
		c.t.Errorf("%s (%s): status %d is not declared (only default)", what, op.OperationID, status)
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req,
			Route:   &routers.Route{Spec: c.doc, Path: tmpl, PathItem: item, Method: method, Operation: op},
		},
		Status:  resp.StatusCode,
		Header:  resp.Header,
		Body:    io.NopCloser(bytes.NewReader(b)),
		Options: &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		c.t.Errorf("%s (%s): the answer does not match the document: %v\nheaders %v\nbody %.2000s", what, op.OperationID, err, resp.Header, b)
	}
	c.checkMeta(what, b)
	return resp.Header, b
}

// checkMeta holds a job record's meta to the declaration of its tool:
// every figure it has must be a property of the tool's meta schema (the
// document admits more, for figures that later versions add, but the
// tools of this version must declare all of theirs).
func (c *apiChecker) checkMeta(what string, body []byte) {
	c.t.Helper()
	var job struct {
		Tool string         `json:"tool"`
		Meta map[string]any `json:"meta"`
	}
	if json.Unmarshal(body, &job) != nil || job.Tool == "" || job.Meta == nil {
		return
	}
	name := ""
	for _, p := range strings.Split(job.Tool, "-") {
		name += strings.ToUpper(p[:1]) + p[1:]
	}
	sc := c.doc.Components.Schemas[name+"Meta"]
	if sc == nil || sc.Value == nil {
		c.t.Errorf("%s: no schema %sMeta for the meta of a %s job", what, name, job.Tool)
		return
	}
	for k := range job.Meta {
		if _, ok := sc.Value.Properties[k]; !ok {
			c.t.Errorf("%s: meta %q of a %s job is not declared in %sMeta", what, k, job.Tool, name)
		}
	}
}

// callJSON is call with a JSON body (nil: none).
func (c *apiChecker) callJSON(key, method, url, tmpl string, body any, status int) map[string]any {
	c.t.Helper()
	var b []byte
	h := http.Header{}
	if body != nil {
		b, _ = json.Marshal(body)
		h.Set("Content-Type", "application/json")
	}
	_, out := c.call(key, method, url, tmpl, h, b, status)
	var m map[string]any
	if len(out) > 0 {
		if err := json.Unmarshal(out, &m); err != nil {
			c.t.Fatalf("%s %s: %v: %s", method, url, err, out)
		}
	}
	return m
}

// multipartForm is a process call's body: a file named name of content,
// and fields.
func multipartForm(t *testing.T, name string, content []byte, fields map[string]string) (http.Header, []byte) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	if content != nil {
		fw, err := mw.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = fw.Write(content)
	}
	_ = mw.Close()
	return http.Header{"Content-Type": {mw.FormDataContentType()}}, b.Bytes()
}

// TestOpenAPIResponses drives a server through every endpoint and checks
// each answer (status, headers, body) against the server's own OpenAPI
// document with kin-openapi: the catalogue, limits, account, sign-up,
// processing (200, 202, 400, 401, 409, 429), jobs (get, list, delete),
// webhooks (each operation), downloads (200, 206, 403), health,
// readiness, metrics, the document and the web page. It also checks that
// every operation but the other tools' process calls was exercised, and
// that every figure of a job's meta is declared by its tool.
func TestOpenAPIResponses(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "--signup", "open", "--allow-private-urls")
	c := newAPIChecker(t, s)
	key := s.DevKey
	pdf := toolstest.TextPDF("one", "two")

	// The catalogue, the limits, the document, operations.
	c.callJSON("", "GET", "/v1/tools", "/v1/tools", nil, 200)
	c.callJSON("", "GET", "/v1/tools/rotate-pdf", "/v1/tools/{tool}", nil, 200)
	c.callJSON("", "GET", "/v1/tools/nope", "/v1/tools/{tool}", nil, 404)
	c.callJSON("", "GET", "/v1/limits", "/v1/limits", nil, 200)
	c.callJSON("", "GET", "/v1/openapi.json", "/v1/openapi.json", nil, 200)
	c.callJSON("", "GET", "/healthz", "/healthz", nil, 200)
	c.callJSON("", "GET", "/readyz", "/readyz", nil, 200)
	c.call("", "GET", "/metrics", "/metrics", nil, nil, 200)
	c.call("", "GET", "/", "/", nil, nil, 200)
	c.call("", "GET", "/docs", "/docs", nil, nil, 200)

	// The account and sign-up.
	c.callJSON(key, "GET", "/v1/account", "/v1/account", nil, 200)
	c.callJSON("", "GET", "/v1/account", "/v1/account", nil, 401)
	c.callJSON("dm_live_00000000000000000000000000000000", "GET", "/v1/account", "/v1/account", nil, 401)
	c.callJSON("", "POST", "/v1/signup", "/v1/signup", map[string]string{"email": "openapi@example.com"}, 202)
	c.callJSON("", "POST", "/v1/signup", "/v1/signup", map[string]string{"email": "not an address"}, 400)
	c.callJSON("", "POST", "/v1/login", "/v1/login", map[string]string{"email": "openapi@example.com"}, 202)
	c.callJSON("", "POST", "/v1/sessions", "/v1/sessions", map[string]string{"token": "used-or-unknown"}, 410)
	c.callJSON("", "GET", "/v1/session", "/v1/session", nil, 401)
	c.call("", "DELETE", "/v1/session", "/v1/session", nil, nil, 204)
	free := newKey(t, s.DataDir, "free")
	c.callJSON("", "GET", "/v1/config", "/v1/config", nil, 200)

	// Keys: add one, list, revoke it; an unknown prefix, a bad body.
	added := c.callJSON(key, "POST", "/v1/keys", "/v1/keys", map[string]string{"name": "second"}, 201)
	c.callJSON(key, "POST", "/v1/keys", "/v1/keys", map[string]any{"name": 5}, 400)
	c.callJSON(key, "GET", "/v1/keys", "/v1/keys", nil, 200)
	addedPrefix, _ := added["prefix"].(string)
	c.callJSON(key, "PATCH", "/v1/keys/"+addedPrefix, "/v1/keys/{prefix}", map[string]string{"name": "renamed"}, 200)
	c.callJSON(key, "PATCH", "/v1/keys/"+addedPrefix, "/v1/keys/{prefix}", map[string]string{"name": ""}, 400)
	c.callJSON(key, "PATCH", "/v1/keys/dm_live_zzzz", "/v1/keys/{prefix}", map[string]string{"name": "x"}, 404)
	c.callJSON(key, "DELETE", "/v1/keys/"+addedPrefix, "/v1/keys/{prefix}", nil, 200)
	c.callJSON(key, "DELETE", "/v1/keys/dm_live_zzzz", "/v1/keys/{prefix}", nil, 404)

	// Processing: done within the budget, accepted, refused.
	h, body := multipartForm(t, "doc.pdf", pdf, map[string]string{"angle": "180"})
	_, b := c.call(key, "POST", "/v1/rotate-pdf/process", "/v1/rotate-pdf/process", h, body, 200)
	var done struct {
		JobID  string `json:"job_id"`
		Result struct {
			URL string `json:"url"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &done); err != nil || done.Result.URL == "" {
		t.Fatalf("rotate-pdf: %v %s", err, b)
	}
	h, body = multipartForm(t, "doc.pdf", pdf, nil)
	h.Set("Prefer", "respond-async")
	h.Set("Idempotency-Key", "openapi-1")
	hdr, b := c.call(key, "POST", "/v1/rotate-pdf/process", "/v1/rotate-pdf/process", h, body, 202)
	var accepted struct {
		JobID string `json:"job_id"`
	}
	_ = json.Unmarshal(b, &accepted)
	if hdr.Get("Location") != "/v1/jobs/"+accepted.JobID {
		t.Errorf("202 Location %q for %s", hdr.Get("Location"), accepted.JobID)
	}
	h, body = multipartForm(t, "doc.pdf", toolstest.TextPDF("other"), nil)
	h.Set("Idempotency-Key", "openapi-1")
	c.call(key, "POST", "/v1/rotate-pdf/process", "/v1/rotate-pdf/process", h, body, 409)
	h, body = multipartForm(t, "doc.pdf", pdf, map[string]string{"angle": "45"})
	c.call(key, "POST", "/v1/rotate-pdf/process", "/v1/rotate-pdf/process", h, body, 400)
	h, body = multipartForm(t, "doc.pdf", pdf, nil)
	c.call("", "POST", "/v1/rotate-pdf/process", "/v1/rotate-pdf/process", h, body, 401)
	// A Free key's process calls are limited to 20 a minute: the 21st is
	// 429 with Retry-After (the refused ones are not charged).
	for i := range 20 {
		h, body = multipartForm(t, "doc.pdf", pdf, map[string]string{"angle": "45"})
		if hdr, _ := c.call(free, "POST", "/v1/rotate-pdf/process", "/v1/rotate-pdf/process", h, body, 400); hdr.Get("X-RateLimit-Remaining") != fmt.Sprint(19-i) {
			t.Errorf("call %d: X-RateLimit-Remaining %q", i+1, hdr.Get("X-RateLimit-Remaining"))
		}
	}
	h, body = multipartForm(t, "doc.pdf", pdf, nil)
	c.call(free, "POST", "/v1/rotate-pdf/process", "/v1/rotate-pdf/process", h, body, 429)

	// Jobs.
	c.callJSON(key, "GET", "/v1/jobs/"+done.JobID, "/v1/jobs/{job_id}", nil, 200)
	c.callJSON(key, "GET", "/v1/jobs/"+accepted.JobID+"?wait=20", "/v1/jobs/{job_id}", nil, 200)
	c.callJSON(key, "GET", "/v1/jobs/"+done.JobID+"?wait=x", "/v1/jobs/{job_id}", nil, 400)
	c.callJSON(key, "GET", "/v1/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaaaa", "/v1/jobs/{job_id}", nil, 404)
	c.callJSON(free, "GET", "/v1/jobs/"+done.JobID, "/v1/jobs/{job_id}", nil, 404)
	c.callJSON(key, "GET", "/v1/jobs?limit=1", "/v1/jobs", nil, 200)
	c.callJSON(key, "GET", "/v1/jobs?limit=0", "/v1/jobs", nil, 400)

	// Downloads: whole, in part, with a bad signature.
	c.call("", "GET", done.Result.URL, "/files/{job_id}/{filename}", nil, nil, 200)
	c.call("", "GET", done.Result.URL, "/files/{job_id}/{filename}", http.Header{"Range": {"bytes=0-9"}}, nil, 206)
	c.call("", "GET", strings.Replace(done.Result.URL, "signature=", "signature=x", 1), "/files/{job_id}/{filename}", nil, nil, 403)

	c.callJSON(key, "DELETE", "/v1/jobs/"+done.JobID, "/v1/jobs/{job_id}", nil, 200)
	c.callJSON(key, "DELETE", "/v1/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaaaa", "/v1/jobs/{job_id}", nil, 404)

	// Webhooks: every operation (a loopback URL, as --allow-private-urls
	// lets it be; nothing is delivered, as no job of this key ends after).
	wh := c.callJSON(key, "POST", "/v1/webhooks", "/v1/webhooks", map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"job.done"}}, 201)
	c.callJSON(key, "POST", "/v1/webhooks", "/v1/webhooks", map[string]any{"url": ""}, 400)
	c.callJSON(free, "POST", "/v1/webhooks", "/v1/webhooks", map[string]any{"url": "http://127.0.0.1:9/a"}, 201)
	c.callJSON(free, "POST", "/v1/webhooks", "/v1/webhooks", map[string]any{"url": "http://127.0.0.1:9/b"}, 409)
	id, _ := wh["id"].(string)
	one := "/v1/webhooks/" + id
	c.callJSON(key, "GET", "/v1/webhooks", "/v1/webhooks", nil, 200)
	c.callJSON(key, "GET", one, "/v1/webhooks/{webhook_id}", nil, 200)
	c.callJSON(key, "POST", one+"/rotate-secret", "/v1/webhooks/{webhook_id}/rotate-secret", nil, 200)
	c.callJSON(key, "POST", one+"/enable", "/v1/webhooks/{webhook_id}/enable", nil, 200)
	c.callJSON(key, "GET", one+"/deliveries", "/v1/webhooks/{webhook_id}/deliveries", nil, 200)
	c.callJSON(key, "DELETE", one, "/v1/webhooks/{webhook_id}", nil, 204)
	c.callJSON(key, "GET", one, "/v1/webhooks/{webhook_id}", nil, 404)

	// Every operation was exercised, but the process calls of the other
	// tools (rotate-pdf stands for them: they share their answers).
	var missed []string
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			if !c.covered[op.OperationID] && !(strings.HasSuffix(path, "/process") && path != "/v1/rotate-pdf/process") {
				missed = append(missed, method+" "+path+" ("+op.OperationID+")")
			}
		}
	}
	slices.Sort(missed)
	if len(missed) > 0 {
		t.Errorf("operations not exercised: %v", missed)
	}
}
