package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/docmill/docmill/mail/mailpittest"
)

// verifyLinkRE finds a mailed link in a message's text.
var verifyLinkRE = regexp.MustCompile(`https?://[^\s"'<>]+/#/verify/[A-Za-z0-9_=.-]+`)

var cyrillicRE = regexp.MustCompile(`\p{Cyrillic}`)

// accountsSite is the server and mail server the accounts test drives.
type accountsSite struct {
	base string // the server's base URL, which its mailed links are under
	srv  *testServer
	mail *mailpittest.Server
	// sent counts the mails each address has had, to wait for the next.
	sent map[string]int
}

// TestWebAccounts drives the accounts in Chromium against one real server
// (real SQLite) that mails through a real Mailpit: the sign-up page and its
// mail in Russian; a sign-up in the page, the mailed link, its button, the
// first key shown once with a Copy button; a tool used by the session alone
// (no key pasted: the cookie and the CSRF header); a key created, renamed
// and revoked on Your keys; sign-out and a mailed sign-in; a sign-in from a
// second browser profile whose sign-out leaves the first signed in.
func TestWebAccounts(t *testing.T) {
	t.Parallel()
	mp := mailpittest.Start(t)
	// The base URL must be the page's own origin: the cookie and the
	// server's Origin check are per origin. So the port is chosen first.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	base := "http://" + addr
	srv := startServer(t, "", "--addr", addr, "--base-url", base, "--signup", "open",
		"--smtp-url", mp.SMTPURL, "--mail-from", "docmill@example.test")
	site := &accountsSite{base: base, srv: srv, mail: mp, sent: map[string]int{}}

	b := newBrowser(t)
	b.dir = filepath.Join(screenshotDir, "accounts")
	b.run(chromedp.Navigate(base + "/"))
	b.wait(`document.body.dataset.ready === "1" && document.querySelectorAll("a.card").length > 20`, 20*time.Second)

	acctRussian(b, site)
	key := acctSignUp(b, site, "alice@example.com")
	acctTool(b)
	acctPlans(b)
	acctKeys(b, site, key)
	acctSignOutAndIn(b, site, "alice@example.com")
	acctSecondProfile(b, site, "alice@example.com")
}

// evalPromise evaluates expr and waits for the promise it returns.
func (b *browser) evalPromise(expr string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("%s: %v", expr, err)
	}
	return s
}

// nextLink waits for the next mail to addr and returns it and its link,
// which must be under the base URL.
func (s *accountsSite) nextLink(t *testing.T, addr string) (*mailpittest.Message, string) {
	t.Helper()
	s.sent[addr]++
	msgs := s.mail.WaitFor(t, addr, s.sent[addr], 30*time.Second)
	m := msgs[len(msgs)-1]
	link := verifyLinkRE.FindString(m.Text)
	if !strings.HasPrefix(link, s.base+"/#/verify/") {
		t.Fatalf("mail %q: link %q is not under %s/#/verify/:\n%s", m.Subject, link, s.base, m.Text)
	}
	if !strings.Contains(m.HTML, link) {
		t.Errorf("the HTML part of %q lacks the link %s", m.Subject, link)
	}
	return m, link
}

// askMail fills the panel's sign-up (name may be "") or sign-in form and
// waits for "check your mail".
func askMail(b *browser, signup bool, email, name string) {
	b.t.Helper()
	form, open := "signin", "signin-open"
	if signup {
		form, open = "signup", "signup-open"
	}
	b.run(chromedp.Click(chromedp.ID(open)))
	b.wait(`!document.getElementById("authbox").hidden && document.activeElement.id === "`+form+`-email"`, 5*time.Second)
	b.run(chromedp.SendKeys(chromedp.ID(form+"-email"), email))
	if name != "" {
		b.run(chromedp.SendKeys(chromedp.ID("signup-name"), name))
	}
	b.run(chromedp.Click(chromedp.CSS(`#` + form + `-form button[type=submit]`)))
	b.wait(`!document.getElementById("auth-sent").hidden`, 10*time.Second)
	if got := b.eval(`document.getElementById("auth-sent-text").textContent`); !strings.Contains(got, email) {
		b.t.Errorf("check-your-mail text %q does not name %s", got, email)
	}
}

// openLink opens a mailed link in b and presses its one button.
func openLink(b *browser, link string) {
	b.t.Helper()
	b.run(chromedp.Navigate(link))
	b.wait(`document.body.dataset.ready === "1" && !document.getElementById("verify").hidden && !document.getElementById("verify-form").hidden`, 20*time.Second)
	// The page itself spends nothing: the session starts with the button.
	if got := b.evalPromise(`fetch("/v1/session").then(r => String(r.status))`); got != "401" {
		b.t.Errorf("before the button: GET /v1/session %s, want 401", got)
	}
	b.run(chromedp.Click(chromedp.ID("verify-go")))
}

