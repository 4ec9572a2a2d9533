package httpapi

import (
	"net/http"
	"net/netip"
	"time"

	"github.com/docmill/docmill"
)

// The mail limits bound the links that POST /v1/signup and POST
// /v1/login mail, both together, an hour: to one mailbox (so that
// nobody's inbox can be flooded), from one client address, and from one
// network (an IPv4 /24 or IPv6 /64, what one customer of a provider
// holds). A request counts whether or not it sends mail (a sign-in for
// an address without an account sends none), so that the limits tell
// nothing of accounts either. The client address is the one a trusted
// proxy forwards (clientAddr).
const (
	mailsPerMailbox = 5
	mailsPerAddress = 10
	mailsPerNetwork = 30
)

// mailLimit is one budget a mail request spends.
type mailLimit struct {
	// key names the budget in the Limiter.
	key   string
	limit int
	// why is the answer when the budget is spent.
	why string
}

// mailLimitsOf are the budgets a mail request to mailbox from client
// spends, in the order they are spent: the client's first, so that a
// client past its own budgets spends no mailbox's. An invalid client (no
// peer address) spends the mailbox's only.
func mailLimitsOf(mailbox string, client netip.Addr) []mailLimit {
	box := mailLimit{key: "mail:to:" + mailbox, limit: mailsPerMailbox, why: "Too many links were mailed to this address; try again later."}
	if !client.IsValid() {
		return []mailLimit{box}
	}
	client = client.Unmap()
	bits := 24
	if client.Is6() {
		bits = 64
	}
	network, _ := client.Prefix(bits)
	return []mailLimit{
		{key: "mail:ip:" + client.String(), limit: mailsPerAddress, why: "Too many links were asked for from this address; try again later."},
		{key: "mail:net:" + network.String(), limit: mailsPerNetwork, why: "Too many links were asked for from this network; try again later."},
		box,
	}
}

// allowMail spends the request's mail budgets; the first one spent is
// 429 rate_limited with a Retry-After. A failing limiter lets the
// request through, as the per-key limits do.
func (s *Server) allowMail(r *http.Request, mailbox string) error {
	client, _, _ := s.clientAddr(r)
	for _, l := range mailLimitsOf(mailbox, client) {
		res, err := s.cfg.Limiter.Allow(r.Context(), l.key, l.limit, time.Hour)
		if err != nil {
			s.log.Warn("rate limiter failed", "err", err)
			return nil
		}
		if !res.Allowed {
			e := docmill.Errorf(docmill.CodeRateLimited, "%s", l.why)
			e.RetryAfter = max(1, ceilSeconds(res.RetryAfter))
			return e
		}
	}
	return nil
}
