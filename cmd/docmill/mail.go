package main

import (
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/url"
	"os"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/mail"
)

// mailFlags say where the sign-up and sign-in mail goes: an SMTP server,
// or, without --smtp-url, the log (development).
type mailFlags struct {
	smtpURL string
	from    string
	caFile  string
	// sender is made by check, before anything starts.
	sender docmill.MailSender
}

func (m *mailFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.smtpURL, "smtp-url", "", "SMTP server of the sign-up and sign-in mail: smtp://user:password@host:port (STARTTLS whenever the server offers it; port 587 by default) or smtps://... (TLS from the first byte; port 465); empty: mail is not sent, each message's link is logged (development)")
	fs.StringVar(&m.from, "mail-from", "", "From of the mail, an address with an optional name (default: docmill <noreply@HOST>, HOST being --base-url's host)")
	fs.StringVar(&m.caFile, "smtp-ca", "", "PEM file of the CA certificates that the SMTP server's certificate must chain to, instead of the system's (a private CA)")
}

// check makes the sender, so that a URL, From or CA file that cannot work
// stops the server at start-up.
func (m *mailFlags) check(baseURL string) error {
	if m.smtpURL == "" {
		if m.caFile != "" {
			return errors.New("--smtp-ca needs --smtp-url")
		}
		return nil
	}
	from := m.from
	if from == "" {
		from = defaultMailFrom(baseURL)
	}
	var opts []mail.Option
	if m.caFile != "" {
		pem, err := os.ReadFile(m.caFile)
		if err != nil {
			return fmt.Errorf("--smtp-ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("--smtp-ca: %s holds no PEM certificate", m.caFile)
		}
		opts = append(opts, mail.WithRootCAs(pool))
	}
	if _, err := netmail.ParseAddress(from); err != nil {
		return fmt.Errorf("--mail-from %q: %w", from, err)
	}
	s, err := mail.NewSMTP(m.smtpURL, from, opts...)
	if err != nil {
		return fmt.Errorf("--smtp-url: %w", err)
	}
	m.sender = s
	return nil
}

// defaultMailFrom is docmill <noreply@HOST>, HOST being baseURL's host,
// or localhost without one.
func defaultMailFrom(baseURL string) string {
	host := "localhost"
	if u, err := url.Parse(baseURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return "docmill <noreply@" + host + ">"
}

// open returns the sender checked at start-up, or the log's without
// --smtp-url, and says in the log, on a node that sends mail (one that
// works jobs), where mail goes.
func (m *mailFlags) open(role string, log *slog.Logger) docmill.MailSender {
	sends := role != "api"
	if m.sender == nil {
		if sends {
			log.Warn("no --smtp-url: mail is not sent; each message, with its link, goes to this log (development only)")
		}
		return mail.NewLog(log)
	}
	if sends {
		u, _ := url.Parse(m.smtpURL)
		log.Info("mail goes to the SMTP server", "smtp", u.Scheme+"://"+u.Host)
	}
	return m.sender
}
