package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// childArgsEnv carries the arguments of `run` when the test binary is
// re-executed as a docmill server process (for restart, kill -9 and RSS
// tests, which need a process of their own).
const childArgsEnv = "DOCMILL_E2E_CHILD_ARGS"

func TestMain(m *testing.M) {
	// The server re-executes its own binary, here this test binary, as
	// the PDF helper: `docmill engine pdf`.
	if len(os.Args) > 1 && os.Args[1] == "engine" {
		if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "docmill:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if raw := os.Getenv(childArgsEnv); raw != "" {
		var args []string
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		var stdout io.Writer = os.Stdout
		if !isTerminal(stdout) {
			stdout = consoleStandIn{stdout} // the tests read the dev key
		}
		err := run(ctx, args, os.Getenv, os.Stdin, stdout, os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "docmill:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if stamped.dir != "" {
		os.RemoveAll(stamped.dir)
	}
	os.Exit(code)
}

// corpus returns the path of a file of the corpus of real-world files,
// read only from the directory DOCMILL_CORPUS names, skipping t when it
// is unset (toolstest.Corpus). A test of the service that just needs some
// PDF sends onePagePDF() or fourPagePDF instead.
func corpus(t testing.TB, parts ...string) string {
	t.Helper()
	return toolstest.Corpus(t, parts...)
}

// testServer is a docmill server started for a test, in-process or as a
// child process.
type testServer struct {
	URL     string
	DataDir string
	DevKey  string
	out     *lineLog
	cancel  context.CancelFunc // in-process
	done    chan error         // in-process
	cmd     *exec.Cmd          // child
}

// lineLog collects a server's stdout and lets a test wait for a line.
type lineLog struct {
	mu    sync.Mutex
	lines []string
	cond  *sync.Cond
}

func newLineLog(r io.Reader) *lineLog {
	l := &lineLog{}
	l.cond = sync.NewCond(&l.mu)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, sc.Text())
			l.cond.Broadcast()
			l.mu.Unlock()
		}
		l.mu.Lock()
		l.lines = append(l.lines, "<eof>")
		l.cond.Broadcast()
		l.mu.Unlock()
	}()
	return l
}

