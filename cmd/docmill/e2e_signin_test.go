package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/mail/mailpittest"
)

// linkRE finds a mailed link and its token in a mail's text.
var linkRE = regexp.MustCompile(`(https?://\S+)/#/verify/([A-Za-z0-9_-]{43})`)

// reply is one HTTP reply, read whole.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (a reply) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("%d %s: %v", a.status, a.body, err)
	}
	return m
}

// request sends method path with a JSON body (none when "") and the
// headers hdr through hc, and wants status.
func request(t testing.TB, hc *http.Client, method, url, body string, hdr map[string]string, status int) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("%s %s %s: %d %s, want %d", method, url, body, resp.StatusCode, b, status)
	}
	return reply{resp.StatusCode, resp.Header, b}
}

// profile is a client with its own cookie jar, as a browser profile.
func profile(t testing.TB) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar}
}

// mailedToken waits for the n-th mail to addr, checks that it is the
// last, that its link is under s's URL, and returns the link's token.
func mailedToken(t testing.TB, mp *mailpittest.Server, s *testServer, addr string, n int) string {
	t.Helper()
	msgs := mp.WaitFor(t, addr, n, time.Minute)
	// A second mail, if any, was queued before the request was answered:
	// once s's mail queue holds no mail still to send, it is in.
	awaitRiverSettled(t, s.DataDir, "docmill.mail")
	if again := mp.WaitFor(t, addr, n, time.Second); len(again) != n {
		t.Fatalf("%d mails to %s, want %d", len(again), addr, n)
	}
	base := s.URL
	m := linkRE.FindStringSubmatch(msgs[n-1].Text)
	if m == nil || m[1] != base {
		t.Fatalf("mail %d to %s: no link under %s in:\n%s", n, addr, base, msgs[n-1].Text)
	}
	return m[2]
}

