// Package client is the Go SDK of the docmill HTTP API: typed job records,
// accounts and tool catalogues; problem+json answers as *Problem errors;
// uploads that stream from the caller's readers (a large file is never held
// in memory) with progress callbacks; automatic, bounded retries of 429,
// 503 and 507 answers that honour Retry-After, and with backoff and jitter
// of network errors, 408, 502, 503 and 504 answers and 500 internal or
// worker_lost, with one generated Idempotency-Key per process call so
// that a retried upload is one job, charged once; long-poll waiting for
// long jobs (WaitJob); and each tool's params as a struct generated from
// the server's registry (tools_gen.go, sent by ProcessTool).
//
// The docmill CLI and the end-to-end tests use it.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/docmill/docmill"
)

// Client talks to one docmill server with one API key. Its fields may be
// changed before its first call, not during calls.
type Client struct {
	BaseURL string
	Key     string
	HTTP    *http.Client
	// Retry bounds the automatic retries of every call.
	Retry Retry
}

// New returns a client of the server at baseURL that retries as
// DefaultRetry says.
func New(baseURL, key string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Key: key, HTTP: &http.Client{}, Retry: DefaultRetry}
}

// Retry bounds a client's automatic retries. A call is retried when the
// server answers 429 (rate_limited: requests per minute or jobs in
// flight), 503 or 507 (insufficient_storage) with a Retry-After of at
// most MaxWait, after waiting that long; and after a network error, a 408
// (upload_too_slow), a 502, 503 or 504 without Retry-After (a proxy's) or
// a 500 whose code is internal or worker_lost, after 0.5 s, 1 s, 2 s, ...
// (at most MaxWait; each up to half shorter, at random), when the call
// may be repeated (an idempotent method, or an Idempotency-Key: not the
// POST that creates a key or a webhook) and is not a process call whose
// files cannot be rewound (their readers are not io.Seekers). Every attempt of a process call carries the same
// Idempotency-Key, so however many are sent, one job is created and
// charged. A Retry-After longer than MaxWait (quota_exceeded waits for
// the month's end) comes back as the error at once.
type Retry struct {
	// MaxAttempts is how many times a call is sent at most; 0 or 1: once,
	// never retried.
	MaxAttempts int
	// MaxWait is the longest wait before one retry.
	MaxWait time.Duration
	// OnRetry, when set, is called before each wait (to tell a user why
	// nothing happens for a while).
	OnRetry func(RetryEvent)
}

// RetryEvent is a retry about to happen.
type RetryEvent struct {
	// Attempt is the number of the attempt that failed (1 for the first).
	Attempt int
	// Wait is how long the client waits before the next attempt.
	Wait time.Duration
	// Err is why: a *Problem or a network error.
	Err error
}

// DefaultRetry is the Retry of New: five attempts, waits of up to a
// minute (a plan's rate window).
var DefaultRetry = Retry{MaxAttempts: 5, MaxWait: time.Minute}

// NoRetry sends every call once.
var NoRetry = Retry{MaxAttempts: 1}

// Problem is an error answer of the server (RFC 9457 problem+json).
type Problem struct {
	// StatusCode is the HTTP status of the answer.
	StatusCode int `json:"status"`
	// Header is the answer's header (Retry-After, X-Request-Id, ...).
	Header    http.Header  `json:"-"`
	Type      string       `json:"type"`
	Title     string       `json:"title"`
	Detail    string       `json:"detail"`
	Code      docmill.Code `json:"code"`
	RequestID string       `json:"request_id"`
	// JobID is set when the refusal concerns a job already created.
	JobID string `json:"job_id,omitempty"`
	// Fields names the parameters at fault, for invalid_parameter.
	Fields []FieldError `json:"errors,omitempty"`
	// RetryAfter is the answer's Retry-After (0 without one).
	RetryAfter time.Duration `json:"-"`
}

// Error says the status, the code and the detail, without a program
// prefix (the CLI adds "docmill: " once).
func (e *Problem) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("%d %s: %s", e.StatusCode, http.StatusText(e.StatusCode), e.Detail)
	}
	return fmt.Sprintf("%d %s: %s", e.StatusCode, e.Code, e.Detail)
}

// Response is the HTTP status and headers of a successful call.
type Response struct {
	StatusCode int
	Header     http.Header
}

func (c *Client) call(ctx context.Context, method, path string, out any) (*Response, error) {
	return c.do(ctx, func(int) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, method, c.BaseURL+path, nil)
	}, out)
}

