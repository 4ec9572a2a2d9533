package main

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
)

// clientRetryBounds: a Retry-After past MaxWait (the server's own quota
// answer, to the month's end), a code that is not retried (the server's
// own 400), the attempts bound and NoRetry all end in the Problem,
// after one request each but the attempts'.
func clientRetryBounds(t *testing.T, srv *testServer, key, oneOp string) {
	ctx := t.Context()
	one := []client.File{pdfFile("a.pdf", onePagePDF())}
	p := newFailingProxy(t, srv.URL)
	if _, _, err := p.client(oneOp).Process(ctx, "rotate-pdf", one, client.ProcessOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _, err := p.client(oneOp).Process(ctx, "rotate-pdf", []client.File{pdfFile("a.pdf", onePagePDF())}, client.ProcessOptions{})
	var pr *client.Problem
	if !errors.As(err, &pr) || pr.Code != "quota_exceeded" || pr.RetryAfter <= client.DefaultRetry.MaxWait || len(p.requests()) != 2 {
		t.Errorf("quota to the month's end: %v after %d requests (one the first job's)", err, len(p.requests()))
	}

	p = newFailingProxy(t, srv.URL)
	_, _, err = p.client(key).Process(ctx, "rotate-pdf", []client.File{pdfFile("a.pdf", onePagePDF())}, client.ProcessOptions{Params: map[string]string{"angle": "45"}})
	if !errors.As(err, &pr) || pr.Code != "invalid_parameter" || pr.StatusCode != 400 || pr.RequestID == "" || len(p.requests()) != 1 {
		t.Errorf("not retryable: %v after %d requests", err, len(p.requests()))
	}
	if strings.HasPrefix(err.Error(), "docmill") {
		t.Errorf("error %q carries a program prefix", err)
	}

	for _, tc := range []struct {
		name     string
		faults   []fault
		retry    client.Retry
		requests int
		code     string
	}{
		{"attempts", []fault{proxyProblem(429, "rate_limited", "1"), proxyProblem(429, "rate_limited", "1")}, client.Retry{MaxAttempts: 2, MaxWait: time.Minute}, 2, "rate_limited"},
		{"no retry", []fault{proxyProblem(503, "service_unavailable", "1")}, client.NoRetry, 1, "service_unavailable"},
	} {
		p := newFailingProxy(t, srv.URL, tc.faults...)
		c := p.client(key)
		c.Retry = tc.retry
		_, err := c.Account(ctx)
		if !errors.As(err, &pr) || string(pr.Code) != tc.code || pr.RequestID != "req_proxy" || len(p.requests()) != tc.requests {
			t.Errorf("%s: %v after %d requests, want %s after %d", tc.name, err, len(p.requests()), tc.code, tc.requests)
		}
	}

	// A canceled context ends the wait: the call returns the 429 it was
	// waiting out, after one request (had it waited the 30 s, its second
	// request would have reached the server and succeeded).
	p = newFailingProxy(t, srv.URL, proxyProblem(429, "rate_limited", "30"))
	cctx, cancel := context.WithCancel(ctx)
	c := p.client(key)
	c.Retry.OnRetry = func(client.RetryEvent) { cancel() }
	_, err = c.Account(cctx)
	if !errors.As(err, &pr) || pr.Code != "rate_limited" || len(p.requests()) != 1 {
		t.Errorf("canceled wait: %v after %d requests, want the 429 after 1", err, len(p.requests()))
	}

	// A proxy's bare answer (no problem body) keeps the X-Request-Id the
	// proxy passed on.
	p = newFailingProxy(t, srv.URL, func(w http.ResponseWriter, _ *http.Request, _ http.Handler) {
		w.Header().Set("X-Request-Id", "req_header")
		http.Error(w, "bad gateway", http.StatusBadGateway)
	})
	c = p.client(key)
	c.Retry = client.NoRetry
	if _, err = c.Account(ctx); !errors.As(err, &pr) || pr.StatusCode != 502 || pr.RequestID != "req_header" || pr.Detail != "bad gateway" {
		t.Errorf("a bare 502: %+v, want its X-Request-Id and text", err)
	}
}

// clientRetryServerFailures: a 408, a 502, 503 or 504 without
// Retry-After and a 500 internal or worker_lost are retried after a
// backoff that jitter shortens by up to half (0.25-0.5 s before the second
// attempt), a 507 after its Retry-After, then answered by the server; a
// 500 of another code is not retried; a POST that creates
// something without an Idempotency-Key (a key) is never sent twice after
// the server may have acted on it, a network error included.
func clientRetryServerFailures(t *testing.T, srv *testServer, key string) {
	for _, tc := range []struct {
		name     string
		first    fault
		post     bool
		requests int
		after    time.Duration
	}{
		{"408", proxyProblem(408, "upload_too_slow", ""), false, 2, 0},
		{"507 with Retry-After", proxyProblem(507, "insufficient_storage", "1"), false, 2, time.Second},
		{"500 worker_lost", proxyProblem(500, "worker_lost", ""), false, 2, 0},
		{"502", proxyProblem(502, "", ""), false, 2, 0},
		{"503 without Retry-After", proxyProblem(503, "service_unavailable", ""), false, 2, 0},
		{"504", proxyProblem(504, "", ""), false, 2, 0},
		{"500 internal", proxyProblem(500, "internal", ""), false, 2, 0},
		{"500 of another code", proxyProblem(500, "engine_crashed", ""), false, 1, 0},
		{"502 to a new key", proxyProblem(502, "", ""), true, 1, 0},
		{"network error on a new key", hangUp, true, 1, 0},
		{"429 to a new key", proxyProblem(429, "rate_limited", "1"), true, 2, time.Second},
	} {
		p := newFailingProxy(t, srv.URL, tc.first)
		c := p.client(key)
		var events []client.RetryEvent
		c.Retry.OnRetry = func(e client.RetryEvent) { events = append(events, e) }
		var err error
		if tc.post {
			var k *client.NewKey
			if k, err = c.CreateKey(t.Context(), "ci"); err == nil && !strings.HasPrefix(k.APIKey, "dm_") {
				t.Errorf("%s: the server's new key %+v", tc.name, k)
			}
		} else {
			var a *client.Account
			if a, err = c.Account(t.Context()); err == nil && a.Plan == "" {
				t.Errorf("%s: the server's account %+v", tc.name, a)
			}
		}
		if n := len(p.requests()); n != tc.requests || (tc.requests == 2) != (err == nil) {
			t.Errorf("%s: %d requests, %v; want %d", tc.name, n, err, tc.requests)
		}
		if tc.requests == 2 && tc.after > 0 && (len(events) != 1 || events[0].Wait != tc.after) {
			t.Errorf("%s: retry events %+v, want one wait of %s", tc.name, events, tc.after)
		}
		if tc.requests == 2 && tc.after == 0 && (len(events) != 1 || events[0].Wait < 250*time.Millisecond || events[0].Wait > 500*time.Millisecond) {
			t.Errorf("%s: retry events %+v, want one wait of 0.25-0.5 s", tc.name, events)
		}
	}
}

// clientAwait: Await long-polls the server (?wait=N, N bounded by
// PollWait), shows each poll to OnPoll and ends with the finished job.
func clientAwait(t *testing.T, srv *testServer, key string) {
	p := newFailingProxy(t, srv.URL)
	c := p.client(key)
	j, _, err := c.Process(t.Context(), "rotate-pdf", []client.File{pdfFile("a.pdf", onePagePDF())}, client.ProcessOptions{Prefer: "respond-async"})
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	j, err = c.Await(t.Context(), j.JobID, client.WaitOptions{PollWait: 5 * time.Second, OnPoll: func(j *client.Job) { seen = append(seen, string(j.Status)) }})
	if err != nil || j.Status != "done" {
		t.Fatalf("%+v %v", j, err)
	}
	if len(seen) == 0 || seen[len(seen)-1] != "done" {
		t.Errorf("polls saw %v, want the last done", seen)
	}
	polls := p.requests()[1:]
	if len(polls) != len(seen) {
		t.Errorf("%d polls sent, %d seen by OnPoll", len(polls), len(seen))
	}
	for _, r := range polls {
		if r.path != "/v1/jobs/"+j.JobID || r.wait != "5" {
			t.Errorf("poll %s ?wait=%s, want /v1/jobs/%s?wait=5", r.path, r.wait, j.JobID)
		}
	}
}
