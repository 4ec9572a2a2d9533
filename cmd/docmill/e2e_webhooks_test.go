package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/store/postgres/pgtest"
)

// hookRequest is one request a receiver got.
type hookRequest struct {
	header http.Header
	body   []byte
}

// receiver is a webhook endpoint on 127.0.0.1 (so its server needs
// --allow-private-urls). answer gives the status of its n-th request
// (from 0); nil answers 200.
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	got    []hookRequest
	arrive chan struct{}
	answer func(n int, w http.ResponseWriter) int
}

func newReceiver(t *testing.T, answer func(n int, w http.ResponseWriter) int) *receiver {
	rc := &receiver{arrive: make(chan struct{}, 100), answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		n := len(rc.got)
		rc.got = append(rc.got, hookRequest{header: r.Header.Clone(), body: body})
		rc.mu.Unlock()
		status := http.StatusOK
		if rc.answer != nil {
			status = rc.answer(n, w)
		}
		w.WriteHeader(status)
		rc.arrive <- struct{}{}
	}))
	t.Cleanup(rc.Close)
	return rc
}

// wait returns the receiver's requests once it has n of them.
func (rc *receiver) wait(t *testing.T, n int, timeout time.Duration) []hookRequest {
	t.Helper()
	deadline := time.After(timeout)
	for {
		rc.mu.Lock()
		got := append([]hookRequest(nil), rc.got...)
		rc.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-rc.arrive:
		case <-deadline:
			t.Fatalf("receiver got %d requests within %s, want %d", len(got), timeout, n)
		}
	}
}

// count is how many requests the receiver got.
func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.got)
}

// callAPI sends a JSON request with key and decodes the JSON answer.
func callAPI(t *testing.T, s *testServer, key, method, path string, body any) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, b := send(t, req)
	var out map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s %s: %d, body %q", method, path, resp.StatusCode, b)
		}
	}
	return resp.StatusCode, out
}

// createHook creates an endpoint for url and returns its id and secret.
func createHook(t *testing.T, s *testServer, key, url string, events ...string) (id, secret string) {
	t.Helper()
	body := map[string]any{"url": url}
	if events != nil {
		body["events"] = events
	}
	status, out := callAPI(t, s, key, http.MethodPost, "/v1/webhooks", body)
	if status != http.StatusCreated {
		t.Fatalf("POST /v1/webhooks: %d %v", status, out)
	}
	id, _ = out["id"].(string)
	secret, _ = out["secret"].(string)
	if !strings.HasPrefix(id, "wh_") || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("created %v", out)
	}
	return id, secret
}

// event checks a delivery with the Standard Webhooks library, for each
// secret, and returns its body.
func event(t *testing.T, r hookRequest, secrets ...string) map[string]any {
	t.Helper()
	for _, secret := range secrets {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			t.Fatal(err)
		}
		if err := wh.Verify(r.body, r.header); err != nil {
			t.Fatalf("signature of %s (%q) with %s...: %v", r.header.Get("webhook-id"), r.header.Get("webhook-signature"), secret[:10], err)
		}
	}
	if !strings.HasPrefix(r.header.Get("webhook-id"), "msg_") || !strings.HasPrefix(r.header.Get("User-Agent"), "docmill-webhooks/") ||
		r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("headers %v", r.header)
	}
	ts, _ := strconv.ParseInt(r.header.Get("webhook-timestamp"), 10, 64)
	if d := time.Since(time.Unix(ts, 0)); d < -time.Minute || d > time.Minute {
		t.Fatalf("webhook-timestamp %d is %s away", ts, d)
	}
	var out map[string]any
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatalf("body %q: %v", r.body, err)
	}
	return out
}

// deliveries returns an endpoint's recorded attempts, newest first, once
// there are n: a receiver has its request before the attempt is recorded.
func deliveries(t *testing.T, s *testServer, key, id string, n int) []any {
	t.Helper()
	var ds []any
	poll.Until(t, 10*time.Second, func() (bool, string) {
		status, out := callAPI(t, s, key, http.MethodGet, "/v1/webhooks/"+id+"/deliveries", nil)
		ds, _ = out["deliveries"].([]any)
		return status != http.StatusOK || len(ds) >= n, fmt.Sprintf("%d deliveries recorded, want %d: %v", len(ds), n, out)
	})
	return ds
}

