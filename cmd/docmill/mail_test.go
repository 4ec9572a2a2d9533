package main

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/mail/mailpittest"
)

// TestMailFlags: --smtp-url, --mail-from and --smtp-ca (or their
// DOCMILL_ variables) make a sender that reaches a real SMTP server over
// STARTTLS with a private CA; what cannot work stops the start.
func TestMailFlags(t *testing.T) {
	// Its Mailpit is its own.
	t.Parallel()
	pit := mailpittest.Start(t, mailpittest.WithTLS(mailpittest.STARTTLS), mailpittest.WithAuth())
	noPEM := filepath.Join(t.TempDir(), "empty.pem")
	if err := os.WriteFile(noPEM, []byte("no certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	parse := func(env map[string]string, args ...string) (*serveFlags, error) {
		e := &environment{getenv: func(k string) string { return env[k] }, stderr: io.Discard}
		f, _, err := parseServe(e, args)
		return f, err
	}
	for _, tc := range []struct {
		args []string
		env  map[string]string
		err  string
	}{
		{args: []string{"--smtp-url", "http://mail.example.com"}, err: "--smtp-url"},
		{env: map[string]string{"DOCMILL_SMTP_URL": "smtp://u:topsecret@mail.example.com:x"}, err: "--smtp-url"},
		{args: []string{"--smtp-url", "smtp://mail.example.com", "--mail-from", "nobody"}, err: "--mail-from"},
		{args: []string{"--smtp-ca", pit.CAFile}, err: "--smtp-ca needs --smtp-url"},
		{args: []string{"--smtp-url", "smtp://mail.example.com", "--smtp-ca", noPEM}, err: "no PEM certificate"},
		{args: []string{"--smtp-url", "smtp://mail.example.com", "--smtp-ca", noPEM + ".missing"}, err: "--smtp-ca"},
	} {
		_, err := parse(tc.env, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "topsecret") {
			t.Errorf("%v %v: error %v, want one with %q (and no password)", tc.args, tc.env, err, tc.err)
		}
	}

	f, err := parse(map[string]string{"DOCMILL_SMTP_URL": pit.SMTPURL, "DOCMILL_SMTP_CA": pit.CAFile},
		"--base-url", "https://docmill.example")
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	s := f.mail.open("all", slog.New(slog.NewTextHandler(&logs, nil)))
	m := docmill.Mail{To: "flags@example.com", Kind: docmill.MailSignup, Lang: "ru",
		Link: "https://docmill.example/#/verify/x", Expires: time.Now().Add(time.Hour)}
	if err := s.SendMail(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	got := pit.WaitFor(t, m.To, 1, 10*time.Second)[0]
	if got.From == nil || got.From.Address != "noreply@docmill.example" || got.From.Name != "docmill" {
		t.Errorf("From %+v, want docmill <noreply@docmill.example>", got.From)
	}
	if !strings.Contains(logs.String(), "mail goes to the SMTP server") || strings.Contains(logs.String(), "secret") {
		t.Errorf("start-up log:\n%s", logs.String())
	}
}

// TestMailToLog: without --smtp-url mail goes to the log, and a node that
// sends mail says so at start-up; an API node, which sends none, does not.
func TestMailToLog(t *testing.T) {
	t.Parallel()
	e := &environment{getenv: func(string) string { return "" }, stderr: io.Discard}
	f, _, err := parseServe(e, nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	f.mail.open("api", log)
	if logs.Len() != 0 {
		t.Errorf("API node's start-up log:\n%s", logs.String())
	}
	s := f.mail.open("all", log)
	if !strings.Contains(logs.String(), "no --smtp-url") {
		t.Errorf("start-up log:\n%s", logs.String())
	}
	m := docmill.Mail{To: "dev@example.com", Kind: docmill.MailSignIn, Link: "http://localhost:8080/#/verify/y"}
	if err := s.SendMail(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "link="+m.Link) {
		t.Errorf("the link is not in the log:\n%s", logs.String())
	}
	if got := defaultMailFrom(""); got != "docmill <noreply@localhost>" {
		t.Errorf("defaultMailFrom(\"\") = %q", got)
	}
}
