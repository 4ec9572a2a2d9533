package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/testserver"
	"github.com/docmill/docmill/tools/toolstest"
)

// faultProxy stands between the CLI and a real server, the way a load
// balancer or a flaky network would: it forwards each request, except
// that the requests its plan names get a failure instead. Faults:
// "drop-after" forwards and then cuts the connection before the answer
// (the server did the work, the client never hears of it); "drop" cuts
// it without forwarding; "500" answers a docmill-like 500 internal;
// "502" and "503" a proxy's plain-text page without Retry-After; "hold"
// keeps the request open until the client gives up (held is told);
// "async" forwards with Prefer: respond-async (the job comes back queued).
type faultProxy struct {
	target string
	held   chan string // a "hold" request's path
	mu     sync.Mutex
	plan   map[string][]string // "METHOD /path-prefix" → faults of the next matching requests
	keys   []string            // Idempotency-Key of each POST
}

// next is the fault for r ("" forwards it), taken from the plan.
func (p *faultProxy) next(r *http.Request) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r.Method == http.MethodPost {
		p.keys = append(p.keys, r.Header.Get("Idempotency-Key"))
	}
	for rule, faults := range p.plan {
		method, prefix, _ := strings.Cut(rule, " ")
		if r.Method == method && strings.HasPrefix(r.URL.Path, prefix) && len(faults) > 0 {
			p.plan[rule] = faults[1:]
			return faults[0]
		}
	}
	return ""
}

