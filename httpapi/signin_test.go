package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/docmill/docmill"
)

const signinBase = "https://docmill.example"

// withOutbox gives a's server open sign-up, a base URL, and the real
// queue (River on a's SQLite store) as its outbox; mailedToken reads
// back the token of the link last mailed to an address.
func withOutbox(t *testing.T, a *procAPI) (mailedToken func(to string) string) {
	t.Helper()
	q := a.riverQueue(t)
	a.s.cfg.Outbox, a.s.cfg.Signup, a.s.cfg.BaseURL = q, true, signinBase
	return func(to string) string {
		t.Helper()
		var link string
		err := a.st.WriteDB().QueryRowContext(t.Context(), `SELECT json_extract(json(args), '$.mail.link') FROM river_job
WHERE kind = 'docmill.mail' AND json_extract(json(args), '$.mail.to') = ? ORDER BY id DESC LIMIT 1`, to).Scan(&link)
		if err != nil {
			t.Fatalf("no mail to %s: %v", to, err)
		}
		_, tok, ok := strings.Cut(link, "/#/verify/")
		if !ok || !strings.HasPrefix(link, signinBase) {
			t.Fatalf("link %q", link)
		}
		return tok
	}
}

// browser sends method target as the web page does: from its origin,
// with the session cookie (if any) and its CSRF token, and a JSON body.
func (a *procAPI) browser(method, target, body string, cookie *http.Cookie) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, signinBase+target, strings.NewReader(body))
	req.Header.Set("Origin", signinBase)
	req.Header.Set("Content-Type", "application/json")
	if cookie != nil {
		req.AddCookie(cookie)
		req.Header.Set(csrfHeader, csrfToken(cookie.Value))
	}
	w := httptest.NewRecorder()
	a.s.ServeHTTP(w, req)
	return w
}

// cookieSet is the session cookie w sets.
func cookieSet(t *testing.T, w *httptest.ResponseRecorder) *http.Cookie {
	t.Helper()
	for _, c := range w.Result().Cookies() {
		if c.Value != "" {
			return c
		}
	}
	t.Fatalf("no session cookie set: %v", w.Header())
	return nil
}

// TestSignupSignInSignOut: sign-up mails a link (through the real
// queue's outbox) that opens a new Free account, with its first key, and
// a browser session; the link works once. The session reads the account
// and its keys; signing out ends it. A sign-in link opens the same
// account, with no new key.
func TestSignupSignInSignOut(t *testing.T) {
	a := newProcAPI(t, nil)
	mailedToken := withOutbox(t, a)
	decode(t, a.browser(http.MethodPost, "/v1/signup", `{"email": "New@Example.com", "name": "Nina"}`, nil), http.StatusAccepted, nil)
	tok := mailedToken("New@Example.com")

	var opened struct {
		APIKey  string         `json:"api_key"`
		Account map[string]any `json:"account"`
	}
	w := a.browser(http.MethodPost, "/v1/sessions", `{"token": "`+tok+`"}`, nil)
	decode(t, w, http.StatusCreated, &opened)
	if opened.APIKey == "" || opened.Account["plan"] != string(docmill.PlanFree) || opened.Account["name"] != "Nina" {
		t.Errorf("opened %+v, want a new Free account with its key", opened)
	}
	cookie := cookieSet(t, w)
	if w := a.browser(http.MethodPost, "/v1/sessions", `{"token": "`+tok+`"}`, nil); w.Code != http.StatusGone {
		t.Errorf("the link opened twice: %d, want 410", w.Code)
	}

	var sess struct {
		AccountID string `json:"account_id"`
		Email     string `json:"email"`
	}
	decode(t, a.browser(http.MethodGet, "/v1/session", "", cookie), http.StatusOK, &sess)
	if sess.AccountID != opened.Account["account_id"] {
		t.Errorf("session %+v, want the new account", sess)
	}
	decode(t, a.browser(http.MethodGet, "/v1/keys", "", cookie), http.StatusOK, nil) // a session authenticates
	if w := a.browser(http.MethodDelete, "/v1/session", "", cookie); w.Code != http.StatusNoContent {
		t.Fatalf("sign out: %d %s", w.Code, w.Body)
	}
	if w := a.browser(http.MethodGet, "/v1/session", "", cookie); w.Code != http.StatusUnauthorized {
		t.Errorf("the session after sign-out: %d, want 401", w.Code)
	}

	decode(t, a.browser(http.MethodPost, "/v1/login", `{"email": "new@example.com"}`, nil), http.StatusAccepted, nil)
	opened.APIKey = ""
	decode(t, a.browser(http.MethodPost, "/v1/sessions", `{"token": "`+mailedToken(sess.Email)+`"}`, nil), http.StatusCreated, &opened)
	if opened.APIKey != "" || opened.Account["account_id"] != sess.AccountID {
		t.Errorf("signed in: %+v, want the same account and no new key", opened)
	}
}

// TestSigninRefusals: a closed sign-up, bodies that are not JSON, an
// address that is none, a name too long, a missing or unknown token, a
// page of another site opening a link, a session cookie of no session.
func TestSigninRefusals(t *testing.T) {
	a := newProcAPI(t, nil)
	withOutbox(t, a)
	cases := []struct {
		target, body string
		status       int
		code         docmill.Code
	}{
		{"/v1/signup", `{"email":`, 400, docmill.CodeInvalidRequest},
		{"/v1/signup", `{"email": "not an address"}`, 400, docmill.CodeInvalidParameter},
		{"/v1/signup", `{"email": "a@example.com", "name": "` + strings.Repeat("n", 101) + `"}`, 400, docmill.CodeInvalidParameter},
		{"/v1/sessions", `{"token": 1}`, 400, docmill.CodeInvalidRequest},
		{"/v1/sessions", `{"token": " "}`, 400, docmill.CodeInvalidParameter},
		{"/v1/sessions", `{"token": "no-such-token"}`, 410, docmill.CodeGone},
	}
	for _, c := range cases {
		w := a.browser(http.MethodPost, c.target, c.body, nil)
		if w.Code != c.status || problemCode(t, w) != c.code {
			t.Errorf("POST %s %s: %d %s, want %d %s", c.target, c.body, w.Code, w.Body, c.status, c.code)
		}
	}
	req := httptest.NewRequest(http.MethodPost, signinBase+"/v1/sessions", strings.NewReader(`{"token": "x"}`))
	req.Header.Set("Origin", "https://evil.example")
	w := httptest.NewRecorder()
	a.s.ServeHTTP(w, req)
	if w.Code != http.StatusForbidden {
		t.Errorf("a link opened from another site: %d %s, want 403", w.Code, w.Body)
	}
	if w := a.browser(http.MethodGet, "/v1/session", "", &http.Cookie{Name: sessionCookie, Value: "stale"}); w.Code != http.StatusUnauthorized {
		t.Errorf("a cookie of no session: %d, want 401", w.Code)
	}
	a.s.cfg.Signup = false
	if w := a.browser(http.MethodPost, "/v1/signup", `{"email": "a@example.com"}`, nil); w.Code != http.StatusNotFound {
		t.Errorf("sign-up closed: %d, want 404", w.Code)
	}
}
