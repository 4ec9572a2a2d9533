// Package mail sends docmill's mail: it renders each docmill.MailKind in
// each language (words.go) as plain text and HTML, and hands it to an SMTP
// server (NewSMTP) or, when the server has none, to the log (NewLog).
package mail

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	netmail "net/mail"
	"net/url"
	"strconv"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/docmill/docmill"
)

// Default ports, when the URL names none: submission (587) for smtp://,
// submissions (465) for smtps://.
const (
	DefaultPort    = 587
	DefaultTLSPort = 465
)

// dialTimeout bounds connecting to the server; the caller's context
// bounds the whole exchange.
const dialTimeout = 30 * time.Second

// Option changes how NewSMTP sends.
type Option func(*smtpSender)

// WithRootCAs makes the sender trust the server's certificate only when
// pool signs it, instead of the system's roots: for a server with a
// private CA (or a test's self-signed certificate).
func WithRootCAs(pool *x509.CertPool) Option {
	return func(s *smtpSender) { s.roots = pool }
}

// smtpSender sends each mail over its own connection: sign-up and sign-in
// mail is rare, and a connection held open would only go stale.
type smtpSender struct {
	host           string
	port           int
	implicitTLS    bool
	user, password string
	from           *netmail.Address
	roots          *x509.CertPool
}

// NewSMTP returns a sender to the SMTP server of smtpURL, with from as
// every message's From (an address, optionally with a display name:
// `docmill <noreply@example.com>`).
//
// smtpURL is smtp://[user:password@]host[:port] (STARTTLS whenever the
// server offers it, plain SMTP when it does not; default port 587) or
// smtps://[user:password@]host[:port] (TLS from the first byte; default
// port 465). With a user, the sender authenticates with the best
// mechanism the server offers, and never sends a password over an
// unencrypted connection to a host other than localhost. A URL or From
// that cannot work is an error here, at start-up; errors never show the
// password.
func NewSMTP(smtpURL, from string, opts ...Option) (docmill.MailSender, error) {
	s, err := parseSMTPURL(smtpURL)
	if err != nil {
		return nil, err
	}
	if s.from, err = netmail.ParseAddress(from); err != nil {
		return nil, fmt.Errorf("mail: sender address %q: %w", from, err)
	}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// parseSMTPURL reads the server's address, TLS mode and credentials.
func parseSMTPURL(raw string) (*smtpSender, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("mail: the SMTP URL is not a URL")
	}
	bad := func(why string) error { return fmt.Errorf("mail: SMTP URL %s: %s", u.Redacted(), why) }
	s := &smtpSender{host: u.Hostname()}
	switch u.Scheme {
	case "smtp":
		s.port = DefaultPort
	case "smtps":
		s.port, s.implicitTLS = DefaultTLSPort, true
	default:
		return nil, bad("must start with smtp:// or smtps://")
	}
	if s.host == "" {
		return nil, bad("names no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, bad("has an invalid port")
		}
		s.port = n
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, bad("must be only scheme, credentials, host and port")
	}
	if u.User != nil {
		s.user = u.User.Username()
		s.password, _ = u.User.Password()
		if s.user == "" {
			return nil, bad("has a password but no user")
		}
	}
	return s, nil
}

// SendMail renders m and sends it. An error whose Permanent method says
// true is the server's refusal of the recipient (a 5xx answer to RCPT
// TO): sending again will not help. Any other error (the server is down,
// busy, or refused for now) is worth retrying.
func (s *smtpSender) SendMail(ctx context.Context, m docmill.Mail) error {
	r, err := render(m)
	if err != nil {
		return err
	}
	msg, err := s.message(m, r)
	if err != nil {
		return err
	}
	c, err := gomail.NewClient(s.host, s.clientOptions()...)
	if err != nil {
		return fmt.Errorf("mail: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return classify(err)
	}
	return nil
}

func (s *smtpSender) clientOptions() []gomail.Option {
	tc := &tls.Config{ServerName: s.host, MinVersion: tls.VersionTLS12, RootCAs: s.roots}
	opts := []gomail.Option{
		gomail.WithPort(s.port),
		gomail.WithTimeout(dialTimeout),
		gomail.WithTLSConfig(tc),
	}
	if s.implicitTLS {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if s.user != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.user), gomail.WithPassword(s.password))
	}
	return opts
}

// message composes the MIME message: From, To, Subject, Date, a
// Message-ID under the sender's domain, and the text and HTML parts as
// alternatives.
func (s *smtpSender) message(m docmill.Mail, r rendered) (*gomail.Msg, error) {
	msg := gomail.NewMsg()
	msg.FromMailAddress(s.from)
	if err := msg.To(m.To); err != nil {
		return nil, &rejectedError{err: fmt.Errorf("mail: recipient %q: %w", m.To, err)}
	}
	msg.Subject(r.subject)
	msg.SetDate()
	msg.SetMessageIDWithValue(messageID(s.from.Address))
	msg.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated")
	msg.SetBodyString(gomail.TypeTextPlain, r.text)
	msg.AddAlternativeString(gomail.TypeTextHTML, r.html)
	return msg, nil
}

// messageID is a random id under the domain of the sender's address.
func messageID(from string) string {
	domain := "docmill.invalid"
	if i := strings.LastIndexByte(from, '@'); i >= 0 && i < len(from)-1 {
		domain = from[i+1:]
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b) + "@" + domain
}

// rejectedError is a refusal that sending again will not change.
type rejectedError struct{ err error }

func (e *rejectedError) Error() string   { return e.err.Error() }
func (e *rejectedError) Unwrap() error   { return e.err }
func (e *rejectedError) Permanent() bool { return true }

// classify marks the server's permanent refusal of the recipient.
func classify(err error) error {
	var se *gomail.SendError
	if errors.As(err, &se) && se.Reason == gomail.ErrSMTPRcptTo && !se.IsTemp() && se.ErrorCode() >= 500 {
		return &rejectedError{err: fmt.Errorf("mail: the server refused the recipient: %w", err)}
	}
	return fmt.Errorf("mail: %w", err)
}
