package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/docmill/docmill"
)

type ctxKey int

const (
	ctxRequestID ctxKey = iota
	ctxCaller
	ctxRequestLog
)

// caller is the authenticated account of a request and its limits: by
// an API key (key set) or a browser session (session set).
type caller struct {
	account *docmill.Account
	key     *docmill.APIKey
	session *docmill.Session
	plan    docmill.Plan
}

// rateKey names the caller's rate-limit budget: its key's, or its
// session's.
func (c *caller) rateKey() string {
	if c.key != nil {
		return c.key.Hash
	}
	return "session:" + c.session.Hash
}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(ctxRequestID).(string)
	return id
}

func callerOf(ctx context.Context) *caller {
	c, _ := ctx.Value(ctxCaller).(*caller)
	return c
}

// statusWriter remembers the status a handler wrote and counts the bytes
// of the body.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wellFormedRequestID reports whether a client's (or a proxy's)
// X-Request-Id is kept: 1 to 128 characters of A-Z, a-z, 0-9, '.', '_'
// and '-', which are safe in a log line, a header and a problem's
// request_id. Others (empty, too long, spaces, quotes, control
// characters) are replaced by an id of ours.
func wellFormedRequestID(id string) bool {
	if len(id) < 1 || len(id) > 128 {
		return false
	}
	for _, c := range []byte(id) {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// observe gives every request an id (X-Request-Id: the request's own when
// well formed, else a new one), records its count
// and latency by route pattern and status, and writes its log line: the
// request id, route, status, bytes read and written, time, and what the
// handlers noted (account, tool, job, error code; see requestLog).
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !wellFormedRequestID(id) {
			id = docmill.NewID("req_")
		}
		w.Header().Set("X-Request-Id", id)
		rl := &requestLog{}
		ctx := context.WithValue(context.WithValue(r.Context(), ctxRequestID, id), ctxRequestLog, rl)
		r = r.WithContext(ctx)
		body := &countingBody{ReadCloser: r.Body}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = body
		}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		if sw.status == 0 {
			sw.status = http.StatusOK
		}
		route := r.Pattern
		if route == "" {
			route = "unmatched"
		}
		elapsed := time.Since(start)
		s.metrics.observe(route, sw.status, elapsed, body.n)
		attrs := append([]slog.Attr{
			slog.String("request_id", id), slog.String("method", r.Method), slog.String("route", route),
			slog.Int("status", sw.status), slog.Int64("bytes_in", body.n), slog.Int64("bytes_out", sw.bytes),
			slog.Int64("ms", elapsed.Milliseconds()),
		}, rl.attrs()...)
		s.log.LogAttrs(ctx, slog.LevelInfo, "request", attrs...)
	})
}

// recoverPanics turns a handler panic into a 500 problem; the server keeps
// running.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.writeError(w, r, docmill.Internal(fmt.Errorf("panic: %v\n%s", v, debug.Stack())))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// problemsForMux answers unknown routes and wrong methods with problem+json
// instead of the mux's plain text.
func (s *Server) problemsForMux(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			// Serve through the mux so r.Pattern and path values are set.
			mux.ServeHTTP(w, r)
			return
		}
		rec := &statusWriter{ResponseWriter: discardWriter{header: http.Header{}}}
		h.ServeHTTP(rec, r)
		if rec.status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", rec.Header().Get("Allow"))
			s.writeError(w, r, docmill.Errorf(docmill.CodeMethodNotAllowed, "Method %s is not allowed here.", r.Method))
			return
		}
		s.writeError(w, r, docmill.Errorf(docmill.CodeNotFound, "No such endpoint."))
	})
}

type discardWriter struct{ header http.Header }

func (d discardWriter) Header() http.Header         { return d.header }
func (d discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d discardWriter) WriteHeader(int)             {}

// authed requires a valid, unrevoked API key ("Authorization: Bearer")
// or a browser session (session.go) of an active account.
func (s *Server) authed(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := s.authenticate(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		noteAccount(r.Context(), c.account.ID)
		next(w, r.WithContext(context.WithValue(r.Context(), ctxCaller, c)))
	})
}

