package mail_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/mail"
	"github.com/docmill/docmill/mail/mailpittest"
)

const from = "docmill <noreply@docmill.example>"

func newMail(to string, kind docmill.MailKind, lang string) docmill.Mail {
	return docmill.Mail{
		To: to, Kind: kind, Lang: lang,
		Link:    "https://docmill.example/#/verify/tok_" + string(kind) + "_" + lang,
		Expires: time.Date(2026, 11, 28, 21, 30, 0, 0, time.UTC),
	}
}

func newSender(t *testing.T, url string, opts ...mail.Option) docmill.MailSender {
	t.Helper()
	s, err := mail.NewSMTP(url, from, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestKindsAndLanguages sends every kind in each language, and one in a
// language docmill does not speak (English then), and reads them back.
func TestKindsAndLanguages(t *testing.T) {
	pit := mailpittest.Start(t)
	s := newSender(t, pit.SMTPURL)
	subjects := map[string]string{
		"signup/en": "Confirm your docmill sign-up", "signup/ru": "Подтвердите регистрацию в docmill",
		"sign_in/en": "Your docmill sign-in link", "sign_in/ru": "Ссылка для входа в docmill",
		"signup/de": "Confirm your docmill sign-up", "sign_in/": "Your docmill sign-in link",
	}
	for key, subject := range subjects {
		kind, lang, _ := strings.Cut(key, "/")
		m := newMail(kind+".x"+lang+"@example.com", docmill.MailKind(kind), lang)
		if err := s.SendMail(t.Context(), m); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		got := pit.WaitFor(t, m.To, 1, 10*time.Second)[0]
		if got.Subject != subject {
			t.Errorf("%s: subject %q, want %q", key, got.Subject, subject)
		}
		if len(got.To) != 1 || got.To[0].Address != m.To || got.From == nil || got.From.Address != "noreply@docmill.example" {
			t.Errorf("%s: from %+v to %+v", key, got.From, got.To)
		}
		if !strings.Contains(got.Text, m.Link) || !strings.Contains(got.Text, "2026-11-28 21:30 UTC") {
			t.Errorf("%s: text part lacks the link or expiry:\n%s", key, got.Text)
		}
		if !strings.Contains(got.HTML, `href="`+m.Link+`"`) || !strings.Contains(got.HTML, ">"+m.Link+"<") {
			t.Errorf("%s: HTML part lacks the link:\n%s", key, got.HTML)
		}
		if !strings.HasSuffix(got.MessageID, "@docmill.example") || time.Since(got.Date).Abs() > time.Minute {
			t.Errorf("%s: Message-ID %q, Date %v", key, got.MessageID, got.Date)
		}
		if strings.HasSuffix(key, "/ru") != strings.Contains(got.Text, "Здравствуйте") {
			t.Errorf("%s: text in the wrong language:\n%s", key, got.Text)
		}
	}
}

// TestHTMLEscapesLink: a link is text, never markup, in the HTML part.
func TestHTMLEscapesLink(t *testing.T) {
	pit := mailpittest.Start(t)
	m := newMail("escape@example.com", docmill.MailSignIn, "en")
	m.Link = `https://docmill.example/#/verify/a"><script>alert(1)</script>&x=1`
	if err := newSender(t, pit.SMTPURL).SendMail(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	got := pit.WaitFor(t, m.To, 1, 10*time.Second)[0]
	if strings.Contains(got.HTML, "<script>") || !strings.Contains(got.HTML, "&amp;x=1") {
		t.Fatalf("HTML part:\n%s", got.HTML)
	}
	if !strings.Contains(got.Text, m.Link) {
		t.Fatalf("text part:\n%s", got.Text)
	}
}

// TestTLS sends over STARTTLS and over implicit TLS, with a password, to a
// server whose certificate only the given pool trusts; without the pool
// the handshake fails, which shows TLS was used.
func TestTLS(t *testing.T) {
	for _, mode := range []mailpittest.TLSMode{mailpittest.STARTTLS, mailpittest.ImplicitTLS} {
		pit := mailpittest.Start(t, mailpittest.WithTLS(mode), mailpittest.WithAuth())
		t.Run(pit.SMTPURL[:strings.Index(pit.SMTPURL, ":")], func(t *testing.T) {
			m := newMail("tls@example.com", docmill.MailSignup, "en")
			err := newSender(t, pit.SMTPURL).SendMail(t.Context(), m)
			if err == nil || !strings.Contains(err.Error(), "certificate") {
				t.Fatalf("untrusted certificate: err = %v", err)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("error shows the password: %v", err)
			}
			if err := newSender(t, pit.SMTPURL, mail.WithRootCAs(pit.CAPool)).SendMail(t.Context(), m); err != nil {
				t.Fatal(err)
			}
			if got := pit.WaitFor(t, m.To, 1, 10*time.Second)[0]; got.Username != "user" {
				t.Fatalf("authenticated as %q, want the URL's user", got.Username)
			}
		})
	}
}

// TestRefused: a server that is down, or that refuses the recipient, is an
// error; only the refusal is permanent.
func TestRefused(t *testing.T) {
	pit := mailpittest.Start(t, mailpittest.WithAllowedRecipients(`@example\.com$`))
	s := newSender(t, pit.SMTPURL)
	err := s.SendMail(t.Context(), newMail("nobody@elsewhere.example", docmill.MailSignIn, "en"))
	var p interface{ Permanent() bool }
	if err == nil || !errors.As(err, &p) || !p.Permanent() {
		t.Fatalf("refused recipient: err = %v", err)
	}
	pit.Stop()
	err = s.SendMail(t.Context(), newMail("ok@example.com", docmill.MailSignIn, "en"))
	if err == nil || errors.As(err, &p) {
		t.Fatalf("server down: err = %v, want a temporary error", err)
	}
}

func TestNewSMTPRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct{ url, from string }{
		{"", from},
		{"http://mail.example.com", from},
		{"smtp://", from},
		{"smtp://mail.example.com:0", from},
		{"smtp://mail.example.com:99999", from},
		{"smtp://mail.example.com:x", from},
		{"smtp://mail.example.com/path", from},
		{"smtp://mail.example.com?tls=no", from},
		{"smtp://:secret@mail.example.com", from},
		{"smtp://mail.example.com", "not an address"},
		{"smtp://mail.example.com", ""},
	} {
		_, err := mail.NewSMTP(tc.url, tc.from)
		if err == nil {
			t.Errorf("NewSMTP(%q, %q) = nil error", tc.url, tc.from)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("NewSMTP(%q): error shows the password: %v", tc.url, err)
		}
	}
	for _, u := range []string{"smtp://mail.example.com", "smtps://u:p@mail.example.com:2465", "smtp://u:p%40x@[::1]:25/"} {
		if _, err := mail.NewSMTP(u, "noreply@example.com"); err != nil {
			t.Errorf("NewSMTP(%q): %v", u, err)
		}
	}
}

func TestLogSender(t *testing.T) {
	var buf bytes.Buffer
	s := mail.NewLog(slog.New(slog.NewTextHandler(&buf, nil)))
	m := newMail("dev@example.com", docmill.MailSignup, "ru")
	if err := s.SendMail(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"to=dev@example.com", "kind=signup", "link=" + m.Link} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, buf.String())
		}
	}
	if err := s.SendMail(t.Context(), docmill.Mail{To: "x@example.com", Kind: "nonsense"}); err == nil {
		t.Error("unknown kind: no error")
	}
}
