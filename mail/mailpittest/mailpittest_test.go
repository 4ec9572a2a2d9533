package mailpittest_test

import (
	"crypto/tls"
	"net"
	"net/smtp"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/mail/mailpittest"
)

// send sends a minimal message with the standard library's client, over
// implicit TLS when tlsConf is set for an smtps server.
func send(t *testing.T, s *mailpittest.Server, to, subject string, implicit bool, tlsConf *tls.Config) {
	t.Helper()
	var conn net.Conn
	var err error
	if implicit {
		conn, err = tls.Dial("tcp", s.SMTPAddr, tlsConf)
	} else {
		conn, err = net.Dial("tcp", s.SMTPAddr)
	}
	if err != nil {
		t.Fatal(err)
	}
	c, err := smtp.NewClient(conn, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok && !implicit {
		if err := c.StartTLS(tlsConf); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Mail("from@example.com"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt(to); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	msg := "From: from@example.com\r\nTo: " + to + "\r\nSubject: " + subject + "\r\n\r\nhello\r\n"
	if _, err := w.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Quit(); err != nil {
		t.Fatal(err)
	}
}

func TestReceiveAndRestart(t *testing.T) {
	s := mailpittest.Start(t)
	if !strings.HasPrefix(s.SMTPURL, "smtp://127.0.0.1:") {
		t.Fatalf("SMTPURL = %q", s.SMTPURL)
	}
	send(t, s, "a@example.com", "first", false, nil)
	got := s.WaitFor(t, "A@example.com", 1, 10*time.Second)
	if got[0].Subject != "first" || !strings.Contains(got[0].Text, "hello") {
		t.Fatalf("got %+v", got[0])
	}
	s.Stop()
	if c, err := net.DialTimeout("tcp", s.SMTPAddr, time.Second); err == nil {
		c.Close()
		t.Fatal("SMTP port answers after Stop")
	}
	s.Restart()
	send(t, s, "a@example.com", "second", false, nil)
	got = s.WaitFor(t, "a@example.com", 2, 10*time.Second)
	if len(got) != 2 || got[0].Subject != "first" || got[1].Subject != "second" {
		t.Fatalf("after restart: %d messages, first %q", len(got), got[0].Subject)
	}
	if err := s.DeleteAll(); err != nil {
		t.Fatal(err)
	}
	if list, err := s.Messages(); err != nil || len(list) != 0 {
		t.Fatalf("after DeleteAll: %d messages, %v", len(list), err)
	}
}

func TestTLS(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mode     mailpittest.TLSMode
		scheme   string
		implicit bool
	}{
		{"starttls", mailpittest.STARTTLS, "smtp://", false},
		{"implicit", mailpittest.ImplicitTLS, "smtps://", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mailpittest.Start(t, mailpittest.WithTLS(tc.mode))
			if !strings.HasPrefix(s.SMTPURL, tc.scheme) || s.CAPool == nil || s.CAFile == "" {
				t.Fatalf("SMTPURL %q, CAPool %v, CAFile %q", s.SMTPURL, s.CAPool, s.CAFile)
			}
			send(t, s, "b@example.com", tc.name, tc.implicit, &tls.Config{RootCAs: s.CAPool, ServerName: "127.0.0.1"})
			s.WaitFor(t, "b@example.com", 1, 10*time.Second)
		})
	}
}