// jobRecord is GET /v1/jobs/{id} as a JSON object.
func jobRecord(t *testing.T, s *testServer, key, id string) map[string]any {
	t.Helper()
	status, out := callAPI(t, s, key, http.MethodGet, "/v1/jobs/"+id, nil)
	if status != http.StatusOK {
		t.Fatalf("GET job %s: %d %v", id, status, out)
	}
	return out
}

// checkEvent checks an event's type, timestamp and data: the job record
// exactly as GET /v1/jobs/{id} returns it.
func checkEvent(t *testing.T, s *testServer, key string, ev map[string]any, typ, jobID string) {
	t.Helper()
	if ev["type"] != typ {
		t.Fatalf("event type %v, want %s", ev["type"], typ)
	}
	if _, err := time.Parse(time.RFC3339, ev["timestamp"].(string)); err != nil {
		t.Fatalf("event timestamp %v: %v", ev["timestamp"], err)
	}
	if want := jobRecord(t, s, key, jobID); !reflect.DeepEqual(ev["data"], want) {
		t.Fatalf("event data\n%v\nwant the job record\n%v", ev["data"], want)
	}
}

// TestWebhookEvents: a receiver gets job.done for a sync job and for a
// 202 job and job.failed for a failed job, each signed (checked with the
// Standard Webhooks library) and carrying the job record; an endpoint gets
// only its events; a rotated secret signs beside the new one; endpoints
// are the account's own, bounded by its plan.
func TestWebhookEvents(t *testing.T) {
	t.Parallel() // wait-bound; the server, its data directory and the receivers are its own
	testWebhookEvents(t, sqliteDir)
}

