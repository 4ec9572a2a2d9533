package client

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// TestRetryServerFailures: a 502, 503 or 504 without Retry-After and a
// 500 internal are retried after a backoff that jitter shortens by up to
// half (0.25-0.5 s before the second attempt); a 500 of another code is
// not retried; a POST that creates something without an Idempotency-Key
// (a key) is never sent twice after the server may have acted on it, a
// network error included.
func TestRetryServerFailures(t *testing.T) {
	ok := jobAnswer(200, `{"account_id":"acct_1","key":"dm_live_x"}`)
	for _, tc := range []struct {
		name     string
		first    http.HandlerFunc
		post     bool
		requests int
	}{
		{"502", problem(502, "", ""), false, 2},
		{"503 without Retry-After", problem(503, "service_unavailable", ""), false, 2},
		{"504", problem(504, "", ""), false, 2},
		{"500 internal", problem(500, "internal", ""), false, 2},
		{"500 of another code", problem(500, "engine_crashed", ""), false, 1},
		{"502 to a new key", problem(502, "", ""), true, 1},
		{"network error on a new key", hangUp, true, 1},
		{"429 to a new key", problem(429, "rate_limited", "1"), true, 2},
	} {
		r, c := start(t, tc.first, ok)
		var events []RetryEvent
		c.Retry.OnRetry = func(e RetryEvent) { events = append(events, e) }
		var err error
		if tc.post {
			_, err = c.CreateKey(context.Background(), "ci")
		} else {
			_, err = c.Account(context.Background())
		}
		if len(r.requests) != tc.requests || (tc.requests == 2) != (err == nil) {
			t.Errorf("%s: %d requests, %v; want %d", tc.name, len(r.requests), err, tc.requests)
		}
		if tc.requests == 2 && !tc.post && (len(events) != 1 || events[0].Wait < 250*time.Millisecond || events[0].Wait > 500*time.Millisecond) {
			t.Errorf("%s: retry events %+v, want one wait of 0.25-0.5 s", tc.name, events)
		}
	}
}