// await returns the first submatch of the first line matching re.
func (l *lineLog) await(t testing.TB, re *regexp.Regexp, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	// Wakes the wait below at its deadline.
	wake := time.AfterFunc(timeout, func() { l.mu.Lock(); l.cond.Broadcast(); l.mu.Unlock() })
	defer wake.Stop()
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := 0; ; {
		for ; i < len(l.lines); i++ {
			if l.lines[i] == "<eof>" {
				t.Fatalf("server output ended before %s; output:\n%s", re, strings.Join(l.lines, "\n"))
			}
			if m := re.FindStringSubmatch(l.lines[i]); m != nil {
				return m[len(m)-1]
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no line matching %s within %s; output:\n%s", re, timeout, strings.Join(l.lines, "\n"))
		}
		l.cond.Wait()
	}
}

var (
	servingRE = regexp.MustCompile(`serving on (https?://[^\s,]+)`)
	keyRE     = regexp.MustCompile(`^(dm_live_[0-9A-Za-z]{32})$`)
)

// databases maps a data directory to the PostgreSQL URL that the servers
// and commands of that directory use (see postgresDir); the data of a
// directory not in it is in SQLite.
var databases sync.Map

// dataDirFunc makes a fresh data directory for a test: sqliteDir, or
// postgresDir for the same test on PostgreSQL.
type dataDirFunc func(t testing.TB) string

// sqliteDir is a data directory whose metadata is in SQLite.
func sqliteDir(t testing.TB) string { return t.TempDir() }

// dataArgs are the flags that locate dataDir's data.
func dataArgs(dataDir string) []string {
	args := []string{"--data-dir", dataDir}
	if u, ok := databases.Load(dataDir); ok {
		args = append(args, "--database-url", u.(string))
	}
	return args
}

// serveArgs are the flags of a test server. On PostgreSQL it migrates at
// start-up (--migrate), as nodes started at once may all do.
func serveArgs(dataDir string, extra []string) []string {
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--log-level", "warn"}, dataArgs(dataDir)...)
	if _, ok := databases.Load(dataDir); ok {
		args = append(args, "--migrate")
	}
	return append(args, extra...)
}

// startTimeout bounds a test server's start. Generous: tests run in
// parallel (make test's -parallel) start many servers at once, each child
// process asking every engine its version.
const startTimeout = 3 * time.Minute

// starting bounds how many test servers start at once: a start is work
// for the CPU (a child asks every engine its version), and a few at a
// time each start sooner than all of them together.
var starting = make(chan struct{}, 3)

// awaitServing waits, its caller holding one of the start slots, for s
// to say it serves, and sets its URL and dev key.
func (s *testServer) awaitServing(t testing.TB) {
	t.Helper()
	s.URL = s.out.await(t, servingRE, startTimeout)
	s.DevKey = s.findDevKey()
}

// startServer runs `docmill serve` in this process on a free port.
func startServer(t testing.TB, dataDir string, extra ...string) *testServer {
	t.Helper()
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	starting <- struct{}{}
	defer func() { <-starting }()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{DataDir: dataDir, out: newLineLog(pr), cancel: cancel, done: make(chan error, 1)}
	go func() {
		err := run(ctx, serveArgs(dataDir, extra), func(string) string { return "" }, nil, consoleStandIn{pw}, testWriter{t})
		pw.Close()
		s.done <- err
	}()
	s.awaitServing(t)
	t.Cleanup(func() { s.stop(t) })
	return s
}

// startChild runs `docmill serve` as a child process (this test binary,
// re-executed), so it can be signaled, killed and measured on its own.
func startChild(t testing.TB, dataDir string, extra ...string) *testServer {
	t.Helper()
	return startChildEnv(t, nil, dataDir, extra...)
}

// startChildEnv is startChild with env (KEY=value) added to the child's
// environment: what a parallel test cannot set with t.Setenv, such as a
// bucket's credentials.
func startChildEnv(t testing.TB, env []string, dataDir string, extra ...string) *testServer {
	t.Helper()
	cmd := childCommand(env, serveArgs(dataDir, extra))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = testWriter{t}
	starting <- struct{}{}
	defer func() { <-starting }()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &testServer{DataDir: dataDir, out: newLineLog(stdout), cmd: cmd}
	s.awaitServing(t)
	t.Cleanup(func() {
		if s.cmd.ProcessState != nil {
			return
		}
		// Stopped as an in-process server is, gracefully: the server ends
		// its engines and waits for them, so that none still writes in
		// the data directory when the test's TempDir is removed (a kill
		// leaves that to the jails' death with their parent, which comes
		// a moment later). One that does not stop within
		// childStopWait is killed.
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = s.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(childStopWait):
			_ = s.cmd.Process.Kill()
			<-done
		}
	})
	return s
}

// runChild runs a docmill command as a child process (this test binary,
// re-executed) with env (KEY=value) added to its environment, and
// returns its standard output and error: for a command that must read
// what a parallel test cannot set in this process with t.Setenv, such as
// a bucket's credentials.
func runChild(env []string, args ...string) (stdout, stderr string, err error) {
	cmd := childCommand(env, args)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// childCommand is this test binary re-executed as `docmill args...`
// (TestMain runs them), with env (KEY=value) added to its environment.
func childCommand(env, args []string) *exec.Cmd {
	raw, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), childArgsEnv+"="+string(raw))
	return cmd
}

// childStopWait bounds a child server's graceful stop at a test's end.
const childStopWait = 20 * time.Second

