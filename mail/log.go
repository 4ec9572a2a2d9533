package mail

import (
	"context"
	"log/slog"

	"github.com/docmill/docmill"
)

// logSender writes each mail's recipient, kind and link to the log
// instead of sending it: for development, where a server has no SMTP.
type logSender struct{ log *slog.Logger }

// NewLog returns a sender that logs each mail (To, kind, language and the
// link) at level Info and sends nothing. The link opens an account or a
// session: this is for development only.
func NewLog(l *slog.Logger) docmill.MailSender {
	if l == nil {
		l = slog.Default()
	}
	return logSender{log: l}
}

func (s logSender) SendMail(ctx context.Context, m docmill.Mail) error {
	if _, err := render(m); err != nil {
		return err
	}
	s.log.InfoContext(ctx, "mail not sent (no SMTP server): its link is here",
		"to", m.To, "kind", string(m.Kind), "lang", m.Lang, "link", m.Link, "expires", m.Expires)
	return nil
}
