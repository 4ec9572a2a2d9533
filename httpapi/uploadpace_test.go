package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/blob"
)

// TestUploadPace: with a minimum rate of 20 KB/s over windows of 300 ms
// (and an idle timeout of a minute), an upload trickling 100 bytes every
// 50 ms, and one that sends a window's worth at once and then stops, are
// cut with 408 upload_too_slow long before the idle timeout, the
// connection closed, nothing stored and no job made; an upload at
// 400 KB/s in small pieces goes through.
func TestUploadPace(t *testing.T) {
	a := newProcAPI(t, nil)
	a.s.pace = uploadPace{idle: time.Minute, minRate: 20 << 10, window: 300 * time.Millisecond}
	srv, _ := startCounting(t, a)
	key, acct := a.account(t, docmill.Plan{OperationsPerMonth: 100, RequestsPerMinute: 100, JobsInFlight: 10, Priority: 1, ResultTTL: time.Hour})
	const head = "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\n%PDF-1.4\n"
	const size = 1 << 20

	// send writes the body's head, then piece every gap until the
	// server stops taking it or max bytes are sent, then the body's end.
	send := func(piece int, gap time.Duration, max int) (*http.Response, docmill.Code, time.Duration) {
		t.Helper()
		conn, br := rawProcess(t, srv, key, fmt.Sprintf("Content-Length: %d\r\n", size))
		start := time.Now()
		go func() {
			if _, err := io.WriteString(conn, head); err != nil {
				return
			}
			pieces := (min(max, size-10) - len(head)) / piece // max is past the head
			if !trickle(conn, strings.Repeat("x", pieces*piece), piece, gap) {
				return
			}
			sent := len(head) + pieces*piece
			if max >= size {
				_, _ = io.WriteString(conn, strings.Repeat("x", size-sent-9)+"\r\n--b--\r\n")
			}
		}()
		resp, code := readProblem(t, br)
		return resp, code, time.Since(start)
	}

	for _, tc := range []struct {
		name  string
		piece int
		gap   time.Duration
		max   int
	}{
		{"trickle", 100, 50 * time.Millisecond, size},
		{"burst then nothing", 8 << 10, 0, len(head) + 8<<10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, code, took := send(tc.piece, tc.gap, tc.max)
			if resp.StatusCode != http.StatusRequestTimeout || code != docmill.CodeUploadTooSlow || !resp.Close {
				t.Fatalf("%s: %d %s (close %v), want 408 upload_too_slow and the connection closed", tc.name, resp.StatusCode, code, resp.Close)
			}
			t.Logf("%s: cut after %s", tc.name, took.Round(time.Millisecond))
			if took > 30*time.Second { // a guard: the idle timeout is a minute
				t.Errorf("%s: cut after %s, by the idle timeout rather than the rate", tc.name, took)
			}
		})
	}
	if n := a.storedInputs(t); n != 0 {
		t.Errorf("%d files of cut uploads stored", n)
	}
	period, _ := docmill.Period(time.Now())
	if u, err := a.st.Usage(t.Context(), acct.ID, period); err != nil || u.InFlight != 0 || u.Operations != 0 {
		t.Errorf("usage after cut uploads: %+v %v, want none", u, err)
	}

	t.Run("fast enough", func(t *testing.T) {
		resp, code, took := send(8<<10, 20*time.Millisecond, size)
		if resp.StatusCode != http.StatusAccepted {
			t.Errorf("upload at about 400 KB/s: %d %s after %s, want 202", resp.StatusCode, code, took)
		}
	})
}

// trickle writes data to w in pieces of piece bytes, one every gap, and
// reports whether every piece was written.
func trickle(w io.Writer, data string, piece int, gap time.Duration) bool {
	for len(data) > 0 {
		n := min(piece, len(data))
		if _, err := io.WriteString(w, data[:n]); err != nil {
			return false
		}
		data = data[n:]
		time.Sleep(gap) // not ordering: the pace of a slow client, what is tested
	}
	return true
}

// slowDisk is a bucket that stores at about 10 KB/s: 512 bytes every
// 50 ms.
type slowDisk struct{ docmill.BlobStore }

func (d slowDisk) Put(ctx context.Context, key string, r io.Reader, ct string) (int64, error) {
	return d.BlobStore.Put(ctx, key, readerFunc(func(p []byte) (int, error) {
		time.Sleep(50 * time.Millisecond) // not ordering: the slow disk's pace
		return r.Read(p[:min(len(p), 512)])
	}), ct)
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

// TestUploadPaceSlowServer: a server slow to store an upload (10 KB/s,
// below the minimum rate of 20 KB/s) does not make its fast client too
// slow: only the time spent waiting for the client counts.
func TestUploadPaceSlowServer(t *testing.T) {
	dir := t.TempDir()
	b, err := blob.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	a := newProcAPI(t, slowDisk{b})
	a.s.pace = uploadPace{idle: time.Minute, minRate: 20 << 10, window: 300 * time.Millisecond}
	srv, _ := startCounting(t, a)
	key, _ := a.account(t, docmill.Plan{OperationsPerMonth: 100, RequestsPerMinute: 100, JobsInFlight: 10, Priority: 1, ResultTTL: time.Hour})
	body := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\n%PDF-1.4\n" +
		strings.Repeat("x", 24<<10) + "\r\n--b--\r\n"
	conn, br := rawProcess(t, srv, key, fmt.Sprintf("Content-Length: %d\r\n", len(body)))
	start := time.Now()
	_, _ = io.WriteString(conn, body) // at once: the socket holds it while the server stores
	resp, code := readProblem(t, br)
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("a fast upload to a slow server: %d %s after %s, want 202", resp.StatusCode, code, time.Since(start))
	}
}

// TestSmallBodyPace: a sign-in request whose JSON body trickles in below
// the minimum rate is cut with 408 upload_too_slow; one sent at once is
// read (and, for an address without an account, answered 202 mailing
// nothing).
func TestSmallBodyPace(t *testing.T) {
	a := newProcAPI(t, nil)
	a.s.pace = uploadPace{idle: time.Minute, minRate: 20 << 10, window: 300 * time.Millisecond}
	srv, _ := startCounting(t, a)
	body := `{"email": "slow@example.com"}`
	for _, tc := range []struct {
		name string
		gap  time.Duration
		want int
	}{{"trickle", 100 * time.Millisecond, http.StatusRequestTimeout}, {"at once", 0, http.StatusAccepted}} {
		conn := dialFrom(t, srv, "127.0.0.1")
		_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
		fmt.Fprintf(conn, "POST /v1/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
		go trickle(conn, body, 1, tc.gap)
		resp, code := readProblem(t, bufio.NewReader(conn))
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, resp.StatusCode, code, tc.want)
		}
	}
}
