package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// The server's job records, as it renders them (indented, HTML left
// unescaped): a done job, an unfinished one (no finished_at, no result),
// a failed one and a done one whose result expired (no url).
var jobBodies = []string{
	`{
  "job_id": "job_4kq8v2m0c9x7t1r5y3w6z8a2b4",
  "status": "done",
  "tool": "rotate-pdf",
  "created_at": "2026-11-22T10:00:00Z",
  "finished_at": "2026-11-22T10:00:01Z",
  "result": {
    "url": "http://localhost:8080/files/job_4kq8v2m0c9x7t1r5y3w6z8a2b4/a-rotated.pdf?expires=1&signature=x&y",
    "size": 25012,
    "filename": "a-rotated.pdf",
    "content_type": "application/pdf",
    "expires_at": "2026-11-23T10:00:01Z"
  },
  "meta": {
    "duration_ms": 4,
    "input_size": 24607,
    "repaired": true
  },
  "error": null
}
`,
	`{
  "job_id": "job_4kq8v2m0c9x7t1r5y3w6z8a2b5",
  "status": "queued",
  "tool": "ocr-pdf",
  "created_at": "2026-11-22T10:00:00Z",
  "meta": {
    "input_size": 24607
  },
  "error": null
}
`,
	`{
  "job_id": "job_4kq8v2m0c9x7t1r5y3w6z8a2b6",
  "status": "failed",
  "tool": "split-pdf",
  "created_at": "2026-11-22T10:00:00Z",
  "finished_at": "2026-11-22T10:00:01Z",
  "meta": {
    "input_size": 1
  },
  "error": {
    "code": "invalid_parameter",
    "message": "bad",
    "errors": [
      {
        "field": "ranges",
        "message": "past the end"
      }
    ]
  }
}
`,
	`{
  "job_id": "job_4kq8v2m0c9x7t1r5y3w6z8a2b7",
  "status": "done",
  "tool": "rotate-pdf",
  "created_at": "2026-11-22T10:00:00Z",
  "finished_at": "2026-11-22T10:00:01Z",
  "result": {
    "size": 25012,
    "filename": "a-rotated.pdf",
    "content_type": "application/pdf",
    "expires_at": "2026-11-23T10:00:01Z",
    "expired": true
  },
  "meta": {},
  "error": null
}
`,
}

// TestJobRoundTrip: a Job decoded from the API's body encodes back to the
// same bytes (no "result": null, no "url": "" once expired).
func TestJobRoundTrip(t *testing.T) {
	for _, body := range jobBodies {
		var j Job
		if err := json.Unmarshal([]byte(body), &j); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&j); err != nil {
			t.Fatal(err)
		}
		if out.String() != body {
			t.Errorf("re-encoded:\n%s\nwant:\n%s", out.String(), body)
		}
	}
}

// recorder is a fake server at the network boundary: it answers each
// request with the next of its handlers and records what it was sent.
type recorder struct {
	mu       sync.Mutex
	answers  []http.HandlerFunc
	requests []*http.Request
	bodies   []string
	times    []time.Time
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	n := len(r.requests)
	r.requests = append(r.requests, req)
	r.bodies = append(r.bodies, string(body))
	r.times = append(r.times, time.Now())
	h := r.answers[min(n, len(r.answers)-1)]
	r.mu.Unlock()
	h(w, req)
}

func problem(status int, code string, retryAfter string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(status)
		io.WriteString(w, `{"type":"https://docmill.dev/errors/`+code+`","title":"t","status":429,"detail":"slow down","code":"`+code+`","request_id":"req_1"}`)
	}
}

func jobAnswer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
}

// hangUp drops the connection without an answer: a network error.
func hangUp(w http.ResponseWriter, _ *http.Request) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		conn.Close()
	}
}

func start(t *testing.T, answers ...http.HandlerFunc) (*recorder, *Client) {
	t.Helper()
	r := &recorder{answers: answers}
	s := httptest.NewServer(r)
	t.Cleanup(s.Close)
	return r, New(s.URL, "dm_live_test")
}

// TestRetry429: a 429 with Retry-After: 1 is retried after a second, and
// the retry resends the whole upload with the same Idempotency-Key.
func TestRetry429(t *testing.T) {
	r, c := start(t, problem(429, "rate_limited", "1"), jobAnswer(200, jobBodies[0]))
	var events []RetryEvent
	c.Retry.OnRetry = func(e RetryEvent) { events = append(events, e) }
	var progress []int64
	j, resp, err := c.Process(context.Background(), "rotate-pdf", []File{{Name: "a.pdf", Body: strings.NewReader("%PDF-1.7 body")}},
		ProcessOptions{Params: map[string]string{"angle": "90"}, Progress: func(sent, total int64) {
			if total != 13 {
				t.Errorf("progress total %d, want 13", total)
			}
			progress = append(progress, sent)
		}})
	if err != nil || resp.StatusCode != 200 || j.Result.Filename != "a-rotated.pdf" {
		t.Fatalf("%+v %v", j, err)
	}
	if len(r.requests) != 2 || r.times[1].Sub(r.times[0]) < time.Second {
		t.Fatalf("%d requests, %v apart; want 2, a second apart", len(r.requests), r.times[len(r.times)-1].Sub(r.times[0]))
	}
	key := r.requests[0].Header.Get("Idempotency-Key")
	if key == "" || r.requests[1].Header.Get("Idempotency-Key") != key {
		t.Errorf("idempotency keys %q, %q: want one generated key, sent twice", key, r.requests[1].Header.Get("Idempotency-Key"))
	}
	for _, b := range r.bodies {
		if !strings.Contains(b, "%PDF-1.7 body") || !strings.Contains(b, `name="angle"`) {
			t.Errorf("an attempt's body lacks the file or a param:\n%s", b)
		}
	}
	if len(events) != 1 || events[0].Wait != time.Second || events[0].Attempt != 1 {
		t.Errorf("retry events %+v", events)
	}
	if len(progress) == 0 || progress[len(progress)-1] != 13 {
		t.Errorf("progress %v, want it to end at 13", progress)
	}
}

