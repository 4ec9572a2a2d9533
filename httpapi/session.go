package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobview"
)

// A browser signs in through a mailed link (signin.go) and then holds a
// session cookie. The cookie is HttpOnly, so the page never reads it; a
// request that changes something carries the cookie's CSRF token in a
// header, which another site's page cannot read or make, and its Origin
// (when the browser sends one) must be this server's.

// sessionCookie names the cookie of a browser session.
const sessionCookie = "docmill_session"

// csrfHeader carries the session's CSRF token on requests that change
// something.
const csrfHeader = "X-CSRF-Token"

// csrfToken is the CSRF token of a session cookie's value: derived, not
// stored, and told to the page by GET /v1/session and POST /v1/sessions.
func csrfToken(cookie string) string {
	h := sha256.Sum256([]byte("csrf:" + cookie))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// sessionCookieOf returns the session cookie's value, "" if none.
func sessionCookieOf(r *http.Request) string {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return ""
	}
	return c.Value
}

// newSessionCookie is the cookie that holds value for SessionTTL: Secure
// when the server's base URL is https (a browser would drop a Secure
// cookie over plain http, as in development).
func newSessionCookie(baseURL, value string) *http.Cookie {
	return &http.Cookie{
		Name: sessionCookie, Value: value, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		MaxAge: int(docmill.SessionTTL / time.Second), Secure: strings.HasPrefix(strings.ToLower(baseURL), "https:"),
	}
}

// clearedSessionCookie tells the browser to drop the session cookie.
func clearedSessionCookie(baseURL string) *http.Cookie {
	c := newSessionCookie(baseURL, "")
	c.MaxAge = -1
	return c
}

// safeMethod reports whether a request of method changes nothing, so
// that it needs no CSRF token.
func safeMethod(method string) bool {
	return method == http.MethodGet || method == http.MethodHead
}

// checkCSRF refuses a request made with the session cookie cookie that
// may change something and could come from another site: one without
// the cookie's CSRF token in X-CSRF-Token, or whose Origin is another
// than baseURL's. GET and HEAD pass: they change nothing.
func checkCSRF(r *http.Request, baseURL, cookie string) error {
	if safeMethod(r.Method) {
		return nil
	}
	if err := checkOrigin(r, baseURL); err != nil {
		return err
	}
	got := r.Header.Get(csrfHeader)
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(csrfToken(cookie))) != 1 {
		return docmill.Errorf(docmill.CodeForbidden, "A request made with the session cookie must carry its %s (GET /v1/session gives it).", csrfHeader)
	}
	return nil
}

// checkOrigin refuses a request whose Origin, when it has one, is
// another than baseURL's: a page of another site made it.
func checkOrigin(r *http.Request, baseURL string) error {
	if o := r.Header.Get("Origin"); o != "" && !sameOrigin(o, baseURL) {
		return docmill.Errorf(docmill.CodeForbidden, "This request comes from another site (Origin %s); it is refused.", o)
	}
	return nil
}

// sameOrigin reports whether the Origin header origin names the scheme,
// host and port of baseURL.
func sameOrigin(origin, baseURL string) bool {
	o, err := url.Parse(origin)
	if err != nil {
		return false
	}
	b, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	return strings.EqualFold(o.Scheme, b.Scheme) && strings.EqualFold(o.Host, b.Host) && o.Path == "" && o.Opaque == ""
}

// sessionFor returns the active session of the cookie value and its
// account: none, expired or revoked is 401 unauthorized; a suspended
// account is 403 account_suspended.
func (s *Server) sessionFor(r *http.Request, cookie string) (*docmill.Session, *docmill.Account, error) {
	sess, acct, err := s.cfg.Store.SessionByHash(r.Context(), docmill.HashKey(cookie))
	if errors.Is(err, docmill.ErrNotFound) || (err == nil && !sess.Active(s.cfg.Now())) {
		return nil, nil, docmill.Errorf(docmill.CodeUnauthorized, "Not signed in, or the session has ended; sign in again.")
	}
	if err != nil {
		return nil, nil, docmill.Internal(err)
	}
	if acct.Suspended() {
		return nil, nil, errSuspended
	}
	return sess, acct, nil
}

// errSuspended answers a key or session of a suspended account.
var errSuspended = docmill.Errorf(docmill.CodeAccountSuspended, "This account is suspended; ask the operator of this service.")

// authenticateSession is authenticate for a request with the session
// cookie and no Authorization header.
func (s *Server) authenticateSession(r *http.Request, cookie string) (*caller, error) {
	sess, acct, err := s.sessionFor(r, cookie)
	if err != nil {
		return nil, err
	}
	if err := checkCSRF(r, s.cfg.BaseURL, cookie); err != nil {
		return nil, err
	}
	plan, err := acct.EffectivePlan(s.cfg.Plans)
	if err != nil {
		return nil, docmill.Internal(err)
	}
	return &caller{account: acct, session: sess, plan: plan}, nil
}

// handleGetSession tells the page whose session its cookie holds, and the
// CSRF token its requests that change something carry.
func (s *Server) handleGetSession(w http.ResponseWriter, r *http.Request) {
	cookie := sessionCookieOf(r)
	if cookie == "" {
		s.writeError(w, r, docmill.Errorf(docmill.CodeUnauthorized, "Not signed in."))
		return
	}
	sess, acct, err := s.sessionFor(r, cookie)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	noteAccount(r.Context(), acct.ID)
	writeJSON(w, http.StatusOK, map[string]any{
		"account_id": acct.ID, "email": acct.Email, "csrf_token": csrfToken(cookie), "expires_at": jobview.Timestamp(sess.ExpiresAt),
	})
}

// handleDeleteSession signs this browser out: its session is revoked (the
// account's other sessions go on) and its cookie cleared. Without a
// cookie there is nothing to end, and the answer is the same.
func (s *Server) handleDeleteSession(w http.ResponseWriter, r *http.Request) {
	if cookie := sessionCookieOf(r); cookie != "" {
		if err := checkCSRF(r, s.cfg.BaseURL, cookie); err != nil {
			s.writeError(w, r, err)
			return
		}
		if err := s.cfg.Store.RevokeSession(r.Context(), docmill.HashKey(cookie), s.cfg.Now()); err != nil {
			s.writeError(w, r, docmill.Internal(err))
			return
		}
	}
	http.SetCookie(w, clearedSessionCookie(s.cfg.BaseURL))
	w.WriteHeader(http.StatusNoContent)
}