// do sends the request newReq makes for each attempt (numbered from 1)
// with the key, retrying as c.Retry says, and decodes the JSON answer
// into out. newReq returns errNoRewind when the request cannot be sent
// again; the previous attempt's error is then returned.
func (c *Client) do(ctx context.Context, newReq func(attempt int) (*http.Request, error), out any) (*Response, error) {
	var last *Response
	var lastErr error
	for attempt := 1; ; attempt++ {
		req, err := newReq(attempt)
		if errors.Is(err, errNoRewind) && lastErr != nil {
			return last, lastErr
		}
		if err != nil {
			return nil, err
		}
		if c.Key != "" {
			req.Header.Set("Authorization", "Bearer "+c.Key)
		}
		resp, r, err := c.send(req)
		if err == nil {
			defer resp.Body.Close()
			if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
				return r, fmt.Errorf("decode the answer to %s %s: %w", req.Method, req.URL.Path, err)
			}
			return r, nil
		}
		wait, retry := c.retryAfter(ctx, attempt, err, repeatable(req))
		if !retry {
			return r, err
		}
		if c.Retry.OnRetry != nil {
			c.Retry.OnRetry(RetryEvent{Attempt: attempt, Wait: wait, Err: err})
		}
		select {
		case <-ctx.Done():
			return r, err
		case <-time.After(wait):
		}
		last, lastErr = r, err
	}
}

// errNoRewind says a request's body cannot be sent again.
var errNoRewind = errors.New("the request body cannot be sent again")

// repeatable reports whether req may be sent again after the server may
// have acted on it: its method is idempotent, or it carries an
// Idempotency-Key (a process call). A POST without one (a new key, a new
// webhook) would be done twice.
func repeatable(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return req.Header.Get("Idempotency-Key") != ""
}

// retryAfter says whether the failed attempt is retried, and after how
// long: a 429, 503 or 507 after its Retry-After (when at most MaxWait;
// the server refused it before doing anything); a 408 (upload_too_slow),
// a 502, 503 or 504 without one, a 500 internal or worker_lost and a
// network error after a backoff with jitter (backoff), when the request
// is repeatable. These are the Python SDK's rules (the JavaScript SDK's
// lack 408 and worker_lost).
func (c *Client) retryAfter(ctx context.Context, attempt int, err error, repeatable bool) (time.Duration, bool) {
	if attempt >= c.Retry.MaxAttempts || ctx.Err() != nil {
		return 0, false
	}
	var p *Problem
	if !errors.As(err, &p) {
		return c.backoff(attempt), repeatable
	}
	switch {
	case p.RetryAfter > 0 && (p.StatusCode == http.StatusTooManyRequests || p.StatusCode == http.StatusServiceUnavailable || p.StatusCode == http.StatusInsufficientStorage):
		return p.RetryAfter, p.RetryAfter <= c.Retry.MaxWait
	case p.StatusCode == http.StatusRequestTimeout, p.StatusCode == http.StatusBadGateway, p.StatusCode == http.StatusServiceUnavailable, p.StatusCode == http.StatusGatewayTimeout:
		return c.backoff(attempt), repeatable
	case p.StatusCode == http.StatusInternalServerError && (p.Code == docmill.CodeInternal || p.Code == docmill.CodeWorkerLost):
		return c.backoff(attempt), repeatable
	}
	return 0, false
}

// backoff is the wait after the failed attempt when the server named
// none: 0.5 s, 1 s, 2 s, ... (at most MaxWait), each less a random part
// of up to half, so that clients cut off together do not come back
// together.
func (c *Client) backoff(attempt int) time.Duration {
	d := min(500*time.Millisecond<<min(attempt-1, 16), c.Retry.MaxWait)
	if d <= 1 {
		return d
	}
	return d - rand.N(d/2)
}

// send performs req; a status of 300 or more comes back as a *Problem
// decoded from the problem body, with the body closed.
func (c *Client) send(req *http.Request) (*http.Response, *Response, error) {
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, nil, err
	}
	r := &Response{StatusCode: resp.StatusCode, Header: resp.Header}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, r, decodeProblem(resp)
	}
	return resp, r, nil
}

func decodeProblem(resp *http.Response) error {
	e := &Problem{}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err := json.Unmarshal(body, e); err != nil {
		e.Detail = strings.TrimSpace(string(body))
	}
	e.StatusCode, e.Header = resp.StatusCode, resp.Header
	if e.RequestID == "" {
		// A proxy's answer has no body of ours; the server's header may
		// still have passed through it.
		e.RequestID = resp.Header.Get("X-Request-Id")
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}

// Download fetches a result URL into w. The URL is signed, so no key is
// sent (it may point at a CDN). It is not retried: w may hold part of
// the file.
func (c *Client) Download(ctx context.Context, url string, w io.Writer) (*Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, r, err := c.send(req)
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(w, resp.Body)
	return r, err
}