func testWebhookEvents(t *testing.T, newDir dataDirFunc) {
	s := startServer(t, newDir(t), "--allow-private-urls")
	ctx := context.Background()
	key := s.DevKey
	c := s.client(key)
	all := newReceiver(t, nil)
	failures := newReceiver(t, nil)
	allID, secret := createHook(t, s, key, all.URL+"/hook")
	_, failSecret := createHook(t, s, key, failures.URL, "job.failed")

	status, got := callAPI(t, s, key, http.MethodGet, "/v1/webhooks/"+allID, nil)
	if status != http.StatusOK || got["url"] != all.URL+"/hook" || got["enabled"] != true || got["secret"] != nil ||
		!reflect.DeepEqual(got["events"], []any{"job.done", "job.failed", "job.canceled"}) {
		t.Fatalf("GET webhook: %d %v", status, got)
	}

	// A sync job: 200, then job.done.
	j, resp, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, client.ProcessOptions{})
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("sync process: %v %v", resp, err)
	}
	answered := time.Now()
	ev := event(t, all.wait(t, 1, 20*time.Second)[0], secret)
	// The finish's commit wakes the delivery workers (SQLite cannot
	// notify them); without it they would find the delivery at their
	// next poll, up to a second later.
	t.Logf("job.done delivered %s after the answer", time.Since(answered))
	checkEvent(t, s, key, ev, "job.done", j.JobID)
	if data := ev["data"].(map[string]any); data["result"].(map[string]any)["url"] == "" {
		t.Fatalf("job.done without a result URL: %v", data)
	}

	// A 202 job.
	j, resp, err = c.Process(ctx, "rotate-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, client.ProcessOptions{Prefer: "respond-async"})
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("async process: %v %v", resp, err)
	}
	checkEvent(t, s, key, event(t, all.wait(t, 2, 20*time.Second)[1], secret), "job.done", j.JobID)

	// A failed job (a page past the end): job.failed, to both endpoints.
	_, _, err = c.Process(ctx, "rotate-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF)},
		client.ProcessOptions{Params: map[string]string{"pages": "50"}})
	e, ok := err.(*client.Problem)
	if !ok || e.JobID == "" {
		t.Fatalf("failing process: %v", err)
	}
	ev = event(t, all.wait(t, 3, 20*time.Second)[2], secret)
	checkEvent(t, s, key, ev, "job.failed", e.JobID)
	if ev["data"].(map[string]any)["error"].(map[string]any)["code"] != string(e.Code) {
		t.Fatalf("job.failed data %v, want error %s", ev["data"], e.Code)
	}
	checkEvent(t, s, key, event(t, failures.wait(t, 1, 20*time.Second)[0], failSecret), "job.failed", e.JobID)

	// The deliveries, newest first.
	ds := deliveries(t, s, key, allID, 3)
	if len(ds) != 3 {
		t.Fatalf("deliveries: %v", ds)
	}
	d := ds[0].(map[string]any)
	if d["event"] != "job.failed" || d["job_id"] != e.JobID || d["attempt"] != 1.0 || d["status_code"] != 200.0 ||
		d["succeeded"] != true || d["next_retry_at"] != nil || d["message_id"] != all.wait(t, 3, 0)[2].header.Get("webhook-id") {
		t.Fatalf("latest delivery %v", d)
	}

	// A rotated secret: both sign for the overlap.
	status, got = callAPI(t, s, key, http.MethodPost, "/v1/webhooks/"+allID+"/rotate-secret", nil)
	newSecret, _ := got["secret"].(string)
	if status != http.StatusOK || !strings.HasPrefix(newSecret, "whsec_") || newSecret == secret || got["previous_secret_expires_at"] == nil {
		t.Fatalf("rotate-secret: %d %v", status, got)
	}
	if _, _, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, client.ProcessOptions{}); err != nil {
		t.Fatal(err)
	}
	r := all.wait(t, 4, 20*time.Second)[3]
	event(t, r, secret, newSecret)
	if sigs := strings.Fields(r.header.Get("webhook-signature")); len(sigs) != 2 {
		t.Fatalf("webhook-signature %q, want two", r.header.Get("webhook-signature"))
	}
	if failures.count() != 1 {
		t.Fatalf("the job.failed-only endpoint got %d events, want 1", failures.count())
	}

	// Another account sees none of it; a Free account has one endpoint.
	other := newKey(t, s.DataDir, "free")
	for _, call := range [][2]string{{"GET", "/v1/webhooks/" + allID}, {"DELETE", "/v1/webhooks/" + allID},
		{"GET", "/v1/webhooks/" + allID + "/deliveries"}, {"POST", "/v1/webhooks/" + allID + "/rotate-secret"}} {
		if status, got := callAPI(t, s, other, call[0], call[1], nil); status != http.StatusNotFound || got["code"] != "not_found" {
			t.Fatalf("%s %s by another account: %d %v", call[0], call[1], status, got)
		}
	}
	if status, got := callAPI(t, s, other, http.MethodGet, "/v1/webhooks", nil); status != http.StatusOK || len(got["webhooks"].([]any)) != 0 {
		t.Fatalf("another account's list: %d %v", status, got)
	}
	createHook(t, s, other, all.URL)
	if status, got := callAPI(t, s, other, http.MethodPost, "/v1/webhooks", map[string]any{"url": all.URL}); status != http.StatusConflict || got["code"] != "conflict" {
		t.Fatalf("second endpoint on Free: %d %v", status, got)
	}

	// Bad requests.
	for _, body := range []map[string]any{{}, {"url": all.URL, "events": []string{"job.started"}}, {"url": all.URL, "events": []string{}},
		{"url": "ftp://example.com/"}, {"url": all.URL, "secret": "mine"}} {
		status, got := callAPI(t, s, key, http.MethodPost, "/v1/webhooks", body)
		if status != http.StatusBadRequest {
			t.Fatalf("POST %v: %d %v", body, status, got)
		}
	}

	if status, _ := callAPI(t, s, key, http.MethodDelete, "/v1/webhooks/"+allID, nil); status != http.StatusNoContent {
		t.Fatalf("DELETE: %d", status)
	}
	if status, _ := callAPI(t, s, key, http.MethodGet, "/v1/webhooks/"+allID, nil); status != http.StatusNotFound {
		t.Fatalf("GET after DELETE: %d", status)
	}
}

