package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/internal/testserver"
	"github.com/docmill/docmill/tools/toolstest"
)

// runCLIAll runs a docmill command in-process with ctx and returns its
// stdout, its stderr and its error.
func runCLIAll(ctx context.Context, args ...string) (string, string, error) {
	var out, errOut testserver.Buffer
	err := run(ctx, args, func(string) string { return "" }, nil, &out, &errOut)
	return out.String(), errOut.String(), err
}

// TestHelp: -h and --help print the usage on stdout and succeed, for
// every command and sub-command; a bad flag is an error that says how to
// get the usage, with no "docmill:" of its own.
func TestHelp(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-h"}, {"--help"}, {"help"},
		{"serve", "-h"}, {"serve", "--help"}, {"migrate", "-h"},
		{"accounts", "-h"}, {"accounts", "--help"}, {"accounts", "create", "-h"}, {"accounts", "list", "-h"}, {"accounts", "show", "-h"},
		{"accounts", "suspend", "-h"}, {"accounts", "resume", "-h"}, {"accounts", "delete", "--help"}, {"accounts", "revoke-key", "--help"}, {"accounts", "set-plan", "-h"},
		{"process", "-h"}, {"process", "rotate-pdf", "--help"}, {"tools", "-h"}, {"tools", "--help"},
		{"jobs", "-h"}, {"jobs", "list", "-h"}, {"jobs", "get", "-h"}, {"jobs", "wait", "--help"}, {"jobs", "cancel", "-h"}, {"jobs", "download", "-h"}, {"version", "-h"},
		{"keys", "-h"}, {"keys", "list", "-h"}, {"keys", "create", "--help"}, {"keys", "rename", "-h"}, {"keys", "revoke", "-h"},
	} {
		out, errOut, err := runCLIAll(context.Background(), args...)
		if err != nil || !strings.Contains(strings.ToLower(out), "usage") || errOut != "" {
			t.Errorf("docmill %s: %v, stdout %q, stderr %q", strings.Join(args, " "), err, out, errOut)
		}
	}
	_, _, err := runCLIAll(context.Background(), "process", "--frobnicate", "rotate-pdf", "a.pdf")
	if err == nil || !strings.Contains(err.Error(), "docmill process -h") || strings.HasPrefix(err.Error(), "docmill") {
		t.Errorf("a bad flag: %v", err)
	}
	for _, args := range [][]string{{"process", "rotate-pdf", "a.pdf"}, {"jobs", "list"}, {"jobs", "get", "job_x"}, {"keys", "list"}, {"keys", "revoke", "dm_live_AbCd"}} {
		if _, _, err := runCLIAll(context.Background(), args...); err == nil || !strings.Contains(err.Error(), "DOCMILL_KEY") {
			t.Errorf("docmill %s without a key: %v", strings.Join(args, " "), err)
		}
	}
}

// cliServer starts a server and returns it, the flags that reach it with
// key, and a directory holding a generated 1-page PDF as a.pdf.
func cliServer(t *testing.T) (*testServer, string, string) {
	t.Helper()
	s := startServer(t, "")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.pdf"), onePagePDF(), 0o644); err != nil {
		t.Fatal(err)
	}
	return s, s.DevKey, dir
}

// getBody returns the API's body of GET path with key.
func getBody(t *testing.T, s *testServer, key, path string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, b := send(t, req)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return b
}

var savedRE = regexp.MustCompile(`(?m)^saved (\S+) \(.+, job (job_[a-z0-9]+)\)$`)

