package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
	"github.com/docmill/docmill/jobs"
	"github.com/docmill/docmill/ratelimit"
	"github.com/docmill/docmill/store/sqlite"
)

// procAPI is a Server on a real SQLite store and a local bucket (or the
// test's own blob store), without a queue: its jobs stay queued unless the
// test finishes them through the store, so requests ask respond-async.
type procAPI struct {
	s     *Server
	st    *sqlite.Store
	blobs string // the local bucket's directory
}

// procTool is a PDF tool with one integer param, angle (default 90).
func procTool(slug string) *docmill.Tool {
	return &docmill.Tool{
		Slug: slug, Title: slug, Accepts: []string{"application/pdf"}, MinFiles: 1, MaxFiles: 1, Engine: "pdfcpu",
		Params: []docmill.Param{{Name: "angle", Type: docmill.TypeInteger, Default: "90", Min: docmill.Bound(0), Max: docmill.Bound(270)}},
	}
}

func newProcAPI(t *testing.T, bs docmill.BlobStore) *procAPI {
	t.Helper()
	dir := t.TempDir()
	st, err := sqlite.Open(t.Context(), filepath.Join(dir, "d.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a := &procAPI{st: st, blobs: filepath.Join(dir, "blobs")}
	if bs == nil {
		b, err := blob.OpenDir(a.blobs)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		bs = b
	}
	a.s = NewServer(Config{
		Store: st, Blob: bs, Registry: docmill.NewRegistry(procTool("rotate-pdf"), procTool("flip-pdf")),
		Limiter: ratelimit.NewMemory(nil), Plans: docmill.DefaultPlans(), Logger: slog.New(slog.DiscardHandler),
	})
	return a
}

// riverQueue returns a queue (insert-only, an API node's) on a's store,
// with River's tables made first.
func (a *procAPI) riverQueue(t *testing.T) *jobs.Queue[*sql.Tx] {
	t.Helper()
	m, err := rivermigrate.New(riversqlite.New(a.st.WriteDB()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Migrate(t.Context(), rivermigrate.DirectionUp, nil); err != nil {
		t.Fatal(err)
	}
	q, err := jobs.New(riversqlite.New(a.st.WriteDB()), jobs.Config{Store: a.st, Blob: a.s.cfg.Blob, Registry: a.s.cfg.Registry})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// account creates a custom account with limits and returns its key.
func (a *procAPI) account(t *testing.T, limits docmill.Plan) (string, *docmill.Account) {
	t.Helper()
	acct := &docmill.Account{ID: docmill.NewID("acct_"), Name: "a", Plan: docmill.PlanCustom, Limits: &limits, CreatedAt: time.Now()}
	key, k := docmill.NewAPIKey(acct.ID, "k", time.Now())
	if err := a.st.CreateAccount(t.Context(), acct, &k); err != nil {
		t.Fatal(err)
	}
	return key, acct
}

// procReq is one process call of a test.
type procReq struct {
	tool, idem, file string
	params           map[string]string
}

// post sends r with key, asking respond-async.
func (a *procAPI) post(t *testing.T, key string, r procReq) *httptest.ResponseRecorder {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range r.params {
		_ = mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", "in.pdf")
	_, _ = io.WriteString(fw, r.file)
	_ = mw.Close()
	return a.postBody(key, r, mw.FormDataContentType(), &body)
}

func (a *procAPI) postBody(key string, r procReq, contentType string, body io.Reader) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/v1/"+r.tool+"/process", body)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Prefer", "respond-async")
	if r.idem != "" {
		req.Header.Set("Idempotency-Key", r.idem)
	}
	w := httptest.NewRecorder()
	a.s.ServeHTTP(w, req)
	return w
}

// storedInputs counts the files in the local bucket.
func (a *procAPI) storedInputs(t *testing.T) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(a.blobs, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return n
}

// answer decodes a process answer: the job's id and status, or the
// problem's code.
func answer(t *testing.T, w *httptest.ResponseRecorder) (id string, status docmill.Status, code docmill.Code) {
	t.Helper()
	var b struct {
		JobID  string          `json:"job_id"`
		Status json.RawMessage `json:"status"` // a problem's is its HTTP status
		Code   docmill.Code    `json:"code"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &b); err != nil {
		t.Fatalf("%d: %v\n%s", w.Code, err, w.Body)
	}
	_ = json.Unmarshal(b.Status, &status)
	return b.JobID, status, b.Code
}

const (
	pdfA = "%PDF-1.4\n% a\n"
	pdfB = "%PDF-1.4\n% b\n"
)

// TestReplayBeforeLimits: a replay of a known Idempotency-Key is answered
// with its job although the account's rate limit, in-flight limit and
// quota are all used up (by that very job), and it is charged to none of
// them: the account's next new request is refused for the rate limit its
// first request spent, and nothing more was stored. A request that reuses
// the key for something else is not a replay and is charged.
func TestReplayBeforeLimits(t *testing.T) {
	a := newProcAPI(t, nil)
	key, acct := a.account(t, docmill.Plan{OperationsPerMonth: 1, RequestsPerMinute: 1, JobsInFlight: 1, Priority: 1, ResultTTL: time.Hour})
	req := procReq{tool: "rotate-pdf", idem: "order-42", file: pdfA, params: map[string]string{"angle": "180"}}
	w := a.post(t, key, req)
	first, status, _ := answer(t, w)
	if w.Code != http.StatusAccepted || status != docmill.StatusQueued {
		t.Fatalf("first request: %d %s", w.Code, w.Body)
	}
	for i := range 3 {
		w := a.post(t, key, req)
		id, status, code := answer(t, w)
		if w.Code != http.StatusAccepted || id != first || status != docmill.StatusQueued {
			t.Fatalf("replay %d: %d %s %s %s, want 202 with job %s", i, w.Code, id, status, code, first)
		}
		if w.Header().Get("Location") != "/v1/jobs/"+first || w.Header().Get("X-RateLimit-Remaining") != "" {
			t.Errorf("replay %d headers: %v", i, w.Header())
		}
	}
	if n := a.storedInputs(t); n != 1 {
		t.Errorf("%d files stored, want the first request's 1", n)
	}
	period, _ := docmill.Period(time.Now())
	if u, err := a.st.Usage(t.Context(), acct.ID, period); err != nil || u.InFlight != 1 {
		t.Errorf("usage %+v %v, want 1 job in flight", u, err)
	}

	// The job finishes: its replay is 200, done, still without a charge.
	j, err := a.st.StartJob(t.Context(), first, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	j.Status, j.FinishedAt = docmill.StatusDone, &now
	j.Result = &docmill.Result{Key: "out/" + first, Filename: "in.pdf", ContentType: "application/pdf", Size: 10, ExpiresAt: now.Add(time.Hour)}
	if _, err := a.st.FinishJob(t.Context(), j); err != nil {
		t.Fatal(err)
	}
	w = a.post(t, key, req)
	if id, status, _ := answer(t, w); w.Code != http.StatusOK || id != first || status != docmill.StatusDone {
		t.Fatalf("replay of the done job: %d %s", w.Code, w.Body)
	}

	// Same key, other request: charged, so now refused for the rate limit.
	other := req
	other.params = map[string]string{"angle": "90"}
	w = a.post(t, key, other)
	if _, _, code := answer(t, w); w.Code != http.StatusTooManyRequests || code != docmill.CodeRateLimited {
		t.Fatalf("conflicting request over the rate limit: %d %s", w.Code, w.Body)
	}
	w = a.post(t, key, procReq{tool: "rotate-pdf", file: pdfA})
	if _, _, code := answer(t, w); w.Code != http.StatusTooManyRequests || code != docmill.CodeRateLimited {
		t.Fatalf("new request: %d %s", w.Code, w.Body)
	}
}

// TestReplayFingerprint: a request with a known Idempotency-Key is a replay
// when its tool, canonical params and files' bytes are the first
// request's; anything else is 409 idempotency_conflict, checked like a new
// request first; keys are per account. Only the first request stores its
// file.
func TestReplayFingerprint(t *testing.T) {
	a := newProcAPI(t, nil)
	unlimited := docmill.Plan{Priority: 1, ResultTTL: time.Hour}
	key, _ := a.account(t, unlimited)
	base := procReq{tool: "rotate-pdf", idem: "k", file: pdfA, params: map[string]string{"angle": "90"}}
	first, _, _ := answer(t, a.post(t, key, base))
	if first == "" {
		t.Fatal("no job")
	}
	otherKey, _ := a.account(t, unlimited)

	tests := []struct {
		name   string
		key    string
		req    procReq
		status int
		code   docmill.Code
		same   bool // the answer is the first job
	}{
		{name: "same request", key: key, req: base, status: 202, same: true},
		{name: "param in another spelling", key: key, req: procReq{tool: "rotate-pdf", idem: "k", file: pdfA, params: map[string]string{"angle": " 090 "}}, status: 202, same: true},
		{name: "param left to its default", key: key, req: procReq{tool: "rotate-pdf", idem: "k", file: pdfA}, status: 202, same: true},
		{name: "other param value", key: key, req: procReq{tool: "rotate-pdf", idem: "k", file: pdfA, params: map[string]string{"angle": "180"}}, status: 409, code: docmill.CodeIdempotencyConflict},
		{name: "other file", key: key, req: procReq{tool: "rotate-pdf", idem: "k", file: pdfB, params: map[string]string{"angle": "90"}}, status: 409, code: docmill.CodeIdempotencyConflict},
		{name: "other tool", key: key, req: procReq{tool: "flip-pdf", idem: "k", file: pdfA, params: map[string]string{"angle": "90"}}, status: 409, code: docmill.CodeIdempotencyConflict},
		{name: "invalid param", key: key, req: procReq{tool: "rotate-pdf", idem: "k", file: pdfA, params: map[string]string{"angle": "999"}}, status: 400, code: docmill.CodeInvalidParameter},
		{name: "not a PDF", key: key, req: procReq{tool: "rotate-pdf", idem: "k", file: "plain text", params: map[string]string{"angle": "90"}}, status: 400, code: docmill.CodeUnsupportedFileType},
		{name: "unknown tool", key: key, req: procReq{tool: "nope", idem: "k", file: pdfA}, status: 404, code: docmill.CodeUnknownTool},
		{name: "other key", key: key, req: procReq{tool: "rotate-pdf", idem: "k2", file: pdfA, params: map[string]string{"angle": "90"}}, status: 202},
		{name: "same key, other account", key: otherKey, req: base, status: 202},
	}
	stored := 1
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := a.post(t, tc.key, tc.req)
			id, _, code := answer(t, w)
			if w.Code != tc.status || code != tc.code || (id == first) != tc.same {
				t.Fatalf("%d %s (job %s), want %d %s (first job: %v)", w.Code, code, id, tc.status, tc.code, tc.same)
			}
			if tc.status == 202 && !tc.same {
				stored++
			}
			if n := a.storedInputs(t); n != stored {
				t.Errorf("%d files stored, want %d", n, stored)
			}
		})
	}

	// A replay's body is read whole to be fingerprinted: a truncated one is
	// the client's error, and nothing is stored.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "in.pdf")
	_, _ = io.WriteString(fw, pdfA)
	_ = mw.Close()
	w := a.postBody(key, base, mw.FormDataContentType(), bytes.NewReader(body.Bytes()[:body.Len()-10]))
	if _, _, code := answer(t, w); w.Code != 400 || code != docmill.CodeInvalidRequest {
		t.Fatalf("truncated replay: %d %s", w.Code, w.Body)
	}
}

// downBucket is a blob store that cannot be reached: Put reads the upload,
// as an S3 client buffers a small file, then fails as a cut connection
// does; a failure of the upload itself comes first.
type downBucket struct{}

func (downBucket) Put(_ context.Context, _ string, r io.Reader, _ string) (int64, error) {
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return n, err
	}
	return n, &net.OpError{Op: "read", Net: "tcp", Err: &os.SyscallError{Syscall: "read", Err: syscall.ECONNRESET}}
}
func (downBucket) Delete(context.Context, string) error { return errors.New("down") }
func (downBucket) NewRangeReader(context.Context, string, int64, int64) (io.ReadCloser, error) {
	return nil, errors.New("down")
}
func (downBucket) Attributes(context.Context, string) (docmill.BlobAttributes, error) {
	return docmill.BlobAttributes{}, errors.New("down")
}
func (downBucket) Ping(context.Context) error { return errors.New("down") }

// TestUploadBucketDown: a bucket that fails during an upload is 503
// service_unavailable with Retry-After, whether the upload is a new
// request's or a replay's (which stores nothing and so still succeeds);
// a body that fails is still the client's 400, not an outage.
func TestUploadBucketDown(t *testing.T) {
	a := newProcAPI(t, downBucket{})
	key, acct := a.account(t, docmill.Plan{Priority: 1, ResultTTL: time.Hour})
	w := a.post(t, key, procReq{tool: "rotate-pdf", file: pdfA})
	if _, _, code := answer(t, w); w.Code != 503 || code != docmill.CodeServiceUnavailable || w.Header().Get("Retry-After") != "5" {
		t.Fatalf("upload to a bucket that is down: %d %s %v", w.Code, w.Body, w.Header())
	}
	if strings.Contains(w.Body.String(), "reset") {
		t.Errorf("the cause leaked: %s", w.Body)
	}

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "in.pdf")
	_, _ = io.WriteString(fw, pdfA+strings.Repeat("x", 100))
	_ = mw.Close()
	// Cut inside the file, after the bytes that decide its type.
	w = a.postBody(key, procReq{tool: "rotate-pdf"}, mw.FormDataContentType(), bytes.NewReader(body.Bytes()[:body.Len()-60]))
	if _, _, code := answer(t, w); w.Code != 400 || code != docmill.CodeInvalidRequest {
		t.Fatalf("truncated upload: %d %s", w.Code, w.Body)
	}

	// A replay stores nothing: it is answered with the bucket down.
	sum := sha256.Sum256([]byte(pdfA))
	j := &docmill.Job{ID: docmill.NewJobID(), AccountID: acct.ID, Tool: "rotate-pdf", Status: docmill.StatusQueued,
		Params: docmill.Params{"angle": "90"}, Priority: 1, ResultTTL: time.Hour, IdempotencyKey: "k",
		RequestHash: requestHash("rotate-pdf", docmill.Params{"angle": "90"}, []string{hex.EncodeToString(sum[:])}), CreatedAt: time.Now()}
	period, _ := docmill.Period(time.Now())
	if _, err := a.st.CreateJob(t.Context(), j, docmill.Admission{Period: period}); err != nil {
		t.Fatal(err)
	}
	w = a.post(t, key, procReq{tool: "rotate-pdf", idem: "k", file: pdfA})
	if id, _, _ := answer(t, w); w.Code != 202 || id != j.ID {
		t.Fatalf("replay with the bucket down: %d %s", w.Code, w.Body)
	}
}
