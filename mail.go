package docmill

import (
	"context"
	"time"
)

// MailKind says which message a Mail is; the mail adapter holds each
// kind's words, in each language, as plain text and HTML.
type MailKind string

// Mail kinds.
const (
	// MailSignup asks the reader to confirm the address; its link opens
	// the new account.
	MailSignup MailKind = "signup"
	// MailSignIn carries a one-time sign-in link. It is also what a
	// sign-up for an address that has an account sends, so that sign-up
	// never tells whether an address has an account.
	MailSignIn MailKind = "sign_in"
)

// Mail is one message to send: its words are rendered when it is sent,
// from its kind and language.
type Mail struct {
	To   string   `json:"to"`
	Kind MailKind `json:"kind"`
	// Lang is the reader's language: "en" or "ru" (anything else: "en").
	Lang string `json:"lang"`
	// Link is the URL the message asks the reader to open.
	Link string `json:"link"`
	// Expires is when Link stops working.
	Expires time.Time `json:"expires"`
}

// Outbox queues mail: a queued message is retried with backoff until it
// is sent, and survives a restart (jobs, on River).
type Outbox interface {
	QueueMail(ctx context.Context, m Mail) error
}

// MailSender sends one message now: an SMTP server, or the log when the
// server has none (development).
type MailSender interface {
	SendMail(ctx context.Context, m Mail) error
}