// authenticate finds the caller by its API key, the way of programs, or
// else by its session cookie, the way of the web page (with the CSRF
// rule, checkCSRF). A key wins over a cookie sent along with it.
func (s *Server) authenticate(r *http.Request) (*caller, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		if cookie := sessionCookieOf(r); cookie != "" {
			return s.authenticateSession(r, cookie)
		}
		return nil, docmill.Errorf(docmill.CodeUnauthorized, "Missing API key: send Authorization: Bearer <key>.")
	}
	scheme, key, ok := strings.Cut(h, " ")
	key = strings.TrimSpace(key)
	if !ok || !strings.EqualFold(scheme, "Bearer") || !docmill.WellFormedKey(key) {
		return nil, docmill.Errorf(docmill.CodeUnauthorized, "Malformed API key: send Authorization: Bearer dm_live_...")
	}
	// Keys are looked up by their SHA-256: the lookup's timing can tell
	// an attacker about hashes, never about keys.
	k, acct, err := s.cfg.Store.KeyByHash(r.Context(), docmill.HashKey(key))
	if errors.Is(err, docmill.ErrNotFound) {
		return nil, docmill.Errorf(docmill.CodeUnauthorized, "Unknown API key.")
	}
	if err != nil {
		return nil, docmill.Internal(err)
	}
	if k.RevokedAt != nil {
		return nil, docmill.Errorf(docmill.CodeUnauthorized, "This API key has been revoked.")
	}
	if acct.Suspended() {
		return nil, errSuspended
	}
	plan, err := acct.EffectivePlan(s.cfg.Plans)
	if err != nil {
		return nil, docmill.Internal(err)
	}
	s.touchKey(r, k)
	return &caller{account: acct, key: k, plan: plan}, nil
}

// touchKeyEvery is how stale a key's recorded last use may get: a key
// used again within it is not touched, so that a busy key costs no
// store call per request (the store throttles its writes as well).
const touchKeyEvery = time.Minute

// touchKey records the use of k now, from the client's address, unless
// its recorded use is recent. A failure is logged, not the request's.
func (s *Server) touchKey(r *http.Request, k *docmill.APIKey) {
	now := s.cfg.Now()
	if k.LastUsedAt != nil && now.Sub(*k.LastUsedAt) < touchKeyEvery {
		return
	}
	ip := ""
	if a, _, ok := s.clientAddr(r); ok {
		ip = a.String()
	}
	if err := s.cfg.Store.TouchKey(r.Context(), k.Hash, ip, now); err != nil {
		s.log.Warn("recording a key's use failed", "request_id", requestID(r.Context()), "err", err)
	}
}

// Rate-limit scopes: process calls spend the plan's requests per minute;
// reads (polling, account) have their own, larger budget so that polling a
// job does not eat into it.
const (
	scopeProcess = "process"
	scopeRead    = "read"
	// readMultiplier sizes the read budget from the plan's rate.
	readMultiplier = 10
)

// limited applies the caller's per-key rate limit for scope and sets the
// X-RateLimit-* headers.
func (s *Server) limited(scope string, next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c := callerOf(r.Context())
		limit := c.plan.RequestsPerMinute
		if scope == scopeRead {
			limit *= readMultiplier
		}
		if limit <= 0 {
			next(w, r)
			return
		}
		res, err := s.cfg.Limiter.Allow(r.Context(), scope+":"+c.rateKey(), limit, time.Minute)
		if err != nil {
			// A limiter outage must not stop the service; let it through.
			s.log.Warn("rate limiter failed", "err", err)
			next(w, r)
			return
		}
		h := w.Header()
		h.Set("X-RateLimit-Limit", strconv.Itoa(res.Limit))
		h.Set("X-RateLimit-Remaining", strconv.Itoa(res.Remaining))
		h.Set("X-RateLimit-Reset", strconv.Itoa(ceilSeconds(res.ResetAfter)))
		if !res.Allowed {
			e := docmill.Errorf(docmill.CodeRateLimited, "Rate limit of %d requests per minute exceeded.", res.Limit)
			e.RetryAfter = max(1, ceilSeconds(res.RetryAfter))
			s.writeError(w, r, e)
			return
		}
		next(w, r)
	}
}

func ceilSeconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}