// TestWebhookRetries: a receiver answering 500 twice and then 200 gets the
// same event three times under one webhook-id, on the (shortened)
// schedule; one answering 410 Gone is disabled at once and gets nothing
// more; one answering 400 is not retried.
func TestWebhookRetries(t *testing.T) {
	t.Parallel() // wait-bound (the retry schedule); its server, directory and receivers are its own
	testWebhookRetries(t, sqliteDir)
}

func testWebhookRetries(t *testing.T, newDir dataDirFunc) {
	s := startServer(t, newDir(t), "--allow-private-urls", "--webhook-retry-schedule", "200ms,400ms,5s")
	key := s.DevKey
	flaky := newReceiver(t, func(n int, w http.ResponseWriter) int {
		if n < 2 {
			return http.StatusInternalServerError
		}
		return http.StatusNoContent
	})
	gone := newReceiver(t, func(int, http.ResponseWriter) int { return http.StatusGone })
	refusing := newReceiver(t, func(int, http.ResponseWriter) int { return http.StatusBadRequest })
	flakyID, secret := createHook(t, s, key, flaky.URL)
	goneID, _ := createHook(t, s, key, gone.URL)
	refusingID, _ := createHook(t, s, key, refusing.URL)

	j, _, err := s.client(key).Process(context.Background(), "rotate-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, client.ProcessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := flaky.wait(t, 3, 30*time.Second)
	for _, r := range got {
		checkEvent(t, s, key, event(t, r, secret), "job.done", j.JobID)
		if id := r.header.Get("webhook-id"); id != got[0].header.Get("webhook-id") {
			t.Fatalf("webhook-id %s, then %s: want one id for every attempt", got[0].header.Get("webhook-id"), id)
		}
	}
	ds := deliveries(t, s, key, flakyID, 3)
	if len(ds) != 3 {
		t.Fatalf("deliveries %v", ds)
	}
	for i, want := range []struct {
		attempt, status float64
		retry           bool
	}{{3, 204, false}, {2, 500, true}, {1, 500, true}} {
		d := ds[i].(map[string]any)
		if d["attempt"] != want.attempt || d["status_code"] != want.status || (d["next_retry_at"] != nil) != want.retry || d["error"] == "" {
			t.Fatalf("delivery %d: %v, want attempt %v status %v retry %v", i, d, want.attempt, want.status, want.retry)
		}
	}
	if _, hook := callAPI(t, s, key, http.MethodGet, "/v1/webhooks/"+flakyID, nil); hook["enabled"] != true || hook["failing_since"] != nil {
		t.Fatalf("flaky endpoint after a success: %v", hook)
	}

	gone.wait(t, 1, 10*time.Second)
	refusing.wait(t, 1, 10*time.Second)
	var hook map[string]any
	poll.Until(t, 10*time.Second, func() (bool, string) {
		_, hook = callAPI(t, s, key, http.MethodGet, "/v1/webhooks/"+goneID, nil)
		return hook["enabled"] == false, fmt.Sprintf("endpoint answering 410: %v, want it disabled", hook)
	})
	if hook["enabled"] != false || !strings.Contains(hook["disabled_reason"].(string), "410") || hook["disabled_at"] == nil {
		t.Fatalf("endpoint answering 410: %v, want it disabled", hook)
	}
	if _, _, err := s.client(key).Process(context.Background(), "rotate-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, client.ProcessOptions{}); err != nil {
		t.Fatal(err)
	}
	flaky.wait(t, 4, 20*time.Second)
	refusing.wait(t, 2, 20*time.Second) // the new event, not a retry of the first
	// A delivery to the disabled endpoint, or a retry of a refused one,
	// would have been made once no delivery is left to make.
	awaitRiverSettled(t, s.DataDir, "docmill.webhook")
	if gone.count() != 1 || refusing.count() != 2 {
		t.Fatalf("after a second job: the disabled endpoint got %d requests (want 1), the refusing one %d (want 2, no retries)", gone.count(), refusing.count())
	}
	// Its owner may enable it again.
	if status, hook := callAPI(t, s, key, http.MethodPost, "/v1/webhooks/"+goneID+"/enable", nil); status != http.StatusOK ||
		hook["enabled"] != true || hook["disabled_reason"] != nil || hook["disabled_at"] != nil {
		t.Fatalf("enable: %d %v", status, hook)
	}
	for _, d := range deliveries(t, s, key, refusingID, 2) {
		if d := d.(map[string]any); d["attempt"] != 1.0 || d["next_retry_at"] != nil || d["status_code"] != 400.0 {
			t.Fatalf("refused delivery %v: want one attempt, no retry", d)
		}
	}
}

// awaitRiverSettled waits until the River queue of dataDir's server
// (SQLite or PostgreSQL) holds no entry of kind still to run: every
// attempt of that kind so far has been made, and none is due later.
func awaitRiverSettled(t testing.TB, dataDir, kind string) {
	t.Helper()
	const q = `SELECT COUNT(*) FROM river_job WHERE kind = $1 AND state NOT IN ('completed', 'cancelled', 'discarded')`
	var count func() (int, error)
	if u, ok := databases.Load(dataDir); ok {
		conn, err := pgx.Connect(t.Context(), u.(string))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		count = func() (n int, err error) { return n, conn.QueryRow(t.Context(), q, kind).Scan(&n) }
	} else {
		db := openDB(t, dataDir)
		count = func() (n int, err error) { return n, db.QueryRow(q, kind).Scan(&n) }
	}
	poll.Until(t, time.Minute, func() (bool, string) {
		n, err := count()
		if err != nil {
			t.Fatal(err)
		}
		return n == 0, fmt.Sprintf("%d River entries of %s still to run", n, kind)
	})
}

// TestWebhookPostgres runs the webhook tests on PostgreSQL with
// riverpgxv5.
func TestWebhookPostgres(t *testing.T) {
	t.Parallel() // wait-bound; each subtest owns its schema (postgresDir)
	pgtest.BaseURL(t)
	t.Run("Events", func(t *testing.T) { t.Parallel(); testWebhookEvents(t, postgresDir) })
	t.Run("Retries", func(t *testing.T) { t.Parallel(); testWebhookRetries(t, postgresDir) })
}

// TestWebhookRestart: a delivery due for a retry when the server stops is
// made after it starts again on the same data directory.
func TestWebhookRestart(t *testing.T) {
	t.Parallel() // wait-bound (a retry due while stopped); the directory is its own
	dir := t.TempDir()
	flags := []string{"--allow-private-urls", "--webhook-retry-schedule", "2s"}
	s := startServer(t, dir, flags...)
	key := s.DevKey
	rc := newReceiver(t, func(n int, w http.ResponseWriter) int {
		if n == 0 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	hookID, secret := createHook(t, s, key, rc.URL)
	j, _, err := s.client(key).Process(context.Background(), "rotate-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, client.ProcessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := rc.wait(t, 1, 20*time.Second)[0]
	s.stop(t) // the retry is pending
	if rc.count() != 1 {
		t.Fatalf("receiver got %d requests before the restart, want 1", rc.count())
	}
	time.Sleep(2 * time.Second) // not ordering: a lower bound, the retry falls due (2s) while no server runs
	s = startServer(t, dir, flags...)
	second := rc.wait(t, 2, 30*time.Second)[1]
	if second.header.Get("webhook-id") != first.header.Get("webhook-id") {
		t.Fatalf("webhook-id %s after the restart, %s before", second.header.Get("webhook-id"), first.header.Get("webhook-id"))
	}
	// The event is the one rendered when the job finished, on the first
	// server (whose port the result URL names).
	if ev := event(t, second, secret); ev["type"] != "job.done" || ev["data"].(map[string]any)["job_id"] != j.JobID || !bytes.Equal(second.body, first.body) {
		t.Fatalf("event after the restart %v; want job.done of %s, the body of the first attempt", ev, j.JobID)
	}
	ds := deliveries(t, s, key, hookID, 2)
	if len(ds) != 2 || ds[0].(map[string]any)["attempt"] != 2.0 || ds[0].(map[string]any)["succeeded"] != true {
		t.Fatalf("deliveries after the restart: %v; want attempt 2 succeeded", ds)
	}
}

// TestWebhookURLRefused: without --allow-private-urls, an endpoint at a
// loopback, private, link-local or metadata address, or on plain http, is
// refused at creation.
func TestWebhookURLRefused(t *testing.T) {
	t.Parallel() // its server is its own
	s := startServer(t, "")
	for _, url := range []string{"https://127.0.0.1/hook", "https://10.0.0.1/hook", "https://169.254.169.254/latest",
		"https://[::1]:8443/hook", "https://[fd00:ec2::254]/", "https://localhost/hook", "http://93.184.215.14/hook"} {
		status, got := callAPI(t, s, s.DevKey, http.MethodPost, "/v1/webhooks", map[string]any{"url": url})
		errs, _ := got["errors"].([]any)
		if status != http.StatusBadRequest || got["code"] != "invalid_parameter" || len(errs) != 1 || errs[0].(map[string]any)["field"] != "url" {
			t.Errorf("POST webhook %s: %d %v; want 400 invalid_parameter on url", url, status, got)
		}
	}
	// The OpenAPI document describes the endpoints and the requests sent.
	doc := getJSON(t, s.URL+"/v1/openapi.json", 200)
	if doc["paths"].(map[string]any)["/v1/webhooks/{webhook_id}/deliveries"] == nil || doc["webhooks"].(map[string]any)["jobEvent"] == nil {
		t.Errorf("openapi.json lacks the webhooks: paths %v", doc["paths"])
	}
	// A public address is taken (nothing is sent until a job ends).
	if status, got := callAPI(t, s, s.DevKey, http.MethodPost, "/v1/webhooks", map[string]any{"url": "https://93.184.215.14/hook"}); status != http.StatusCreated {
		t.Errorf("POST webhook at a public address: %d %v", status, got)
	}
}

// TestWebhookCanceled: a job canceled on an API node (which works no
// jobs) sends job.canceled, queued by the API node in the cancel's
// transaction and delivered by a worker node started afterwards on the
// same data.
func TestWebhookCanceled(t *testing.T) {
	t.Parallel() // wait-bound; its directory, nodes and receiver are its own
	dir := t.TempDir()
	api := startServer(t, dir, "--role", "api", "--allow-private-urls")
	key := api.DevKey
	rc := newReceiver(t, nil)
	_, secret := createHook(t, api, key, rc.URL)
	c := api.client(key)
	j, resp, err := c.Process(context.Background(), "rotate-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, client.ProcessOptions{Prefer: "respond-async"})
	if err != nil || resp.StatusCode != http.StatusAccepted || j.Status != "queued" {
		t.Fatalf("process on an API node: %v %+v %v; want 202 queued (no worker)", resp, j, err)
	}
	if j, err = c.CancelJob(context.Background(), j.JobID); err != nil || j.Status != "canceled" {
		t.Fatalf("cancel: %+v %v", j, err)
	}
	// Only workers deliver: the worker started after the cancel delivers
	// job.canceled, then job.done for a job sent after it; an API node's
	// delivery of job.canceled, made at once, would be a third request,
	// in by the time the second event is.
	startServer(t, dir, "--role", "worker", "--allow-private-urls")
	checkEvent(t, api, key, event(t, rc.wait(t, 1, 30*time.Second)[0], secret), "job.canceled", j.JobID)
	after, _, err := c.Process(context.Background(), "rotate-pdf", []client.File{pdfFile("four-pages.pdf", fourPagePDF)}, client.ProcessOptions{Prefer: "respond-async"})
	if err != nil {
		t.Fatal(err)
	}
	// Its record's result URL names the worker's address, not the API
	// node's, so only the event's type and job are compared.
	done := event(t, rc.wait(t, 2, 30*time.Second)[1], secret)
	if data, _ := done["data"].(map[string]any); done["type"] != "job.done" || data["job_id"] != after.JobID {
		t.Fatalf("second event %v, want job.done of %s", done, after.JobID)
	}
	if n := rc.count(); n != 2 {
		t.Fatalf("the receiver got %d requests, want 2: an API node delivered", n)
	}
}