func (s *testServer) findDevKey() string {
	s.out.mu.Lock()
	defer s.out.mu.Unlock()
	for _, l := range s.out.lines {
		if m := keyRE.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}

// stop shuts the server down gracefully (SIGTERM for a child).
func (s *testServer) stop(t testing.TB) {
	t.Helper()
	if s.cmd != nil {
		if s.cmd.ProcessState != nil {
			return
		}
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		if err := s.cmd.Wait(); err != nil {
			t.Errorf("server exited badly after SIGTERM: %v", err)
		}
		return
	}
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("server stopped with error: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Error("server did not stop within 60 s")
	}
}

// kill sends SIGKILL to a child server.
func (s *testServer) kill(t testing.TB) {
	t.Helper()
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	_ = s.cmd.Wait()
}

// client returns a client of s that never retries, so that tests see
// every answer (a 429, a 503) as the server gave it.
func (s *testServer) client(key string) *client.Client {
	c := client.New(s.URL, key)
	c.Retry = client.NoRetry
	return c
}

// runCLI runs a docmill command in-process and returns its stdout.
func runCLI(t testing.TB, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	if err := run(context.Background(), args, func(string) string { return "" }, nil, &out, testWriter{t}); err != nil {
		t.Fatalf("docmill %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// newKey creates an account with `docmill accounts create` and returns its key.
func newKey(t testing.TB, dataDir, plan string, extra ...string) string {
	t.Helper()
	args := append([]string{"accounts", "create"}, dataArgs(dataDir)...)
	out := runCLI(t, append(append(args, "--plan", plan, "--name", t.Name()), extra...)...)
	for _, l := range strings.Split(out, "\n") {
		if m := keyRE.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			return m[1]
		}
	}
	t.Fatalf("no key in output:\n%s", out)
	return ""
}

// consoleStandIn is a test server's stdout, read by the test as a person
// reads a terminal: the server prints its dev key there (isConsole).
type consoleStandIn struct{ io.Writer }

func (consoleStandIn) IsConsole() bool { return true }

// testWriter sends a server's log to the test log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("%s", bytes.TrimRight(p, "\n"))
	return len(p), nil
}

// file opens a corpus file for upload.
func file(t testing.TB, parts ...string) client.File {
	t.Helper()
	f, err := os.Open(corpus(t, parts...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return client.File{Name: filepath.Base(f.Name()), Body: f}
}

// send sends req with the default client and returns the response with
// its body, read and closed.
func send(t testing.TB, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body) // a short body fails the caller's check
	return resp, b
}

// download fetches a result URL and returns its bytes.
func download(t testing.TB, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("download %s: %d %s", url, resp.StatusCode, b)
	}
	return b
}

// accountUsage returns the usage part of c's account document.
func accountUsage(ctx context.Context, t testing.TB, c *client.Client) client.AccountUsage {
	t.Helper()
	acct, err := c.Account(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return acct.Usage
}

// apiErrorDetail asserts what apiError does, and that the error's detail
// contains part.
func apiErrorDetail(t testing.TB, err error, status int, code, part string) *client.Problem {
	t.Helper()
	e := apiError(t, err, status, code)
	if !strings.Contains(e.Detail, part) {
		t.Fatalf("detail %q, want it to contain %q", e.Detail, part)
	}
	return e
}

// apiError asserts err is a docmill error with status and code.
func apiError(t testing.TB, err error, status int, code string) *client.Problem {
	t.Helper()
	e, ok := err.(*client.Problem)
	if !ok {
		t.Fatalf("want %d %s, got %v", status, code, err)
	}
	if e.StatusCode != status || string(e.Code) != code {
		t.Fatalf("want %d %s, got %d %s: %s", status, code, e.StatusCode, e.Code, e.Detail)
	}
	if e.RequestID == "" || e.Type == "" || e.Title == "" {
		t.Fatalf("problem body lacks request_id/type/title: %+v", e)
	}
	if ct := e.Header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("error Content-Type %q", ct)
	}
	return e
}
