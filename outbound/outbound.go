// Package outbound is the one HTTP client for everything docmill fetches
// or sends to addresses its users give it (webhook deliveries now; URL
// imports and result exports). A user's URL must not reach docmill's own
// network, so the client:
//
//   - resolves names itself (no proxy from the environment) and checks
//     every address it connects to at dial time (net.Dialer.Control sees
//     the actual IP), so a name that resolves to a public address when
//     checked and a private one when used (DNS rebinding) is still
//     refused;
//   - refuses loopback, private, shared (CGNAT), link-local (the cloud
//     metadata services 169.254.169.254 and fd00:ec2::254 among them),
//     multicast, unspecified, reserved and broadcast addresses, and IPv6
//     addresses that embed such an IPv4 address;
//   - refuses http:// URLs;
//   - follows no redirects unless told to, and then only to URLs it would
//     accept, through the same dialer;
//   - reads at most MaxResponseBytes of an answer (or, for file
//     transfers, leaves the cap to the caller);
//   - names itself in User-Agent.
//
// AllowPrivate (the server's --allow-private-urls) lifts the address and
// scheme rules, for development and tests against 127.0.0.1.
package outbound

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"syscall"
	"time"

	"github.com/docmill/docmill"
)

// Config configures a Client. Zero values take the defaults noted.
type Config struct {
	// AllowPrivate lifts the address rule and allows http:// URLs.
	AllowPrivate bool
	// UserAgent is sent with every request (default
	// "docmill/<docmill.Version>").
	UserAgent string
	// Timeout bounds a whole request, answer included (default 10 s;
	// negative: no bound but the request's context).
	Timeout time.Duration
	// HeaderTimeout bounds, in Fetch, the connection, the TLS handshake
	// and the wait for the answer's header together, and in every
	// request the wait for the header once the request is sent (default
	// Timeout, or 30 s when Timeout is negative).
	HeaderTimeout time.Duration
	// MaxResponseBytes is how much of an answer's body may be read; a
	// reader past it sees io.EOF (default 64 KiB; negative: no cap, the
	// caller bounds what it reads).
	MaxResponseBytes int64
	// MaxRedirects is how many redirects are followed (default 0: none;
	// the answer of a redirect is returned as it is).
	MaxRedirects int
}

// Client sends requests under the rules of the package.
type Client struct {
	cfg  Config
	http *http.Client
}

// New returns a client.
func New(cfg Config) *Client {
	if cfg.UserAgent == "" {
		cfg.UserAgent = "docmill/" + docmill.Version
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.HeaderTimeout <= 0 {
		cfg.HeaderTimeout = cfg.Timeout
		if cfg.Timeout < 0 {
			cfg.HeaderTimeout = 30 * time.Second
		}
	}
	if cfg.MaxResponseBytes == 0 {
		cfg.MaxResponseBytes = 64 << 10
	}
	c := &Client{cfg: cfg}
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: c.control}
	transport := &http.Transport{
		Proxy:                 nil, // never a proxy from the environment: the dialer must see the real address
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: cfg.HeaderTimeout,
		ExpectContinueTimeout: time.Second,
	}
	c.http = &http.Client{
		Transport: &limitedTransport{rt: transport, c: c},
		Timeout:   max(cfg.Timeout, 0),
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > c.cfg.MaxRedirects {
				return http.ErrUseLastResponse
			}
			return c.checkScheme(req.URL)
		},
	}
	return c
}

// ErrHeaderTimeout is Fetch's error when the connection and the answer's
// header took longer than Config.HeaderTimeout. It is a net.Error whose
// Timeout is true, so callers need not import this package to tell it.
var ErrHeaderTimeout error = headerTimeout{}

type headerTimeout struct{}

func (headerTimeout) Error() string   { return "outbound: no answer within the header timeout" }
func (headerTimeout) Timeout() bool   { return true }
func (headerTimeout) Temporary() bool { return false }

// Fetch GETs raw (see the package's rules; redirects up to
// Config.MaxRedirects, each target checked again). Connecting and
// receiving the answer's header must take at most Config.HeaderTimeout
// (else ErrHeaderTimeout); the body then streams within Config.Timeout
// and ctx, and Close of the body releases the request. Any status is
// returned as an answer: the caller judges it.
func (c *Client) Fetch(ctx context.Context, raw string) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		cancel(nil)
		return nil, err
	}
	timer := time.AfterFunc(c.cfg.HeaderTimeout, func() { cancel(ErrHeaderTimeout) })
	resp, err := c.http.Do(req)
	if !timer.Stop() {
		if err == nil {
			resp.Body.Close()
		}
		cancel(nil)
		return nil, fmt.Errorf("GET: %w", ErrHeaderTimeout)
	}
	if err != nil {
		cancel(nil)
		return nil, err
	}
	resp.Body = cancelBody{ReadCloser: resp.Body, cancel: func() { cancel(nil) }}
	return resp, nil
}