// TestCLIProcess: flags after the file, the result saved next to its
// input, plain progress lines on a pipe, no silent overwrite, --json equal
// to the API's body, --async without absent fields, batches, the catalogue
// with types, defaults and choices, and errors named once.
func TestCLIProcess(t *testing.T) {
	t.Parallel()
	s, key, dir := cliServer(t)
	ctx := context.Background()
	in := filepath.Join(dir, "a.pdf")
	conn := []string{"--url", s.URL, "--key", key}

	out, errOut, err := runCLIAll(ctx, append([]string{"process", "rotate-pdf", in, "-p", "angle=180"}, conn...)...)
	m := savedRE.FindStringSubmatch(out)
	if err != nil || m == nil || m[1] != filepath.Join(dir, "a-rotated.pdf") {
		t.Fatalf("process with flags after the file: %v\nstdout %s\nstderr %s", err, out, errOut)
	}
	if b, err := os.ReadFile(m[1]); err != nil || pdfPages(t, b)[0] != 180 {
		t.Fatalf("the saved result: %v", err)
	}
	for _, want := range []string{"uploading a.pdf (", "a.pdf: job " + m[2] + " done in "} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.ContainsAny(errOut, "\r\x1b") || strings.Contains(errOut, "%") {
		t.Errorf("stderr on a pipe has terminal output:\n%q", errOut)
	}

	// An existing result is not overwritten without --force.
	_, _, err = runCLIAll(ctx, append([]string{"process", "rotate-pdf", in}, conn...)...)
	if err == nil || !strings.Contains(err.Error(), "a-rotated.pdf exists; --force overwrites it") {
		t.Errorf("overwrite without --force: %v", err)
	}
	_, _, err = runCLIAll(ctx, append([]string{"process", "-o", in, "rotate-pdf", in}, conn...)...)
	if err == nil || !strings.Contains(err.Error(), "a.pdf exists") {
		t.Errorf("-o naming an existing file: %v", err)
	}
	if out, _, err := runCLIAll(ctx, append([]string{"process", "--force", "rotate-pdf", in}, conn...)...); err != nil || !savedRE.MatchString(out) {
		t.Errorf("--force: %v %s", err, out)
	}

	// --json prints the API's own body; --async leaves absent fields out.
	out, _, err = runCLIAll(ctx, append([]string{"process", "--json", "-o", filepath.Join(dir, "j.pdf"), "rotate-pdf", in}, conn...)...)
	var j client.Job
	if err != nil || json.Unmarshal([]byte(out), &j) != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if api := getBody(t, s, key, "/v1/jobs/"+j.JobID); string(api) != out {
		t.Errorf("--json printed\n%s\nthe API's body is\n%s", out, api)
	}
	out, _, err = runCLIAll(ctx, append([]string{"process", "--async", "--json", "rotate-pdf", in}, conn...)...)
	if err != nil || !strings.Contains(out, `"status": "queued"`) || strings.Contains(out, "null,") || strings.Contains(out, "expired") || strings.Contains(out, `"result"`) {
		t.Errorf("--async --json: %v\n%s", err, out)
	}

	// One job per file for a one-file tool, each result in -o DIR.
	var files []string
	for _, name := range []string{"b.pdf", "c.pdf", "d.pdf"} {
		b, _ := os.ReadFile(in)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	outDir := filepath.Join(t.TempDir(), "out")
	out, errOut, err = runCLIAll(ctx, append(append([]string{"process", "rotate-pdf", "-o", outDir}, files...), conn...)...)
	if err != nil || len(savedRE.FindAllString(out, -1)) != 3 {
		t.Fatalf("batch: %v\nstdout %s\nstderr %s", err, out, errOut)
	}
	for _, name := range []string{"b-rotated.pdf", "c-rotated.pdf", "d-rotated.pdf"} {
		if _, err := os.Stat(filepath.Join(outDir, name)); err != nil {
			t.Errorf("batch: %v", err)
		}
	}
	// Several files for a tool that takes several are one job.
	out, _, err = runCLIAll(ctx, append([]string{"process", "merge-pdf", files[0], files[1], "-o", filepath.Join(dir, "m.pdf")}, conn...)...)
	if err != nil || len(savedRE.FindAllString(out, -1)) != 1 {
		t.Errorf("merge: %v %s", err, out)
	}

	// The catalogue: types, defaults, choices, bounds.
	out, _, err = runCLIAll(ctx, "tools", "--url", s.URL)
	for _, want := range []string{"rotate-pdf: ", "angle", "integer", "default 90", "90|180|270", "merge-pdf: Merge PDF (2-50 files)", "1..100"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("tools lacks %q: %v\n%s", want, err, out)
		}
	}

	// The server's refusal, named once.
	_, _, err = runCLIAll(ctx, append([]string{"process", "rotate-pdf", in, "-p", "angle=45", "--force"}, conn...)...)
	if err == nil || strings.Count(err.Error(), "invalid_parameter") != 1 || strings.Contains(err.Error(), "docmill") {
		t.Errorf("a refused parameter: %v", err)
	}
}

