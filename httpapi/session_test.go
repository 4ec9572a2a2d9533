package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/docmill/docmill"
)

// TestCSRFToken: the token is base64url (unpadded) of SHA-256 of
// "csrf:" and the cookie's value, so that the page and any client can
// check it, and differs from cookie to cookie.
func TestCSRFToken(t *testing.T) {
	for _, cookie := range []string{"", "a", docmill.NewSecret()} {
		sum := sha256.Sum256([]byte("csrf:" + cookie))
		want := base64.RawURLEncoding.EncodeToString(sum[:])
		if got := csrfToken(cookie); got != want || len(got) != 43 {
			t.Errorf("csrfToken(%q) = %q, want %q", cookie, got, want)
		}
	}
	if csrfToken("a") == csrfToken("b") {
		t.Error("two cookies, one token")
	}
}

// TestCheckCSRF: with the cookie, GET and HEAD pass as they are; other
// methods need the cookie's token and, when an Origin is sent, this
// server's.
func TestCheckCSRF(t *testing.T) {
	const base, cookie = "https://docmill.example", "secret"
	good := csrfToken(cookie)
	tests := []struct {
		method, token, origin string
		ok                    bool
	}{
		{"GET", "", "", true},
		{"HEAD", "", "https://evil.example", true},
		{"POST", good, "", true},
		{"POST", good, "https://docmill.example", true},
		{"DELETE", good, "HTTPS://DOCMILL.EXAMPLE", true},
		{"POST", "", "", false},
		{"POST", "", "https://docmill.example", false},
		{"POST", csrfToken("other"), "", false},
		{"PATCH", good, "https://evil.example", false},
		{"POST", good, "http://docmill.example", false},
		{"POST", good, "https://docmill.example:8443", false},
		{"POST", good, "null", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest(tt.method, base+"/v1/keys", nil)
		if tt.token != "" {
			r.Header.Set(csrfHeader, tt.token)
		}
		if tt.origin != "" {
			r.Header.Set("Origin", tt.origin)
		}
		err := checkCSRF(r, base, cookie)
		if (err == nil) != tt.ok {
			t.Errorf("%s token=%q origin=%q: %v, want ok=%v", tt.method, tt.token, tt.origin, err, tt.ok)
		}
		if err != nil && docmill.ErrorCode(err) != docmill.CodeForbidden {
			t.Errorf("%s: code %s", tt.method, docmill.ErrorCode(err))
		}
	}
}

// TestSessionCookie: HttpOnly, SameSite=Lax, Path=/ and 30 days always;
// Secure only when the base URL is https; the sign-out cookie expires.
func TestSessionCookie(t *testing.T) {
	tests := []struct {
		base   string
		secure bool
	}{
		{"http://localhost:8080", false},
		{"https://docmill.example", true},
		{"HTTPS://docmill.example/", true},
	}
	for _, tt := range tests {
		set := newSessionCookie(tt.base, "v").String()
		for _, part := range []string{"docmill_session=v", "Path=/", "Max-Age=2592000", "HttpOnly", "SameSite=Lax"} {
			if !strings.Contains(set, part) {
				t.Errorf("%s: %q lacks %s", tt.base, set, part)
			}
		}
		if strings.Contains(set, "Secure") != tt.secure {
			t.Errorf("%s: %q, want Secure %v", tt.base, set, tt.secure)
		}
		if cleared := clearedSessionCookie(tt.base).String(); !strings.Contains(cleared, "Max-Age=0") || !strings.Contains(cleared, "docmill_session=;") {
			t.Errorf("%s: cleared %q", tt.base, cleared)
		}
	}
}

// TestMailLimits: a mail request spends its client's address, its /24
// (IPv4, IPv4 in IPv6 too) or /64 (IPv6), then its mailbox's budget, at
// the numbers docs/api.md states.
func TestMailLimits(t *testing.T) {
	box := "mail:to:" + docmill.HashKey("a@example.com")
	tests := []struct {
		client string
		keys   []string
	}{
		{"203.0.113.57", []string{"mail:ip:203.0.113.57", "mail:net:203.0.113.0/24", box}},
		{"::ffff:203.0.113.9", []string{"mail:ip:203.0.113.9", "mail:net:203.0.113.0/24", box}},
		{"2001:db8:1:2:3:4:5:6", []string{"mail:ip:2001:db8:1:2:3:4:5:6", "mail:net:2001:db8:1:2::/64", box}},
		{"", []string{box}},
	}
	for _, tt := range tests {
		var client netip.Addr
		if tt.client != "" {
			client = netip.MustParseAddr(tt.client)
		}
		got := mailLimitsOf("a@example.com", client)
		var keys []string
		for _, l := range got {
			keys = append(keys, l.key)
			want := map[string]int{"ip": 10, "net": 30, "to": 5}[strings.Split(l.key, ":")[1]]
			if l.limit != want {
				t.Errorf("%s: %s limit %d, want %d", tt.client, l.key, l.limit, want)
			}
		}
		if strings.Join(keys, " ") != strings.Join(tt.keys, " ") {
			t.Errorf("%s: %v, want %v", tt.client, keys, tt.keys)
		}
	}
}

// TestMailLang: the body's language, else Accept-Language's first that
// docmill speaks, else English.
func TestMailLang(t *testing.T) {
	tests := []struct{ asked, accept, want string }{
		{"ru", "", "ru"},
		{"", "ru-RU,ru;q=0.9,en;q=0.8", "ru"},
		{"", "de-DE, en;q=0.5", "en"},
		{"fr", "", "en"},
		{"", "", "en"},
		{"EN", "ru", "en"},
	}
	for _, tt := range tests {
		if got := mailLang(tt.asked, tt.accept); got != tt.want {
			t.Errorf("mailLang(%q, %q) = %q, want %q", tt.asked, tt.accept, got, tt.want)
		}
	}
}
