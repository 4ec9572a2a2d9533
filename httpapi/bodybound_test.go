package httpapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// countingListener counts the bytes the server reads from its
// connections.
type countingListener struct {
	net.Listener
	read atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, n: &l.read}, nil
}

type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// startCounting serves a on 127.0.0.1 through a countingListener.
func startCounting(t *testing.T, a *procAPI) (*httptest.Server, *countingListener) {
	t.Helper()
	srv := httptest.NewUnstartedServer(a.s)
	cl := &countingListener{Listener: srv.Listener}
	srv.Listener = cl
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, cl
}

// rawProcess opens a connection to srv and sends the header of a
// rotate-pdf process call with key and the given extra header lines
// (each ending in CRLF), and nothing of its body.
func rawProcess(t *testing.T, srv *httptest.Server, key, extra string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second)) // a guard, not a measure
	fmt.Fprintf(conn, "POST /v1/rotate-pdf/process HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: multipart/form-data; boundary=b\r\nPrefer: respond-async\r\n%s\r\n", key, extra)
	return conn, bufio.NewReader(conn)
}

// readProblem reads one answer from br and returns it with its problem's
// code (none for an answer that is not a problem).
func readProblem(t *testing.T, br *bufio.Reader) (*http.Response, docmill.Code) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	var p docmill.Problem
	if resp.Header.Get("Content-Type") == "application/problem+json" {
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
			t.Fatalf("answer %d: %v", resp.StatusCode, err)
		}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp, p.Code
}

// assertClosed checks that the server closes the connection after its
// answer (no further answer, no waiting for the rest of the body).
func assertClosed(t *testing.T, br *bufio.Reader) {
	t.Helper()
	if n, err := io.Copy(io.Discard, br); err != nil && !strings.Contains(err.Error(), "reset") {
		t.Errorf("after the refusal: %d bytes, %v; want the connection closed", n, err)
	}
}

// TestEarlyRefusal: a process call whose Content-Length is over what the
// plan allows the tool (a 100 MB plan, one file: 150 MB) is refused with
// 400 file_too_large before any of its body is read, and the connection
// is closed; with Expect: 100-continue the client gets the refusal and
// never 100 Continue. A body that could fit is not refused early.
func TestEarlyRefusal(t *testing.T) {
	a := newProcAPI(t, nil)
	srv, cl := startCounting(t, a)
	key, _ := a.account(t, docmill.Plan{OperationsPerMonth: 100, RequestsPerMinute: 100, JobsInFlight: 10, Priority: 1,
		ResultTTL: time.Hour, MaxFileBytes: 100 << 20})
	tool, _ := a.s.cfg.Registry.Lookup("rotate-pdf")
	bound := a.s.bodyBound(tool, a.s.fileLimit(docmill.Plan{Name: "custom", MaxFileBytes: 100 << 20}))
	if bound < 100<<20 || bound > 110<<20 {
		t.Fatalf("bound of one 100 MB file: %d bytes", bound)
	}
	const body = 150 << 20

	for _, tc := range []struct{ name, extra string }{
		{"Content-Length", fmt.Sprintf("Content-Length: %d\r\n", body)},
		{"Expect: 100-continue", fmt.Sprintf("Content-Length: %d\r\nExpect: 100-continue\r\n", body)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := cl.read.Load()
			_, br := rawProcess(t, srv, key, tc.extra)
			// Nothing of the body is sent: the answer must not need it.
			resp, code := readProblem(t, br)
			if resp.StatusCode != http.StatusBadRequest || code != docmill.CodeFileTooLarge || !resp.Close {
				t.Errorf("answer %d %s (close %v), want 400 file_too_large and the connection closed", resp.StatusCode, code, resp.Close)
			}
			assertClosed(t, br)
			t.Logf("%s: server read %d bytes of a request of %d MB", tc.name, cl.read.Load()-before, body>>20)
		})
	}

	t.Run("body on its way", func(t *testing.T) {
		before := cl.read.Load()
		conn, br := rawProcess(t, srv, key, fmt.Sprintf("Content-Length: %d\r\n", body))
		sent := make(chan int64, 1)
		go func() {
			n, _ := io.CopyN(conn, zeros{}, body) // until the server closes
			sent <- n
		}()
		resp, code := readProblem(t, br)
		if resp.StatusCode != http.StatusBadRequest || code != docmill.CodeFileTooLarge {
			t.Errorf("answer %d %s, want 400 file_too_large", resp.StatusCode, code)
		}
		assertClosed(t, br)
		n := <-sent
		read := cl.read.Load() - before
		t.Logf("client sent %d of %d bytes before the close; the server read %d", n, body, read)
		if read > 1<<20 || n == body {
			t.Errorf("the server read %d bytes and the client sent %d of %d: the body was taken", read, n, body)
		}
	})

	t.Run("within the bound", func(t *testing.T) {
		conn, br := rawProcess(t, srv, key, "Content-Length: 7\r\nExpect: 100-continue\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != http.StatusContinue {
			t.Fatalf("a body that fits: %v %v, want 100 Continue", resp, err)
		}
		_, _ = io.WriteString(conn, "--b--\r\n") // no part
		if resp, code := readProblem(t, br); code != docmill.CodeMissingFile {
			t.Errorf("a body that fits: %d %s, want its parts read (400 missing_file)", resp.StatusCode, code)
		}
	})
	if n := a.storedInputs(t); n != 0 {
		t.Errorf("%d files stored", n)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestChunkedBodyBound: a body without a Content-Length (chunked) is held
// to the same bound while it streams: a preamble no part check counts
// cannot make it longer.
func TestChunkedBodyBound(t *testing.T) {
	a := newProcAPI(t, nil)
	srv, _ := startCounting(t, a)
	key, _ := a.account(t, docmill.Plan{OperationsPerMonth: 100, RequestsPerMinute: 100, JobsInFlight: 10, Priority: 1,
		ResultTTL: time.Hour, MaxFileBytes: 1 << 20})
	tool, _ := a.s.cfg.Registry.Lookup("rotate-pdf")
	bound := a.s.bodyBound(tool, a.s.fileLimit(docmill.Plan{Name: "custom", MaxFileBytes: 1 << 20}))
	pr, pw := io.Pipe()
	go func() {
		_, err := io.CopyN(pw, strings.NewReader(strings.Repeat("preamble\r\n", int(bound)/10+1000)), bound+10000)
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/rotate-pdf/process", pr)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p docmill.Problem
	_ = json.NewDecoder(resp.Body).Decode(&p)
	if resp.StatusCode != http.StatusBadRequest || p.Code != docmill.CodeFileTooLarge {
		t.Errorf("chunked body of %d bytes over a bound of %d: %d %s, want 400 file_too_large", bound+10000, bound, resp.StatusCode, p.Code)
	}
}