// TestRetryNetworkError: an upload cut by a network error is sent again,
// with the same Idempotency-Key, so the server finds the first job.
func TestRetryNetworkError(t *testing.T) {
	r, c := start(t, hangUp, jobAnswer(200, jobBodies[0]))
	j, _, err := c.Process(context.Background(), "rotate-pdf", []File{{Name: "a.pdf", Body: bytes.NewReader([]byte("%PDF"))}}, ProcessOptions{})
	if err != nil || j.JobID == "" {
		t.Fatalf("%+v %v", j, err)
	}
	if len(r.requests) != 2 || r.requests[0].Header.Get("Idempotency-Key") != r.requests[1].Header.Get("Idempotency-Key") {
		t.Fatalf("%d requests; keys differ or are missing", len(r.requests))
	}
	if !strings.Contains(r.bodies[1], "filename=\"a.pdf\"\r\nContent-Type: application/octet-stream\r\n\r\n%PDF\r\n") {
		t.Errorf("the retry's body lacks the whole file:\n%q", r.bodies[1])
	}

	// A body that cannot be rewound is not sent again.
	r, c = start(t, hangUp, jobAnswer(200, jobBodies[0]))
	_, _, err = c.Process(context.Background(), "rotate-pdf", []File{{Name: "a.pdf", Body: io.MultiReader(strings.NewReader("%PDF"))}}, ProcessOptions{})
	if err == nil || len(r.requests) != 1 {
		t.Fatalf("an unseekable upload: %v after %d requests, want the network error after 1", err, len(r.requests))
	}
}

// TestRetryBounds: a Retry-After past MaxWait, a code that is not
// retried, and the attempts bound all end in the server's Problem.
func TestRetryBounds(t *testing.T) {
	cases := []struct {
		name     string
		answer   http.HandlerFunc
		retry    Retry
		requests int
		code     string
	}{
		{"quota to the month's end", problem(429, "quota_exceeded", "86400"), DefaultRetry, 1, "quota_exceeded"},
		{"not retryable", problem(400, "invalid_parameter", ""), DefaultRetry, 1, "invalid_parameter"},
		{"attempts", problem(429, "rate_limited", "1"), Retry{MaxAttempts: 2, MaxWait: time.Minute}, 2, "rate_limited"},
		{"no retry", problem(503, "service_unavailable", "1"), NoRetry, 1, "service_unavailable"},
	}
	for _, tc := range cases {
		r, c := start(t, tc.answer)
		c.Retry = tc.retry
		begin := time.Now()
		_, err := c.Account(context.Background())
		var p *Problem
		if !errors.As(err, &p) || string(p.Code) != tc.code || len(r.requests) != tc.requests {
			t.Errorf("%s: %v after %d requests, want %s after %d", tc.name, err, len(r.requests), tc.code, tc.requests)
			continue
		}
		if p.RequestID != "req_1" || (tc.code == "quota_exceeded" && (p.RetryAfter != 24*time.Hour || time.Since(begin) > time.Second)) {
			t.Errorf("%s: %+v after %v", tc.name, p, time.Since(begin))
		}
		if strings.HasPrefix(err.Error(), "docmill") {
			t.Errorf("%s: error %q carries a program prefix", tc.name, err)
		}
	}

	// A canceled context ends the wait at once.
	_, c := start(t, problem(429, "rate_limited", "30"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	begin := time.Now()
	if _, err := c.Account(ctx); err == nil || time.Since(begin) > 5*time.Second {
		t.Errorf("canceled wait: %v after %v", err, time.Since(begin))
	}
}

// TestAwait: Await long-polls (?wait=N, N bounded by PollWait and the
// timeout), shows each poll to OnPoll and ends with the finished job.
func TestAwait(t *testing.T) {
	r, c := start(t, jobAnswer(200, jobBodies[1]), jobAnswer(200, jobBodies[1]), jobAnswer(200, jobBodies[0]))
	var seen []string
	j, err := c.Await(context.Background(), "job_x", WaitOptions{PollWait: 5 * time.Second, OnPoll: func(j *Job) { seen = append(seen, string(j.Status)) }})
	if err != nil || j.Status != "done" {
		t.Fatalf("%+v %v", j, err)
	}
	if strings.Join(seen, ",") != "queued,queued,done" {
		t.Errorf("polls saw %v", seen)
	}
	for _, req := range r.requests {
		if req.URL.Path != "/v1/jobs/job_x" || req.URL.Query().Get("wait") != "5" {
			t.Errorf("poll %s, want /v1/jobs/job_x?wait=5", req.URL)
		}
	}
}
