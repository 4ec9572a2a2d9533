package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/blob/s3test"
	"github.com/docmill/docmill/client"
)

// TestIdempotencyBeforeLimits: a replay of a known Idempotency-Key is
// answered with its job, as the job stands (200 done, 202 queued), before
// any rate limit, quota or in-flight check, and is charged to none of
// them; a different request with the key is 409 and is charged. On SQLite
// and on PostgreSQL.
func TestIdempotencyBeforeLimits(t *testing.T) {
	t.Parallel() // each subtest owns its server and its directory or schema
	for _, db := range []struct {
		name string
		dir  dataDirFunc
	}{{"sqlite", sqliteDir}, {"postgres", postgresDir}} {
		t.Run(db.name, func(t *testing.T) { t.Parallel(); testIdempotencyBeforeLimits(t, db.dir) })
	}
}

func testIdempotencyBeforeLimits(t *testing.T, newDir dataDirFunc) {
	ctx := context.Background()
	s := startServer(t, newDir(t))
	// One operation a month and three requests a minute.
	c := s.client(newKey(t, s.DataDir, "custom", "--ops", "1", "--rpm", "3", "--in-flight", "1"))
	pdf := func() []client.File { return []client.File{pdfFile("one-page.pdf", onePagePDF())} }
	opts := client.ProcessOptions{IdempotencyKey: "invoice-7", Params: map[string]string{"angle": "180"}}
	first, res, err := c.Process(ctx, "rotate-pdf", pdf(), opts)
	if err != nil || res.StatusCode != 200 || first.Status != "done" {
		t.Fatalf("first request: %+v %v", first, err)
	}
	// The quota is used up; replays are answered all the same, and spend
	// none of the rate limit.
	for i := range 4 {
		j, res, err := c.Process(ctx, "rotate-pdf", pdf(), opts)
		if err != nil || res.StatusCode != 200 || j.JobID != first.JobID || j.Status != "done" || j.Result == nil {
			t.Fatalf("replay %d: %+v %v, want job %s done", i, j, err, first.JobID)
		}
		if res.Header.Get("X-RateLimit-Remaining") != "" {
			t.Errorf("replay %d was rate-limited: %v", i, res.Header)
		}
	}
	conflict := client.ProcessOptions{IdempotencyKey: "invoice-7", Params: map[string]string{"angle": "90"}}
	_, _, err = c.Process(ctx, "rotate-pdf", pdf(), conflict) // request 2 of 3
	apiError(t, err, 409, "idempotency_conflict")
	_, _, err = c.Process(ctx, "rotate-pdf", pdf(), client.ProcessOptions{}) // request 3 of 3
	apiError(t, err, 429, "quota_exceeded")
	_, _, err = c.Process(ctx, "rotate-pdf", pdf(), client.ProcessOptions{})
	apiError(t, err, 429, "rate_limited")
	if used := accountUsage(ctx, t, c).OperationsUsed; used != 1 {
		t.Fatalf("charged %v operations, want 1", used)
	}

	// An API-only node works no jobs: a replay of a queued job is 202 with
	// the job, although it is the account's one job in flight.
	api := startServer(t, newDir(t), "--role", "api")
	c = api.client(newKey(t, api.DataDir, "custom", "--in-flight", "1"))
	async := client.ProcessOptions{IdempotencyKey: "batch-1", Prefer: "respond-async"}
	queued, _, err := c.Process(ctx, "rotate-pdf", pdf(), async)
	if err != nil || queued.Status != "queued" {
		t.Fatalf("first request: %+v %v", queued, err)
	}
	j, res, err := c.Process(ctx, "rotate-pdf", pdf(), async)
	if err != nil || res.StatusCode != 202 || j.JobID != queued.JobID || j.Status != "queued" ||
		res.Header.Get("Location") != "/v1/jobs/"+queued.JobID || res.Header.Get("Retry-After") == "" {
		t.Fatalf("replay of a queued job: %+v %+v %v", j, res, err)
	}
	_, _, err = c.Process(ctx, "rotate-pdf", pdf(), client.ProcessOptions{Prefer: "respond-async"})
	apiError(t, err, 429, "rate_limited") // the one job in flight
}

