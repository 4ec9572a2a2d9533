package main

import (
	"context"
	"net"
	"net/http"
	"sync"
)

// busyConns counts the server's connections that may still carry an
// answer: new ones (a request may be on its way) and active ones (a request
// is in progress). http.Server.Shutdown finds idle connections by polling,
// at intervals that grow to half a second; after the drain point that can
// be most of what is left of --shutdown-timeout, so shutdown closes the
// server as soon as the last busy connection turns idle instead.
type busyConns struct {
	mu    sync.Mutex
	state map[net.Conn]http.ConnState
	busy  int
	// idle is closed, and replaced, each time busy falls to zero.
	idle chan struct{}
}

func newBusyConns() *busyConns {
	return &busyConns{state: map[net.Conn]http.ConnState{}, idle: make(chan struct{})}
}

// track is the server's ConnState hook.
func (b *busyConns) track(c net.Conn, s http.ConnState) {
	b.mu.Lock()
	defer b.mu.Unlock()
	was, known := b.state[c]
	if known && isBusy(was) {
		b.busy--
	}
	if s == http.StateClosed || s == http.StateHijacked {
		delete(b.state, c)
	} else {
		b.state[c] = s
	}
	if isBusy(s) {
		b.busy++
	}
	if b.busy == 0 && known && isBusy(was) {
		close(b.idle)
		b.idle = make(chan struct{})
	}
}

func isBusy(s http.ConnState) bool { return s == http.StateNew || s == http.StateActive }

// closeWhenIdle waits until no connection is busy, then closes srv and
// returns nil. It is called once Shutdown has closed the listeners, so no
// connection is new; a request arriving on an idle connection at the
// moment of the close is lost as Shutdown's own closing of idle
// connections would lose it. Once ctx is done it closes srv too, and
// returns ctx's error only if a request was still in progress, whose
// answer the close cut off: a connection that never carried a request (a
// client's pool dialed it and did not use it) loses nothing.
func (b *busyConns) closeWhenIdle(ctx context.Context, srv *http.Server) error {
	for {
		b.mu.Lock()
		busy, idle := b.busy, b.idle
		b.mu.Unlock()
		if busy == 0 {
			srv.Close()
			return nil
		}
		select {
		case <-idle:
		case <-ctx.Done():
			cutOff := b.inProgress()
			srv.Close()
			if cutOff {
				return ctx.Err()
			}
			return nil
		}
	}
}

// inProgress reports whether a connection has a request in progress.
func (b *busyConns) inProgress() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, s := range b.state {
		if s == http.StateActive {
			return true
		}
	}
	return false
}
