package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"

	"github.com/docmill/docmill"
)

// clientCounts counts what each client address holds (connections, or
// requests in flight) against a cap. Addresses are counted by clientKey:
// an IPv6 client by its /64, which one host usually has whole.
type clientCounts struct {
	max  int
	mu   sync.Mutex
	held map[netip.Addr]int
}

func newClientCounts(max int) *clientCounts {
	return &clientCounts{max: max, held: map[netip.Addr]int{}}
}

// clientKey is the address a client is counted under.
func clientKey(a netip.Addr) netip.Addr {
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.Addr()
	}
	return a
}

// take counts one more for a, unless a is at the cap; release undoes it.
func (c *clientCounts) take(a netip.Addr) (release func(), ok bool) {
	k := clientKey(a)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[k] >= c.max {
		return nil, false
	}
	c.held[k]++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.held[k]--; c.held[k] <= 0 {
				delete(c.held, k)
			}
		})
	}, true
}

// trusted reports whether a is one of the trusted proxies.
func (s *Server) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// peerAddr is the address at the other end of r's connection.
func peerAddr(r *http.Request) (netip.Addr, bool) {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap(), true
}

// clientAddr is the address of r's client: its peer, or, when the peer
// is a trusted proxy (Config.TrustedProxies), the last address of
// X-Forwarded-For that is not one, read from the right, as each proxy
// appends the address it got the request from. forwarded says the
// address came from the header.
func (s *Server) clientAddr(r *http.Request) (addr netip.Addr, forwarded, ok bool) {
	peer, ok := peerAddr(r)
	if !ok || !s.trusted(peer) {
		return peer, false, ok
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break // a malformed hop: what is left of it cannot be trusted
		}
		if a = a.Unmap(); !s.trusted(a) {
			return a, true, true
		}
	}
	return peer, false, true
}

// Listener returns l holding each client address to
// Config.MaxConnsPerIP connections at once: a connection over it is
// closed as it is accepted, before a byte is read or a goroutine
// started. Trusted proxies (Config.TrustedProxies) are not capped here:
// the clients behind them are, by their forwarded address, at the
// request level (perClient). With no cap, l itself.
func (s *Server) Listener(l net.Listener) net.Listener {
	if s.cfg.MaxConnsPerIP <= 0 {
		return l
	}
	return &capListener{Listener: l, s: s, counts: newClientCounts(s.cfg.MaxConnsPerIP)}
}

type capListener struct {
	net.Listener
	s      *Server
	counts *clientCounts
}

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ap, perr := netip.ParseAddrPort(c.RemoteAddr().String())
		if perr != nil || l.s.trusted(ap.Addr()) {
			return c, nil // not an IP connection, or a proxy's
		}
		release, ok := l.counts.take(ap.Addr())
		if !ok {
			l.s.metrics.refused.WithLabelValues("connection").Inc()
			c.Close()
			continue
		}
		return &countedConn{Conn: c, release: release}, nil
	}
}

// countedConn gives its client's place back when closed.
type countedConn struct {
	net.Conn
	release func()
}

func (c *countedConn) Close() error {
	c.release()
	return c.Conn.Close()
}

// perClient holds each client behind a trusted proxy to
// Config.MaxConnsPerIP requests in flight, counted by its forwarded
// address: a proxy's connections carry many clients, so they cannot be
// capped as one. A request over it is answered 429 rate_limited with a
// Retry-After. Direct clients are capped by connection (Listener).
func (s *Server) perClient(next http.Handler) http.Handler {
	if s.cfg.MaxConnsPerIP <= 0 || len(s.cfg.TrustedProxies) == 0 {
		return next
	}
	counts := newClientCounts(s.cfg.MaxConnsPerIP)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client, forwarded, ok := s.clientAddr(r)
		if !ok || !forwarded {
			next.ServeHTTP(w, r)
			return
		}
		release, ok := counts.take(client)
		if !ok {
			s.metrics.refused.WithLabelValues("request").Inc()
			e := docmill.Errorf(docmill.CodeRateLimited, "Too many requests at once from this address (at most %d).", s.cfg.MaxConnsPerIP)
			e.RetryAfter = 1
			s.writeError(w, r, e)
			return
		}
		defer release()
		next.ServeHTTP(w, r)
	})
}