// cancelBody releases its request's context when closed.
type cancelBody struct {
	io.ReadCloser
	cancel func()
}

func (b cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// HTTPClient returns the client as an *http.Client, for packages that
// take one (they need not import this one).
func (c *Client) HTTPClient() *http.Client { return c.http }

// Do sends req (see the package's rules).
func (c *Client) Do(req *http.Request) (*http.Response, error) { return c.http.Do(req) }

// CheckURL checks a URL a user gives for later requests, such as a webhook
// endpoint: absolute, https (http only with AllowPrivate), with a host,
// and, unless AllowPrivate, a host that is or resolves only to allowed
// addresses. Its error is an invalid_parameter *docmill.Error naming
// field. Dial time checks again: what a name resolves to may change.
func (c *Client) CheckURL(ctx context.Context, field, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return docmill.ParamError(field, "must be an absolute https:// URL")
	}
	if err := c.checkScheme(u); err != nil {
		return docmill.ParamError(field, "must be an https:// URL")
	}
	if len(raw) > 2048 {
		return docmill.ParamError(field, "must be at most 2048 characters long")
	}
	if c.cfg.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if !Allowed(ip) {
			return docmill.ParamError(field, "must not point to a private, loopback, link-local or otherwise internal address")
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// One answer for a name that does not resolve and one that resolves
	// to an internal address: two would tell a client which names this
	// node's resolver knows inside its own network.
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 || slices.ContainsFunc(addrs, func(ip netip.Addr) bool { return !Allowed(ip) }) {
		return docmill.ParamError(field, "must have a host name that resolves to public addresses only (not private, loopback, link-local or otherwise internal ones)")
	}
	return nil
}

// checkScheme allows https, and http with AllowPrivate.
func (c *Client) checkScheme(u *url.URL) error {
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && c.cfg.AllowPrivate:
		return nil
	}
	return fmt.Errorf("%w %q", docmill.ErrInsecureURL, u.Scheme)
}

// control is the dialer's last word on every connection: address is the
// IP and port actually dialed, after resolution.
func (c *Client) control(network, address string, _ syscall.RawConn) error {
	if c.cfg.AllowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", docmill.ErrInternalAddress, address)
	}
	if !Allowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", docmill.ErrInternalAddress, ap.Addr())
	}
	return nil
}

// refused are the networks no user URL may reach, beyond those that
// netip's predicates name (loopback, private, link-local, multicast,
// unspecified).
var refused = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space (CGNAT)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and 255.255.255.255
	netip.MustParsePrefix("100::/64"),        // discard
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fd00:ec2::/32"),   // AWS's IPv6 metadata (also in fc00::/7)
	// IPv6 forms a host or a relay may map to an IPv4 address of its
	// own network: IPv4-compatible (::a.b.c.d, deprecated), IPv4-
	// translated (::ffff:0:a.b.c.d), Teredo tunnels, and the deprecated
	// site-local range, which some stacks still route inside the site.
	netip.MustParsePrefix("::/96"),
	netip.MustParsePrefix("::ffff:0:0:0/96"),
	netip.MustParsePrefix("2001::/32"),
	netip.MustParsePrefix("fec0::/10"),
}

// embeddedV4 are the IPv6 prefixes whose last 32 bits are an IPv4
// address that is what is really reached (NAT64), checked as that
// address.
var embeddedV4 = []netip.Prefix{
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
}

// Allowed reports whether a user's URL may reach ip: a global unicast
// address outside every refused network.
func Allowed(ip netip.Addr) bool {
	ip = ip.Unmap() // ::ffff:127.0.0.1 is 127.0.0.1
	if ip.Is6() {
		for _, p := range embeddedV4 {
			if p.Contains(ip) {
				b := ip.As16()
				return Allowed(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
			}
		}
		if b := ip.As16(); b[0] == 0x20 && b[1] == 0x02 { // 6to4: 2002:V4ADDR::/48
			return Allowed(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() ||
		ip.IsUnspecified() || !ip.IsGlobalUnicast() {
		return false
	}
	for _, p := range refused {
		if p.Contains(ip) {
			return false
		}
	}
	return true
}

// limitedTransport refuses schemes other than https (and http with
// AllowPrivate), sets User-Agent and caps the bodies of answers.
type limitedTransport struct {
	rt http.RoundTripper
	c  *Client
}

func (t *limitedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.c.checkScheme(req.URL); err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Header.Set("User-Agent", t.c.cfg.UserAgent)
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if t.c.cfg.MaxResponseBytes > 0 {
		resp.Body = limitedBody{Reader: io.LimitReader(resp.Body, t.c.cfg.MaxResponseBytes), Closer: resp.Body}
	}
	return resp, nil
}

type limitedBody struct {
	io.Reader
	io.Closer
}