// TestCLIRetry429: a process call refused 429 (jobs in flight) waits out
// Retry-After and goes through once a slot frees; a batch keeps within
// the plan's in-flight limit, so it is never refused.
func TestCLIRetry429(t *testing.T) {
	// Wait-bound (Retry-After); the server, key and page are its own.
	t.Parallel()
	s := startServer(t, "", "--allow-private-urls") // the blocker's page is on loopback
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.pdf"), onePagePDF(), 0o644); err != nil {
		t.Fatal(err)
	}
	key := newKey(t, s.DataDir, "custom", "--in-flight", "1")
	c := s.client(key)
	ctx := context.Background()
	long := startBlocker(t, c)
	var err error
	// The long job holds the only slot until the CLI has been refused
	// 429 (its stderr says so), then frees it: an event, not a clock.
	var outBuf, errBuf testserver.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"process", "--url", s.URL, "--key", key, "rotate-pdf", filepath.Join(dir, "a.pdf")},
			func(string) string { return "" }, nil, &outBuf, &errBuf)
	}()
	eventually(t, 30*time.Second, "the CLI refused 429 behind the long job", func() bool {
		return strings.Contains(errBuf.String(), "429 rate_limited")
	})
	if _, err := c.CancelJob(ctx, long.JobID); err != nil {
		t.Fatal(err)
	}
	err = <-done
	out, errOut := outBuf.String(), errBuf.String()
	if err != nil || !savedRE.MatchString(out) {
		t.Fatalf("process behind a full in-flight slot: %v\n%s\n%s", err, out, errOut)
	}
	if !strings.Contains(errOut, "429 rate_limited") || !strings.Contains(errOut, "trying again in 1s") {
		t.Errorf("stderr does not say why it waited:\n%s", errOut)
	}

	var files []string
	for _, name := range []string{"b.pdf", "c.pdf", "d.pdf", "e.pdf"} {
		b, _ := os.ReadFile(filepath.Join(dir, "a.pdf"))
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	out, errOut, err = runCLIAll(ctx, append([]string{"process", "--url", s.URL, "--key", key, "-p", "angle=270", "rotate-pdf"}, files...)...)
	if err != nil || len(savedRE.FindAllString(out, -1)) != 4 || strings.Contains(errOut, "429") {
		t.Errorf("batch at one job in flight: %v\n%s\n%s", err, out, errOut)
	}
}

// TestCLIInterrupt: Ctrl-C (the context of run canceled) while a long
// job waits, with --cancel-on-interrupt, cancels the job on the server
// and names it (without it the job goes on: TestCLIRetriesAndExitCodes).
func TestCLIInterrupt(t *testing.T) {
	// Wait-bound (url-to-pdf is answered 202 only after the sync wait of
	// 10 s); the server and the page are its own.
	t.Parallel()
	s := startServer(t, "", "--allow-private-urls") // the stalled page is on loopback
	key := s.DevKey
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut testserver.Buffer
	done := make(chan error, 1)
	// The job is startBlocker's: it runs for tens of seconds on next to no CPU.
	args := []string{"process", "--url", s.URL, "--key", key, "--cancel-on-interrupt", "-p", "url=" + stalledPage(t), "-p", "wait_for=" + blockerWaitFor, "url-to-pdf"}
	go func() {
		done <- run(ctx, args, func(string) string { return "" }, nil, &out, &errOut)
	}()
	idRE := regexp.MustCompile(`job (job_[a-z0-9]+) (queued|processing)`)
	var id string
	poll.Until(t, 30*time.Second, func() (bool, string) {
		if m := idRE.FindStringSubmatch(errOut.String()); m != nil {
			id = m[1]
		}
		return id != "", "no job line on stderr:\n" + errOut.String()
	})
	if id == "" {
		t.Fatalf("no job line on stderr:\n%s", errOut.String())
	}
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(15 * time.Second):
		t.Fatal("process did not end within 15 s of Ctrl-C")
	}
	if err == nil || !strings.Contains(err.Error(), "interrupted; job "+id+" canceled") {
		t.Fatalf("after Ctrl-C: %v\n%s", err, errOut.String())
	}
	j, err := s.client(key).Job(context.Background(), id)
	if err != nil || j.Status != "canceled" {
		t.Fatalf("the job after Ctrl-C: %+v %v", j, err)
	}
}