// TestOutageDuringUpload: a dependency that goes away while a process
// call uploads its file makes the call 503 service_unavailable with
// Retry-After, never a 500, and leaves no input behind: the bucket (S3,
// behind a TCP proxy) failing the upload itself, and PostgreSQL (behind
// another) failing the job's insert after the upload. Each outage starts
// once the server has admitted the request and is reading its body.
func TestOutageDuringUpload(t *testing.T) {
	t.Parallel() // each subtest owns its server, its directory or schema and its proxy
	pdf := onePagePDF()

	t.Run("bucket", func(t *testing.T) {
		t.Parallel()
		s3 := s3test.Start(t)
		ep, err := url.Parse(s3.Endpoint)
		if err != nil {
			t.Fatal(err)
		}
		p := newProxy(t, ep.Host)
		bucket := strings.Replace(s3.URL("docmill"), url.QueryEscape(s3.Endpoint), url.QueryEscape("http://"+p.addr), 1)
		if !strings.Contains(bucket, url.QueryEscape(p.addr)) {
			t.Fatalf("bucket URL %q does not name the endpoint %s", bucket, s3.Endpoint)
		}
		// A child process, given the bucket's credentials in its own
		// environment.
		s := startChildEnv(t, s3.Env(), t.TempDir(), "--blob-url", bucket)
		defer p.up(t) // back before the server stops, for a quick shutdown
		wantOutage(t, uploadDuring(t, s, "rotate-pdf", pdf, p.down))
	})

	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dir, p := proxiedPostgresDir(t)
		s := startServer(t, dir)
		defer p.up(t) // back before the server stops, for a quick shutdown
		wantOutage(t, uploadDuring(t, s, "rotate-pdf", pdf, p.down))
		assertNoInputs(t, dir)
	})
}

// uploadDuring sends file to tool on s with its dev key and runs outage
// once the server reads the body, before the body is sent: with "Expect:
// 100-continue" the client sends no body until the handler first reads it,
// after authentication and admission.
func uploadDuring(t *testing.T, s *testServer, tool string, file []byte, outage func()) *http.Response {
	t.Helper()
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "in.pdf")
	_, _ = fw.Write(file)
	_ = mw.Close()
	body := &gatedBody{r: &form, first: outage}
	req, err := http.NewRequest(http.MethodPost, s.URL+"/v1/"+tool+"/process", body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(form.Len())
	req.Header.Set("Authorization", "Bearer "+s.DevKey)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Expect", "100-continue")
	hc := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}, Timeout: 2 * time.Minute}
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	if !body.started {
		t.Fatalf("answered %d before the body was read", res.StatusCode)
	}
	return res
}

// gatedBody runs first before its first byte is read.
type gatedBody struct {
	r       io.Reader
	first   func()
	once    sync.Once
	started bool
}

func (b *gatedBody) Read(p []byte) (int, error) {
	b.once.Do(func() { b.started = true; b.first() })
	return b.r.Read(p)
}

// wantOutage asserts res is 503 service_unavailable with Retry-After, as
// problem+json that names no internal address.
func wantOutage(t *testing.T, res *http.Response) {
	t.Helper()
	b, _ := io.ReadAll(res.Body)
	var p struct {
		Code      string `json:"code"`
		Detail    string `json:"detail"`
		RequestID string `json:"request_id"`
	}
	_ = json.Unmarshal(b, &p)
	if res.StatusCode != 503 || p.Code != "service_unavailable" || res.Header.Get("Retry-After") != "5" ||
		res.Header.Get("Content-Type") != "application/problem+json" || p.RequestID == "" {
		t.Fatalf("%d %v %s, want 503 service_unavailable with Retry-After", res.StatusCode, res.Header, b)
	}
	if strings.Contains(p.Detail, "127.0.0.1") {
		t.Errorf("detail names an address: %s", p.Detail)
	}
}