// set replaces the plan and forgets the keys seen.
func (p *faultProxy) set(plan map[string][]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.plan, p.keys = plan, nil
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fault := p.next(r)
	body, _ := io.ReadAll(r.Body) // read first: a client still sending would see a reset, not the answer
	switch fault {
	case "drop":
		cut(w)
		return
	case "500":
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"type":"https://docmill.dev/errors/internal","title":"Internal error","status":500,"code":"internal","detail":"injected","request_id":"req_proxy"}`)
		return
	case "502", "503":
		code := map[string]int{"502": http.StatusBadGateway, "503": http.StatusServiceUnavailable}[fault]
		http.Error(w, http.StatusText(code), code)
		return
	case "hold":
		p.held <- r.URL.Path
		<-r.Context().Done()
		return
	}
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, p.target+r.URL.RequestURI(), bytes.NewReader(body))
	req.Header = r.Header.Clone()
	if fault == "async" {
		req.Header.Set("Prefer", "respond-async")
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if fault == "drop-after" {
		cut(w)
		return
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

// cut closes the client's connection without an answer.
func cut(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

// cliRun runs the CLI as main does and returns its exit code, stdout and
// stderr.
func cliRun(ctx context.Context, args ...string) (int, string, string) {
	var out, errOut testserver.Buffer
	err := run(ctx, args, func(string) string { return "" }, nil, &out, &errOut)
	code := finish(ctx, args, err, &out, &errOut)
	return code, out.String(), errOut.String()
}

// lastProblem is the problem object --json printed last on stdout.
func lastProblem(t *testing.T, stdout string) cliProblem {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var p cliProblem
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &p); err != nil {
		t.Fatalf("no problem object last on stdout: %v\n%s", err, stdout)
	}
	return p
}

// TestCLIRetriesAndExitCodes drives the CLI against one real server
// through a faultProxy: a process call whose first attempt the server
// runs but whose answer is lost, then 502, then 500 internal, completes
// as one job charged once (every attempt with the same Idempotency-Key);
// Ctrl-C while waiting leaves the job running and names the commands to
// follow it, and docmill jobs download fetches it through a 503; each
// failure exits with its documented code and, with --json, prints a
// problem object. An incoming X-Request-Id is kept when well formed.
// (Go's transport itself sends a GET again once when a reused
// connection drops, so the network case drops more than twice.)
func TestCLIRetriesAndExitCodes(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	key, ctx := s.DevKey, t.Context()
	p := &faultProxy{target: s.URL, held: make(chan string, 1)}
	proxy := httptest.NewServer(p)
	defer proxy.Close()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, toolstest.FormPDF("retry"), 0o644); err != nil {
		t.Fatal(err)
	}
	via := []string{"--url", proxy.URL, "--key", key}
	used := func() int64 { return accountUsage(ctx, t, s.client(key)).OperationsUsed }
	before := used()

	p.set(map[string][]string{"POST /v1/rotate-pdf/process": {"drop-after", "502", "500"}})
	code, stdout, stderr := cliRun(ctx, append([]string{"process", "--json", "-o", filepath.Join(dir, "out.pdf"), "rotate-pdf", in}, via...)...)
	var j client.Job
	if code != exitOK || json.Unmarshal([]byte(stdout), &j) != nil || j.Status != "done" {
		t.Fatalf("process through faults: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if len(p.keys) != 4 || p.keys[0] == "" || strings.Count(strings.Join(p.keys, " "), p.keys[0]) != 4 {
		t.Errorf("Idempotency-Keys of the attempts: %q", p.keys)
	}
	if n := used(); n != before+1 {
		t.Errorf("operations used: %d after one process call through faults, want %d", n, before+1)
	}

	// Ctrl-C while the job is waited for: the job goes on.
	p.set(map[string][]string{"POST /v1/rotate-pdf/process": {"async"}, "GET /v1/jobs/": {"hold"}})
	waitCtx, interrupt := context.WithCancel(ctx)
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := cliRun(waitCtx, append([]string{"process", "rotate-pdf", in, "-o", filepath.Join(dir, "later.pdf")}, via...)...)
		done <- result{code, stderr}
	}()
	select {
	case <-p.held:
	case <-time.After(30 * time.Second):
		t.Fatal("process never polled its job")
	}
	interrupt()
	got := <-done
	m := regexp.MustCompile(`docmill jobs wait (job_\w+), then docmill jobs download (job_\w+)`).FindStringSubmatch(got.stderr)
	if got.code != exitInterrupted || m == nil || m[1] != m[2] {
		t.Fatalf("after Ctrl-C: exit %d, stderr:\n%s", got.code, got.stderr)
	}
	id := m[1]
	p.set(map[string][]string{"GET /v1/jobs/": {"503"}})
	out := filepath.Join(dir, "downloaded.pdf")
	code, stdout, stderr = cliRun(ctx, append([]string{"jobs", "download", id, "-o", out}, via...)...)
	if b, _ := os.ReadFile(out); code != exitOK || !bytes.HasPrefix(b, []byte("%PDF")) || !strings.Contains(stdout, "saved "+out) {
		t.Fatalf("jobs download through a 503: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := used(); n != before+2 {
		t.Errorf("operations used: %d after two jobs, want %d", n, before+2)
	}

	exitCases(t, p, via, id, in)
	requestIDCases(t, s.URL)
}

// exitCases checks the exit code and --json problem of each kind of
// failure through the proxy.
func exitCases(t *testing.T, p *faultProxy, via []string, id, in string) {
	for _, tc := range []struct {
		name   string
		plan   map[string][]string
		args   []string
		code   int
		status int
		pcode  string
	}{
		{"usage", nil, []string{"jobs", "get", "--json"}, exitUsage, 0, "usage"},
		{"refused", nil, []string{"process", "--json", "-p", "angle=45", "rotate-pdf", in}, exitRefused, 400, "invalid_parameter"},
		{"not found", nil, []string{"jobs", "get", "--json", "job_nope"}, exitRefused, 404, "not_found"},
		{"server failure", map[string][]string{"GET /v1/jobs/": {"502", "500"}}, []string{"jobs", "get", "--json", "--retries", "1", id}, exitServer, 500, "internal"},
		{"network failure", map[string][]string{"GET /v1/jobs/": {"drop", "drop", "drop", "drop"}}, []string{"jobs", "get", "--json", "--retries", "1", id}, exitNetwork, 0, "network_error"},
		{"no such file", nil, []string{"process", "--json", "rotate-pdf", in + ".missing"}, exitNoInput, 0, "no_input"},
	} {
		p.set(tc.plan)
		code, stdout, stderr := cliRun(t.Context(), append(tc.args, via...)...)
		if code != tc.code {
			t.Errorf("%s: exit %d, want %d\n%s", tc.name, code, tc.code, stderr)
			continue
		}
		if pr := lastProblem(t, stdout); pr.ExitCode != tc.code || pr.Status != tc.status || pr.Code != tc.pcode {
			t.Errorf("%s: problem %+v, want status %d code %s", tc.name, pr, tc.status, tc.pcode)
		}
	}
}

// requestIDCases: a well-formed X-Request-Id comes back as sent (and is
// the problem's request_id); another is replaced by one of the server's.
func requestIDCases(t *testing.T, base string) {
	for sent, kept := range map[string]bool{"trace-4.a_B": true, "has space": false, strings.Repeat("x", 129): false} {
		req, _ := http.NewRequest(http.MethodGet, base+"/v1/jobs/job_nope", nil)
		req.Header.Set("X-Request-Id", sent)
		resp, body := send(t, req)
		got := resp.Header.Get("X-Request-Id")
		var pr struct {
			RequestID string `json:"request_id"`
		}
		json.Unmarshal(body, &pr)
		if kept && (got != sent || pr.RequestID != sent) || !kept && (got == sent || !strings.HasPrefix(got, "req_") || pr.RequestID != got) {
			t.Errorf("X-Request-Id %q: answer's %q, problem's %q", sent, got, pr.RequestID)
		}
	}
}
