package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/docmill/docmill"
)

// uploadPace is what an upload must keep up, or be cut: something at
// least every idle, and, when minRate is above zero, minRate bytes a
// second over each window of the time spent waiting for it. Only the
// time the server waits for the client counts: a server slow to store
// what it read (a busy disk, a slow bucket) makes no client too slow.
// Each window must bring its own bytes, so a burst does not pay for a
// later trickle.
type uploadPace struct {
	idle    time.Duration
	minRate int64
	window  time.Duration
}

// need is the bytes each window must bring.
func (p uploadPace) need() int64 {
	return p.minRate * int64(p.window) / int64(time.Second)
}

// errUploadTooSlow answers an upload that fell below its pace.
func (p uploadPace) errUploadTooSlow() error {
	msg := fmt.Sprintf("The upload sent nothing for %s; nothing was kept.", p.idle)
	if p.minRate > 0 {
		msg = fmt.Sprintf("The upload came in slower than %s in %s (or sent nothing for %s); nothing was kept.",
			humanBytes(p.need()), p.window, p.idle)
	}
	return docmill.Errorf(docmill.CodeUploadTooSlow, "%s", msg)
}

// stallGuard holds an upload to its pace by the connection's read
// deadline: the instant at which the client is too slow if nothing more
// comes, pushed forward as data arrives (at most about once a second, to
// keep the cost per read small; the deadline is then up to a second
// late, never early). A read the deadline cuts marks the upload too
// slow. cut ends the upload at once, from any goroutine.
type stallGuard struct {
	r    io.Reader
	rc   *http.ResponseController
	pace uploadPace

	// mu orders cut against the deadline's extension, so that no read
	// after cut waits on a deadline pushed forward.
	mu       sync.Mutex
	isCut    bool
	tooSlow  bool
	deadline time.Time
	// waited is the time spent waiting for the client in the current
	// window, got the bytes it brought.
	waited time.Duration
	got    int64
}

func (g *stallGuard) Read(p []byte) (int, error) {
	g.mu.Lock()
	if g.isCut {
		g.mu.Unlock()
		return 0, errShuttingDown
	}
	if g.tooSlow {
		g.mu.Unlock()
		return 0, errTooSlow
	}
	start := time.Now()
	g.extend(start)
	g.mu.Unlock()

	n, err := g.r.Read(p)

	g.mu.Lock()
	defer g.mu.Unlock()
	if g.isCut {
		return n, errShuttingDown
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		g.tooSlow = true
		return n, errTooSlow
	}
	g.count(time.Since(start), int64(n))
	if g.tooSlow {
		return n, errTooSlow
	}
	return n, err
}

// errTooSlow is the read error of an upload cut for its pace; readUpload
// answers it with uploadPace.errUploadTooSlow.
var errTooSlow = errors.New("upload too slow")

// count adds a read that waited for waited and brought n bytes to the
// current window, closing the windows it completed; one that did not
// bring its bytes marks the upload too slow. n counts to the window the
// read began in.
func (g *stallGuard) count(waited time.Duration, n int64) {
	if g.pace.minRate <= 0 {
		return
	}
	g.waited += waited
	g.got += n
	for g.waited >= g.pace.window {
		if g.got < g.pace.need() {
			g.tooSlow = true
			return
		}
		g.waited -= g.pace.window
		g.got = 0
	}
}

// extend sets the read deadline of a read starting at now to when the
// upload is too slow if this read brings nothing: now plus idle, and
// with a minimum rate no later than the end of the current window (the
// next one, if the current one has its bytes already).
func (g *stallGuard) extend(now time.Time) {
	due := now.Add(g.pace.idle)
	if g.pace.minRate > 0 {
		left := g.pace.window - g.waited
		if g.got >= g.pace.need() {
			left += g.pace.window
		}
		if end := now.Add(left); end.Before(due) {
			due = end
		}
	}
	if !g.deadline.IsZero() && !due.After(g.deadline) && g.deadline.Sub(due) <= time.Second {
		return // the deadline set is late by a second at most
	}
	g.deadline = due.Add(time.Second)    // so that the next second's reads keep it
	_ = g.rc.SetReadDeadline(g.deadline) // unsupported writers just keep no deadline
}

// cut fails the read in progress (the read deadline passes) and every
// later one.
func (g *stallGuard) cut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.isCut = true
	_ = g.rc.SetReadDeadline(time.Unix(1, 0))
}

// slow reports whether the upload was cut for its pace.
func (g *stallGuard) slow() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tooSlow
}

// maxSmallBody bounds the JSON bodies smallBody reads; the handlers hold
// them to less (16 KB).
const maxSmallBody = 64 << 10

// smallBody reads the JSON body of a request (sign-up, a new key or
// webhook) at the upload pace, so that a client trickling it is cut with
// 408 upload_too_slow as an upload would be, and hands next the bytes
// read (at most maxSmallBody and one more, for next's own bound to see).
func (s *Server) smallBody(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
			next(w, r) // no body: no deadline to set on a connection the server reads in the background
			return
		}
		g := &stallGuard{r: r.Body, rc: http.NewResponseController(w), pace: s.pace}
		b, err := io.ReadAll(io.LimitReader(g, maxSmallBody+1))
		if g.slow() {
			w.Header().Set("Connection", "close")
			s.writeError(w, r, s.pace.errUploadTooSlow())
			return
		}
		if err != nil {
			s.writeError(w, r, docmill.Errorf(docmill.CodeInvalidRequest, "The request body was interrupted."))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		next(w, r)
	}
}