// acctRussian: the sign-up panel in Russian, and its mail in Russian too
// (the page sends its language).
func acctRussian(b *browser, s *accountsSite) {
	t := b.t
	b.setLang("ru")
	b.run(chromedp.Click(chromedp.ID("signup-open")))
	got := b.eval(`[document.getElementById("signin-open").textContent, document.getElementById("signup-open").textContent,
		document.querySelector("#signup-form h3").textContent, document.querySelector('label[for="signup-email"]').textContent,
		document.querySelector("#signup-form button[type=submit]").textContent, document.querySelector("#signin-form button[type=submit]").textContent].join("|")`)
	if got != "Войти|Зарегистрироваться|Зарегистрироваться|Эл. почта|Зарегистрироваться|Прислать ссылку для входа" {
		t.Errorf("ru sign-up panel %q", got)
	}
	b.shot("0-ru-sign-up")
	b.run(chromedp.Click(chromedp.ID("auth-close")))
	askMail(b, true, "ivan@example.com", "Иван")
	if got := b.eval(`document.querySelector("#auth-sent h3").textContent`); got != "Проверьте почту" {
		t.Errorf("ru check-your-mail heading %q", got)
	}
	b.shot("1-ru-check-mail")
	m, _ := s.nextLink(t, "ivan@example.com")
	if !cyrillicRE.MatchString(m.Subject) || !cyrillicRE.MatchString(m.Text) || !cyrillicRE.MatchString(m.HTML) {
		t.Errorf("the sign-up mail from the Russian page is not in Russian: %q\n%s", m.Subject, m.Text)
	}
	b.run(chromedp.Click(chromedp.ID("auth-close")))
	b.setLang("en")
}

// acctSignUp signs up in the page, opens the mailed link and returns the
// first key, shown once with a Copy button.
func acctSignUp(b *browser, s *accountsSite, email string) string {
	t := b.t
	askMail(b, true, email, "Alice")
	if got := b.eval(`document.querySelector("#auth-sent h3").textContent`); got != "Check your mail" {
		t.Errorf("check-your-mail heading %q", got)
	}
	m, link := s.nextLink(t, email)
	if cyrillicRE.MatchString(m.Subject) {
		t.Errorf("the English page's sign-up mail has a Russian subject %q", m.Subject)
	}
	openLink(b, link)
	b.wait(`!document.getElementById("verify-done").hidden && !document.getElementById("first-key").hidden`, 10*time.Second)
	key := b.eval(`document.getElementById("first-key-value").textContent`)
	if !strings.HasPrefix(key, "dm_live_") {
		t.Fatalf("first key %q", key)
	}
	if got := b.eval(`location.hash + "|" + String(localStorage.getItem("docmill.key")) + "|" + document.cookie.includes("docmill_session")`); got != "#/verify|null|false" {
		t.Errorf("after the link: hash, stored key, script-visible cookie = %q, want #/verify|null|false", got)
	}
	b.wait(`document.querySelector("#account .who") !== null && document.querySelector("#account .who").textContent === "`+email+`"`, 10*time.Second)
	b.shot("2-first-key")
	acctCopy(b, key)

	// Shown once: the page opened again has no key, and the link is spent.
	b.run(chromedp.Reload())
	b.wait(`document.body.dataset.ready === "1" && !document.getElementById("verify-error").hidden`, 20*time.Second)
	if got := b.eval(`document.getElementById("first-key-value").textContent + "|" + document.getElementById("first-key").hidden`); got != "|true" {
		t.Errorf("the first key after a reload: %q", got)
	}
	b.run(chromedp.Navigate(link))
	b.wait(`!document.getElementById("verify-form").hidden`, 20*time.Second)
	b.run(chromedp.Click(chromedp.ID("verify-go")))
	b.wait(`!document.getElementById("verify-error").hidden`, 10*time.Second)
	if got := b.eval(`document.getElementById("verify-error-text").textContent`); got != "This link was used or has expired; ask for a new one." {
		t.Errorf("a used link: %q", got)
	}
	// Still signed in by the first use.
	b.wait(`document.querySelector("#account .who") !== null`, 10*time.Second)
	return key
}