// TestCLIProgressTTY: on a terminal, process draws bars for the upload
// and the download and a spinner for the wait (on a pipe it writes plain
// lines: TestCLIProcess).
func TestCLIProgressTTY(t *testing.T) {
	t.Parallel()
	s, key, dir := cliServer(t)
	ptmx, tty, err := pty.Open()
	if err != nil {
		toolstest.NeedCapability(t, "open a pseudo-terminal", err)
	}
	defer ptmx.Close()
	var screen testserver.Buffer
	read := make(chan struct{})
	go func() { io.Copy(&screen, ptmx); close(read) }()
	var out bytes.Buffer
	err = run(context.Background(), []string{"process", "--url", s.URL, "--key", key, "-p", "lang=eng", "ocr-pdf", filepath.Join(dir, "a.pdf")},
		func(string) string { return "" }, nil, &out, tty)
	tty.Close()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-read:
	case <-time.After(5 * time.Second):
	}
	got := screen.String()
	for _, want := range []string{"uploading a.pdf", "% |", "downloading a.pdf", "\r\x1b[K", " queued [", "a.pdf: job job_"} {
		if !strings.Contains(got, want) {
			t.Errorf("the terminal lacks %q:\n%q", want, got)
		}
	}
	if !savedRE.MatchString(out.String()) || strings.ContainsAny(out.String(), "\r\x1b") {
		t.Errorf("stdout: %q", out.String())
	}

	// A batch: its jobs' lines above a spinner that counts them.
	ptmx, tty, err = pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var batchScreen testserver.Buffer
	read = make(chan struct{})
	go func() { io.Copy(&batchScreen, ptmx); close(read) }()
	b, _ := os.ReadFile(filepath.Join(dir, "a.pdf"))
	if err := os.WriteFile(filepath.Join(dir, "b.pdf"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = run(context.Background(), []string{"process", "--url", s.URL, "--key", key, "-o", t.TempDir(), "rotate-pdf", filepath.Join(dir, "a.pdf"), filepath.Join(dir, "b.pdf")},
		func(string) string { return "" }, nil, &out, tty)
	tty.Close()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-read:
	case <-time.After(5 * time.Second):
	}
	got = batchScreen.String()
	for _, want := range []string{"of 2 files done", "\r\x1b[Ka.pdf: job job_", "\r\x1b[Kb.pdf: job job_"} {
		if !strings.Contains(got, want) {
			t.Errorf("the batch's terminal lacks %q:\n%q", want, got)
		}
	}
	if len(savedRE.FindAllString(out.String(), -1)) != 2 {
		t.Errorf("batch stdout: %q", out.String())
	}
}

// TestClientIdempotentRetry: a process call whose answer is lost on the
// way back (the connection drops after the server has made the job) is
// sent again by the client with the same generated Idempotency-Key, and
// the real server answers with the first job, charged once.
func TestClientIdempotentRetry(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	target, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var keys []string
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			proxy.ServeHTTP(w, r)
			return
		}
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		first := len(keys) == 1
		mu.Unlock()
		if !first {
			proxy.ServeHTTP(w, r)
			return
		}
		// The server gets the whole request and answers; the client
		// never hears it.
		rec := httptest.NewRecorder()
		proxy.ServeHTTP(rec, r)
		if rec.Code != http.StatusOK {
			t.Errorf("first attempt: %d %s", rec.Code, rec.Body)
		}
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
	}))
	defer front.Close()

	ctx := context.Background()
	c := client.New(front.URL, s.DevKey) // retries on, as a user's client
	j, _, err := c.Process(ctx, "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{})
	if err != nil || j.Status != "done" {
		t.Fatalf("%+v %v", j, err)
	}
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] {
		t.Fatalf("idempotency keys sent: %q, want one key twice", keys)
	}
	list, err := c.ListJobs(ctx, client.ListOptions{})
	if err != nil || len(list.Jobs) != 1 || list.Jobs[0].JobID != j.JobID {
		t.Fatalf("jobs after a retried call: %+v %v, want only %s", list, err, j.JobID)
	}
	if used := accountUsage(ctx, t, s.client(s.DevKey)).OperationsUsed; used != 1 {
		t.Errorf("charged %d operations, want 1", used)
	}
}
