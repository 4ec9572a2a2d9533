package httpapi

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/poll"
)

// startCapped serves a on 127.0.0.1 through a.s.Listener, counting the
// connections the HTTP server holds.
func startCapped(t *testing.T, a *procAPI) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	srv := httptest.NewUnstartedServer(a.s)
	srv.Listener = a.s.Listener(srv.Listener)
	var held atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			held.Add(1)
		case http.StateClosed, http.StateHijacked:
			held.Add(-1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &held
}

// dialFrom opens a connection to srv from the local address from.
func dialFrom(t *testing.T, srv *httptest.Server, from string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer reports whether the server closed c (EOF or reset
// within wait) rather than keeping it open.
func closedByServer(c net.Conn, wait time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	_, err := c.Read(make([]byte, 1))
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

// healthz sends GET /healthz on c and returns the status.
func healthz(t *testing.T, c net.Conn, header string) int {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n%s\r\n", header)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET /healthz: %v", err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestConnsPerIP: with a cap of 64, of 200 connections opened from one
// address the server keeps 64 and closes the rest as it accepts them;
// another address is still served, and a place given back is taken again.
func TestConnsPerIP(t *testing.T) {
	a := newProcAPI(t, nil)
	const max = 64
	a.s.cfg.MaxConnsPerIP = max
	srv, held := startCapped(t, a)

	conns := make([]net.Conn, 200)
	for i := range conns {
		conns[i] = dialFrom(t, srv, "127.0.0.1")
	}
	var kept []net.Conn
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() {
			if !closedByServer(c, 2*time.Second) {
				mu.Lock()
				kept = append(kept, c)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(kept) != max || held.Load() != max {
		t.Fatalf("of 200 connections from one address the server kept %d (holds %d), want %d", len(kept), held.Load(), max)
	}
	if got := healthz(t, dialFrom(t, srv, "127.0.0.2"), ""); got != http.StatusOK {
		t.Errorf("another address: %d, want 200", got)
	}
	if got := healthz(t, kept[0], ""); got != http.StatusOK {
		t.Errorf("a kept connection: %d, want 200", got)
	}
	if !closedByServer(dialFrom(t, srv, "127.0.0.1"), 2*time.Second) {
		t.Error("one more connection from the capped address was kept")
	}
	before := held.Load()
	kept[1].Close()
	poll.Until(t, 10*time.Second, func() (bool, string) {
		return held.Load() == before-1, fmt.Sprintf("the server holds %d connections, want %d", held.Load(), before-1)
	})
	if got := healthz(t, dialFrom(t, srv, "127.0.0.1"), ""); got != http.StatusOK {
		t.Errorf("after one place was given back: %d, want 200", got)
	}
	t.Logf("200 connections from 127.0.0.1: %d kept, the server holds %d", len(kept), held.Load())
}

// TestConnsBehindProxy: behind a trusted proxy (127.0.0.1) the proxy's
// connections are not capped, and each forwarded client is held to the
// cap of requests in flight: a third request of a client with two
// uploads in progress is 429 rate_limited with a Retry-After, while
// another forwarded client and the proxy's own requests are served.
func TestConnsBehindProxy(t *testing.T) {
	a := newProcAPI(t, nil)
	a.s.cfg.MaxConnsPerIP = 2
	a.s.cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	a.s.handler = a.s.routes() // perClient is set up from the config
	srv, held := startCapped(t, a)
	key, _ := a.account(t, docmill.Plan{OperationsPerMonth: 100, RequestsPerMinute: 100, JobsInFlight: 10, Priority: 1, ResultTTL: time.Hour})

	const client = "X-Forwarded-For: 198.51.100.9, 203.0.113.5\r\n"
	for range 2 { // two uploads that stall: in flight until the test ends
		rawProcess(t, srv, key, "Content-Length: 100000\r\n"+client)
	}
	for i := range 5 { // more connections than the cap, from the proxy
		c := dialFrom(t, srv, "127.0.0.1")
		if i < 4 {
			continue
		}
		// The uploads' requests are in flight once their handlers run.
		poll.Until(t, 10*time.Second, func() (bool, string) {
			got := healthz(t, c, client)
			return got == http.StatusTooManyRequests, fmt.Sprintf("a third request of 203.0.113.5: %d, want 429", got)
		})
		if got := healthz(t, c, "X-Forwarded-For: 203.0.113.6\r\n"); got != http.StatusOK {
			t.Errorf("another forwarded client on the same connection: %d, want 200", got)
		}
		if got := healthz(t, c, ""); got != http.StatusOK {
			t.Errorf("the proxy's own request: %d, want 200", got)
		}
	}
	if held.Load() != 7 {
		t.Errorf("the server holds %d of the proxy's 7 connections", held.Load())
	}
}

// TestClientAddr: X-Forwarded-For is read only from a trusted proxy,
// from the right, skipping trusted hops; a spoofed first hop is ignored.
func TestClientAddr(t *testing.T) {
	s := &Server{cfg: Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}}}
	for _, tc := range []struct{ peer, xff, want string }{
		{"192.0.2.1:5000", "203.0.113.5", "192.0.2.1"},            // not a proxy: the header is the client's word
		{"10.0.0.2:5000", "203.0.113.5", "203.0.113.5"},           // a proxy
		{"10.0.0.2:5000", "1.2.3.4, 203.0.113.5", "203.0.113.5"},  // the first hop is the client's word
		{"10.0.0.2:5000", "203.0.113.5, 10.0.0.3", "203.0.113.5"}, // through two proxies
		{"10.0.0.2:5000", "", "10.0.0.2"},                         // the proxy's own request
		{"10.0.0.2:5000", "junk, 10.0.0.3", "10.0.0.2"},           // no client named
		{"[::1]:5000", "2001:db8::7", "2001:db8::7"},              // IPv6
		{"[::ffff:10.0.0.2]:5000", "203.0.113.5", "203.0.113.5"},  // a mapped proxy address
		{"10.0.0.2:5000", "::ffff:203.0.113.5", "203.0.113.5"},    // a mapped client address
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = tc.peer
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		got, _, ok := s.clientAddr(r)
		if !ok || got.String() != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %v %v, want %s", tc.peer, tc.xff, got, ok, tc.want)
		}
	}
	a, b := netip.MustParseAddr("2001:db8:1:2:aaaa::1"), netip.MustParseAddr("2001:db8:1:2:bbbb::2")
	if clientKey(a) != clientKey(b) || clientKey(a) == clientKey(netip.MustParseAddr("2001:db8:1:3::1")) {
		t.Error("IPv6 clients are not counted by their /64")
	}
}