// acctCopy presses the first key's Copy button: the key is on the
// clipboard, or, where the browser refuses, selected for Ctrl+C.
func acctCopy(b *browser, key string) {
	t := b.t
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		_, err := chromedp.Call(b.ctx, cdpbrowser.SetPermission, cdpbrowser.SetPermissionParams{
			Permission: &cdpbrowser.PermissionDescriptor{Name: name}, Setting: cdpbrowser.PermissionSettingGranted})
		if err != nil {
			t.Logf("granting %s: %v", name, err)
		}
	}
	b.run(chromedp.Click(chromedp.ID("first-key-copy")))
	b.wait(`document.getElementById("first-key-status").textContent !== ""`, 5*time.Second)
	switch status := b.eval(`document.getElementById("first-key-status").textContent`); status {
	case "The key is copied.":
		clip, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
		if err != nil || clip != key {
			t.Errorf("clipboard %q (%v), want the key", clip, err)
		}
	case "Copying is not allowed here: the key is selected, copy it with Ctrl+C.":
		if got := b.eval(`getSelection().toString()`); got != key {
			t.Errorf("selection %q, want the key", got)
		}
	default:
		t.Errorf("after Copy: %q", status)
	}
}

// acctTool runs rotate-pdf on a PDF the test makes, signed in by the
// session alone: the upload carries the CSRF header, no key.
func acctTool(b *browser) {
	t := b.t
	pdf := filepath.Join(t.TempDir(), "curves.pdf")
	writeVectorPDF(t, pdf, 2, 20)
	b.openTool("rotate-pdf")
	if got := b.eval(`document.getElementById("tool-needkey").hidden + ""`); got != "true" {
		t.Error("signed in by the session, the tool still asks to sign in")
	}
	b.choose(pdf)
	b.wait(`document.querySelectorAll("#file-list li").length === 1`, 5*time.Second)
	b.run(chromedp.Click(chromedp.ID("start")))
	b.wait(`!document.getElementById("result").hidden`, 60*time.Second)
	in, err := os.ReadFile(pdf)
	if err != nil {
		t.Fatal(err)
	}
	out := b.download()
	before, after := pdfPages(t, in), pdfPages(t, out)
	if len(after) != 2 || len(before) != 2 || after[0] == before[0] {
		t.Errorf("rotate-pdf: page rotations %v, from %v", after, before)
	}
	b.wait(`document.getElementById("account").textContent.includes("1 of 100")`, 10*time.Second)
	b.shot("3-tool-by-session")
}

// acctPlans: the Plans page marks the new account's Free plan and says how
// to change plan (this server's config names no contact: its operator).
func acctPlans(b *browser) {
	t := b.t
	b.eval(`(() => { location.hash = "#/plans"; return ""; })()`)
	b.wait(`!document.getElementById("plans").hidden && document.querySelector('#plans-list li[aria-current="true"]') !== null`, 10*time.Second)
	if got := b.eval(`document.querySelector('#plans-list li[aria-current="true"]').dataset.plan`); got != "free" {
		t.Errorf("plan marked %q, want free", got)
	}
	if got := b.eval(`document.getElementById("plans-upgrade").textContent`); got != "Plans are changed by the operator of this server: to change yours, write to them." {
		t.Errorf("how to change plan: %q", got)
	}
}

// keyRow is the JavaScript of the keys table's row for prefix.
func keyRow(prefix string) string {
	return `document.querySelector('#keys-list tr[data-prefix="` + prefix + `"]')`
}