// TestAccountsByMail: sign-up mails one link and makes nothing until it
// is opened; the link makes the account, shows its first key once, and
// works once; another spelling of the mailbox makes nothing and gets a
// sign-in link, with an reply the same byte for byte; sign-in from a
// second browser, whose sign-out ends its session only; the CSRF rule;
// the CLI's keys commands against the server; a suspended account's
// session and key refused; the mail limits.
func TestAccountsByMail(t *testing.T) {
	// Its Mailpit and server are its own.
	t.Parallel()
	mp := mailpittest.Start(t)
	s := startServer(t, "", "--smtp-url", mp.SMTPURL, "--mail-from", "docmill@example.com", "--trusted-proxies", "127.0.0.1/32")
	db := openDB(t, s.DataDir)
	accounts := func(email string) int {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM accounts WHERE email = $1`, email).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	hc := http.DefaultClient

	// Sign-up: 202, one mail with a link under the base URL, no account yet.
	first := request(t, hc, "POST", s.URL+"/v1/signup", `{"email":"alice@example.com","name":"Alice"}`, nil, 202)
	token := mailedToken(t, mp, s, "alice@example.com", 1)
	if n := accounts("alice@example.com"); n != 0 {
		t.Fatalf("%d accounts before the link was opened", n)
	}
	home := profile(t)
	request(t, home, "POST", s.URL+"/v1/sessions", `{"token":"`+token+`"}`, map[string]string{"Origin": "https://evil.example"}, 403)
	opened := request(t, home, "POST", s.URL+"/v1/sessions", `{"token":"`+token+`"}`, map[string]string{"Origin": s.URL}, 201)
	out := opened.json(t)
	key, _ := out["api_key"].(string)
	acct, err := s.client(key).Account(context.Background())
	if err != nil || acct.Email != "alice@example.com" || acct.Plan != "free" || acct.Name != "Alice" || acct.Limits.OperationsPerMonth != 100 {
		t.Fatalf("the new account: %+v %v (%s)", acct, err, opened.body)
	}
	if set := opened.header.Get("Set-Cookie"); !strings.Contains(set, "HttpOnly") || !strings.Contains(set, "SameSite=Lax") || strings.Contains(set, "Secure") {
		t.Errorf("Set-Cookie %q", set)
	}
	request(t, profile(t), "POST", s.URL+"/v1/sessions", `{"token":"`+token+`"}`, nil, 410)

	// The same mailbox spelt otherwise: nothing new, a sign-in link, and
	// the same reply.
	second := request(t, hc, "POST", s.URL+"/v1/signup", `{"email":"Alice+x@Example.com"}`, nil, 202)
	sameAnswer(t, first, second)
	signIn, err := s.client("").OpenLink(context.Background(), mailedToken(t, mp, s, "alice@example.com", 2))
	if err != nil || signIn.APIKey != "" || signIn.Account.AccountID != acct.AccountID || signIn.Cookie == "" || accounts("alice@example.com") != 1 {
		t.Fatalf("a second sign-up made %+v %v", signIn, err)
	}

	// Sign-in from a second browser; its sign-out ends its session only.
	if sent, err := s.client("").Login(context.Background(), "alice@example.com", "ru"); err != nil || sent.Status != "mail_sent" {
		t.Fatalf("login: %+v %v", sent, err)
	}
	away := profile(t)
	request(t, away, "POST", s.URL+"/v1/sessions", `{"token":"`+mailedToken(t, mp, s, "alice@example.com", 3)+`"}`, nil, 201)
	sess := request(t, away, "GET", s.URL+"/v1/session", "", nil, 200).json(t)
	csrf := map[string]string{"X-CSRF-Token": sess["csrf_token"].(string)}
	request(t, away, "DELETE", s.URL+"/v1/session", "", nil, 403)
	request(t, away, "DELETE", s.URL+"/v1/session", "", csrf, 204)
	request(t, away, "GET", s.URL+"/v1/session", "", nil, 401)
	request(t, away, "GET", s.URL+"/v1/keys", "", nil, 401)

	// The first browser's session goes on; it changes nothing without its
	// CSRF token or from another site.
	sess = request(t, home, "GET", s.URL+"/v1/session", "", nil, 200).json(t)
	csrf = map[string]string{"X-CSRF-Token": sess["csrf_token"].(string)}
	request(t, home, "POST", s.URL+"/v1/keys", `{"name":"web"}`, nil, 403)
	request(t, home, "POST", s.URL+"/v1/keys", `{"name":"web"}`, map[string]string{"X-CSRF-Token": csrf["X-CSRF-Token"], "Origin": "https://evil.example"}, 403)
	request(t, home, "POST", s.URL+"/v1/keys", `{"name":"web"}`, map[string]string{"X-CSRF-Token": csrf["X-CSRF-Token"], "Origin": s.URL}, 201)
	keys := request(t, home, "GET", s.URL+"/v1/keys", "", nil, 200).json(t)["keys"].([]any)
	if used := keys[0].(map[string]any); len(keys) != 2 || used["last_used_ip"] != "127.0.0.1" || used["last_used_at"] == nil {
		t.Errorf("keys %v", keys)
	}

	keysByCLI(t, s, key)

	// A suspended account's session and keys are refused.
	runCLI(t, append([]string{"accounts", "suspend", acct.AccountID}, dataArgs(s.DataDir)...)...)
	if out := request(t, home, "GET", s.URL+"/v1/session", "", nil, 403).json(t); out["code"] != "account_suspended" {
		t.Errorf("a suspended account's session: %v", out)
	}
	_, err = s.client(key).Account(context.Background())
	apiError(t, err, 403, "account_suspended")

	mailLimits(t, s)
}

// sameAnswer checks that two answers differ in nothing but their request
// ids and dates.
func sameAnswer(t testing.TB, a, b reply) {
	t.Helper()
	if !bytes.Equal(a.body, b.body) || a.status != b.status {
		t.Errorf("answers differ:\n%d %s\n%d %s", a.status, a.body, b.status, b.body)
	}
	for _, h := range []http.Header{a.header, b.header} {
		h.Del("X-Request-Id")
		h.Del("Date")
	}
	if fmt.Sprint(a.header) != fmt.Sprint(b.header) {
		t.Errorf("headers differ:\n%v\n%v", a.header, b.header)
	}
}

// keysByCLI: `docmill keys` creates, renames, lists and revokes the
// account's keys on the server with one of its keys.
func keysByCLI(t *testing.T, s *testServer, key string) {
	conn := []string{"--url", s.URL, "--key", key}
	out := runCLI(t, append([]string{"keys", "create", "--name", "ci"}, conn...)...)
	var made string
	for _, l := range strings.Split(out, "\n") {
		if m := keyRE.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			made = m[1]
		}
	}
	if made == "" {
		t.Fatalf("keys create printed no key:\n%s", out)
	}
	prefix := made[:12]
	runCLI(t, append([]string{"keys", "rename", prefix, "deploys"}, conn...)...)
	if list := runCLI(t, append([]string{"keys", "list"}, conn...)...); !strings.Contains(list, prefix) || !strings.Contains(list, "deploys") {
		t.Errorf("keys list:\n%s", list)
	}
	runCLI(t, append([]string{"keys", "revoke", prefix}, conn...)...)
	_, err := s.client(made).Account(context.Background())
	apiError(t, err, 401, "unauthorized")
}

// mailLimits: links mailed an hour are limited to 5 to one mailbox, 10
// from one client address and 30 from one /24, each then 429 with a
// Retry-After. The server trusts 127.0.0.1 as a proxy, so that each
// request is from the address it forwards. Sign-in requests for
// addresses without an account count, though they send nothing.
func mailLimits(t *testing.T, s *testServer) {
	login := func(email, from string, status int) reply {
		t.Helper()
		return request(t, http.DefaultClient, "POST", s.URL+"/v1/login", `{"email":"`+email+`"}`, map[string]string{"X-Forwarded-For": from}, status)
	}
	limited := func(a reply) {
		t.Helper()
		if a.header.Get("Retry-After") == "" || a.json(t)["code"] != "rate_limited" {
			t.Errorf("429 %v %s", a.header, a.body)
		}
	}
	for i := range 5 {
		login("box@example.com", fmt.Sprintf("10.1.%d.1", i), 202)
	}
	limited(login("Box+again@example.com", "10.1.9.1", 429))
	for i := range 10 {
		login(fmt.Sprintf("ip%d@example.com", i), "10.2.0.1", 202)
	}
	limited(login("ip10@example.com", "10.2.0.1", 429))
	for i := range 30 {
		login(fmt.Sprintf("net%d@example.com", i), fmt.Sprintf("10.3.0.%d", i+1), 202)
	}
	limited(login("net30@example.com", "10.3.0.200", 429))
	login("other@example.com", "10.3.1.1", 202)
}
