package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
)

// failingProxy stands between the Go client and a real server: the
// boundary its retry tests must control. It answers the first requests
// with its faults, in order (a 429 or 502 of its own, a dropped
// connection), and forwards every later request to the server as it is.
// It records what each request carried.
type failingProxy struct {
	URL    string
	mu     sync.Mutex
	faults []fault
	seen   []seenRequest
	server *httputil.ReverseProxy
}

// fault answers a request in place of the server; forward hands it on.
type fault func(w http.ResponseWriter, r *http.Request, forward http.Handler)

// seenRequest is what one request to the proxy carried.
type seenRequest struct {
	method, path, wait, key, body string
	at                            time.Time
	// discarded is the server's answer a fault forwarded and then did
	// not pass on (forwardThenHangUp).
	discarded []byte
}

func newFailingProxy(t testing.TB, target string, faults ...fault) *failingProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &failingProxy{faults: faults, server: httputil.NewSingleHostReverseProxy(u)}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// client is a Go client of the server behind p, with key and the
// client's default retries.
func (p *failingProxy) client(key string) *client.Client { return client.New(p.URL, key) }

func (p *failingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	p.mu.Lock()
	n := len(p.seen)
	p.seen = append(p.seen, seenRequest{method: r.Method, path: r.URL.Path, wait: r.URL.Query().Get("wait"),
		key: r.Header.Get("Idempotency-Key"), body: string(body), at: time.Now()})
	var f fault
	if n < len(p.faults) {
		f = p.faults[n]
	}
	p.mu.Unlock()
	if f == nil {
		p.server.ServeHTTP(w, r)
		return
	}
	f(w, r, p.server)
}

// requests returns what the proxy has seen so far.
func (p *failingProxy) requests() []seenRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]seenRequest(nil), p.seen...)
}

// proxyProblem answers as a proxy or an overloaded server would: a
// problem+json of status and code (none for a bare gateway error), with
// Retry-After when given.
func proxyProblem(status int, code, retryAfter string) fault {
	return func(w http.ResponseWriter, _ *http.Request, _ http.Handler) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(status)
		io.WriteString(w, `{"type":"https://docmill.dev/errors/`+code+`","title":"t","status":`+strconv.Itoa(status)+
			`,"detail":"from the failing proxy","code":"`+code+`","request_id":"req_proxy"}`)
	}
}

// hangUp drops the connection without an answer: a network error before
// the server saw the request.
func hangUp(w http.ResponseWriter, _ *http.Request, _ http.Handler) {
	if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
		conn.Close()
	}
}

// forwardThenHangUp lets the server act on the request, then drops the
// connection before its answer reaches the client, keeping the answer
// in the proxy's record: the case idempotency keys exist for.
func (p *failingProxy) forwardThenHangUp(w http.ResponseWriter, r *http.Request, forward http.Handler) {
	rec := httptest.NewRecorder()
	forward.ServeHTTP(rec, r)
	p.mu.Lock()
	p.seen[len(p.seen)-1].discarded = rec.Body.Bytes() // the client sends one request at a time
	p.mu.Unlock()
	hangUp(w, r, forward)
}