// acctKeys: Your keys lists the first key; a named key is created (shown
// once with Copy), used by a program (its last use shows), renamed and
// revoked (it stops working).
func acctKeys(b *browser, s *accountsSite, first string) {
	t := b.t
	b.eval(`(() => { location.hash = "#/keys"; return ""; })()`)
	b.wait(`!document.getElementById("keys-body").hidden && document.querySelectorAll("#keys-list tr").length === 1`, 10*time.Second)
	if got := b.eval(keyRow(first[:12]) + `.querySelector(".used").textContent`); got != "never" {
		t.Errorf("the first key's last use %q, want never", got)
	}
	b.run(chromedp.SendKeys(chromedp.ID("key-name"), "ci server"),
		chromedp.Click(chromedp.CSS(`#key-create-form button[type=submit]`)))
	b.wait(`!document.getElementById("key-new-box").hidden && document.querySelectorAll("#keys-list tr").length === 2`, 10*time.Second)
	key := b.eval(`document.getElementById("key-new-value").textContent`)
	if !strings.HasPrefix(key, "dm_live_") || b.eval(`document.getElementById("key-new-copy").textContent`) != "Copy" {
		t.Fatalf("new key %q, or no Copy button", key)
	}
	prefix := key[:12]
	if got := b.eval(keyRow(prefix) + `.querySelector(".name").textContent`); got != "ci server" {
		t.Errorf("new key's name %q", got)
	}
	// A program uses it: the page shows when and from where.
	c := s.srv.client(key)
	if _, err := c.Account(context.Background()); err != nil {
		t.Fatal(err)
	}
	b.eval(`(() => { location.hash = "#/"; return ""; })()`)
	b.wait(`document.getElementById("keys").hidden`, 5*time.Second)
	b.eval(`(() => { location.hash = "#/keys"; return ""; })()`)
	b.wait(keyRow(prefix)+` !== null && `+keyRow(prefix)+`.querySelector(".used").textContent.includes("from 127.0.0.1")`, 10*time.Second)

	// Rename.
	b.run(chromedp.Click(chromedp.CSS(`#keys-list tr[data-prefix="` + prefix + `"] button.rename`)))
	b.wait(`document.activeElement.closest("form.rename") !== null`, 5*time.Second)
	b.run(chromedp.SetValue(chromedp.CSS(`#keys-list form.rename input`), "billing"),
		chromedp.Click(chromedp.CSS(`#keys-list form.rename button[type=submit]`)))
	b.wait(keyRow(prefix)+`.querySelector(".name").textContent === "billing"`, 10*time.Second)
	if got := b.eval(`document.getElementById("keys-status").textContent`); got != "Key "+prefix+"… is now called billing." {
		t.Errorf("rename status %q", got)
	}
	b.shot("4-keys")
	checkLabels(b)
	checkContrast(b)

	// Revoke: the key stops working.
	b.run(chromedp.Click(chromedp.CSS(`#keys-list tr[data-prefix="` + prefix + `"] button.revoke`)))
	b.wait(keyRow(prefix)+`.dataset.revoked === "true"`, 10*time.Second)
	_, err := c.Account(context.Background())
	apiError(t, err, 401, "unauthorized")
}

// acctSignOutAndIn signs out (the session ends on the server too), then
// in again through a mailed sign-in link, which shows no key.
func acctSignOutAndIn(b *browser, s *accountsSite, email string) {
	t := b.t
	b.run(chromedp.Click(chromedp.ID("signout")))
	b.wait(`!document.getElementById("signin-open").hidden && document.getElementById("signout").hidden && document.querySelector("#account .who") === null`, 10*time.Second)
	if got := b.evalPromise(`fetch("/v1/session").then(r => String(r.status))`); got != "401" {
		t.Errorf("after sign-out: GET /v1/session %s, want 401", got)
	}
	askMail(b, false, email, "")
	_, link := s.nextLink(t, email)
	openLink(b, link)
	b.wait(`!document.getElementById("verify-done").hidden`, 10*time.Second)
	if got := b.eval(`document.getElementById("verify-welcome").textContent + "|" + document.getElementById("first-key").hidden`); got != "You are signed in as "+email+".|true" {
		t.Errorf("after a sign-in link: %q", got)
	}
}

// acctSecondProfile signs in from a second browser profile through a
// mailed link; signing out there leaves the first profile signed in.
func acctSecondProfile(b *browser, s *accountsSite, email string) {
	t := b.t
	b2 := newBrowser(t)
	b2.dir = b.dir
	b2.run(chromedp.Navigate(s.base + "/"))
	b2.wait(`document.body.dataset.ready === "1"`, 20*time.Second)
	askMail(b2, false, email, "")
	_, link := s.nextLink(t, email)
	openLink(b2, link)
	b2.wait(`!document.getElementById("verify-done").hidden && document.querySelector("#account .who") !== null`, 10*time.Second)
	b2.shot("5-second-profile")
	b2.run(chromedp.Click(chromedp.ID("signout")))
	b2.wait(`!document.getElementById("signin-open").hidden`, 10*time.Second)
	if got := b2.evalPromise(`fetch("/v1/session").then(r => String(r.status))`); got != "401" {
		t.Errorf("second profile after sign-out: GET /v1/session %s, want 401", got)
	}
	// The first profile's session goes on: reloaded, it is still signed in
	// and may still change things (the CSRF header).
	b.run(chromedp.Navigate(s.base + "/#/keys"))
	b.wait(`document.body.dataset.ready === "1" && document.querySelector("#account .who") !== null && !document.getElementById("keys-body").hidden`, 20*time.Second)
	if got := b.evalPromise(`fetch("/v1/session").then(r => String(r.status))`); got != "200" {
		t.Errorf("first profile after the second signed out: GET /v1/session %s, want 200", got)
	}
	b.wait(`document.querySelectorAll("#keys-list tr").length === 2`, 10*time.Second)
	b.run(chromedp.SendKeys(chromedp.ID("key-name"), "after"),
		chromedp.Click(chromedp.CSS(`#key-create-form button[type=submit]`)))
	b.wait(`document.querySelectorAll("#keys-list tr").length === 3`, 10*time.Second)
}
