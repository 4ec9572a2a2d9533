package docmill

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"slices"
	"strings"
	"time"
)

// Webhook event types: a job reached a final status.
const (
	EventJobDone     = "job.done"
	EventJobFailed   = "job.failed"
	EventJobCanceled = "job.canceled"
)

// WebhookEvents are the event types an endpoint may subscribe to.
var WebhookEvents = []string{EventJobDone, EventJobFailed, EventJobCanceled}

// JobEvent is the event type of a job that reached final status s, or ""
// for a status that is not final.
func JobEvent(s Status) string {
	switch s {
	case StatusDone:
		return EventJobDone
	case StatusFailed:
		return EventJobFailed
	case StatusCanceled:
		return EventJobCanceled
	}
	return ""
}

// WebhookSecretPrefix starts every webhook signing secret (Standard
// Webhooks): "whsec_" and the base64 of the HMAC key's bytes.
const WebhookSecretPrefix = "whsec_"

// SecretRotationOverlap is how long the previous secret of an endpoint
// keeps signing, beside the new one, after a rotation.
const SecretRotationOverlap = 24 * time.Hour

// WebhookDisableAfter is how long an endpoint may fail every delivery
// attempt before it is disabled.
const WebhookDisableAfter = 5 * 24 * time.Hour

// NewWebhookSecret returns a fresh signing secret: "whsec_" and the
// standard base64 of 32 random bytes (Standard Webhooks asks for 24 to 64).
func NewWebhookSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b[:])
}

// WebhookSecretKey returns the HMAC key of a secret: the bytes its base64
// encodes, "whsec_" removed.
func WebhookSecretKey(secret string) ([]byte, error) {
	return base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, WebhookSecretPrefix))
}

// Webhook is an endpoint of an account that receives its job events,
// signed per the Standard Webhooks specification.
type Webhook struct {
	ID        string // "wh_" + 128 random bits
	AccountID string
	URL       string
	// Events are the event types sent to it, in WebhookEvents order.
	Events []string
	// Secret signs every delivery; it is shown to the client only when
	// the endpoint is created and when it is rotated.
	Secret string
	// PreviousSecret, after a rotation, signs deliveries too until
	// PreviousSecretExpiresAt, so that receivers can switch at leisure.
	PreviousSecret          string
	PreviousSecretExpiresAt *time.Time
	CreatedAt               time.Time
	// DisabledAt is set once the endpoint stops receiving deliveries, for
	// DisabledReason: it answered 410 Gone, or failed for
	// WebhookDisableAfter.
	DisabledAt     *time.Time
	DisabledReason string
	// FailingSince is the first failed attempt since the last successful
	// one; nil while the endpoint is healthy.
	FailingSince *time.Time
}

// Subscribed reports whether event is sent to w.
func (w *Webhook) Subscribed(event string) bool { return slices.Contains(w.Events, event) }

// SigningSecrets are the secrets that sign a delivery at now: the current
// one, and the previous one while its rotation overlap lasts.
func (w *Webhook) SigningSecrets(now time.Time) []string {
	s := []string{w.Secret}
	if w.PreviousSecret != "" && w.PreviousSecretExpiresAt != nil && now.Before(*w.PreviousSecretExpiresAt) {
		s = append(s, w.PreviousSecret)
	}
	return s
}

// WebhookDelivery is one event due to one endpoint: what a store hands its
// delivery hook in the transaction that finishes the job.
type WebhookDelivery struct {
	// MessageID is the delivery's webhook-id header, the same on every
	// attempt ("msg_" + 128 random bits).
	MessageID string
	WebhookID string
	Event     string
	// Job is the job as the finishing transaction left it.
	Job *Job
}

// WebhookAttempt is the record of one attempt to deliver an event.
type WebhookAttempt struct {
	WebhookID   string
	MessageID   string
	Event       string
	JobID       string
	Attempt     int
	AttemptedAt time.Time
	// StatusCode is the receiver's answer; 0 when there was none (Error
	// says why).
	StatusCode int
	// Error says what went wrong: the network error, or the status.
	Error    string
	Duration time.Duration
	// NextRetryAt is when the next attempt is due; nil when none will be
	// made (delivered, refused, or out of attempts).
	NextRetryAt *time.Time
}

// Succeeded reports whether the receiver took the event (a 2xx answer).
func (a *WebhookAttempt) Succeeded() bool { return a.StatusCode >= 200 && a.StatusCode < 300 }

// ErrTooManyWebhooks is returned by CreateWebhook when the account has
// as many endpoints as its plan allows.
var ErrTooManyWebhooks = &Error{Code: CodeConflict, Message: "The plan's number of webhook endpoints is reached; delete one first."}

// Webhooks keeps an account's webhook endpoints and their delivery
// attempts. A finished job's deliveries are handed over by Jobs.FinishJob
// and Jobs.CancelJob.
type Webhooks interface {
	// CreateWebhook stores w unless its account already has max endpoints
	// (ErrTooManyWebhooks), checked in the same transaction as the insert.
	CreateWebhook(ctx context.Context, w *Webhook, max int) error
	// Webhook returns an endpoint by id.
	Webhook(ctx context.Context, id string) (*Webhook, error)
	// ListWebhooks returns an account's endpoints, oldest first.
	ListWebhooks(ctx context.Context, accountID string) ([]*Webhook, error)
	// DeleteWebhook removes an endpoint and its delivery records.
	DeleteWebhook(ctx context.Context, id string) error
	// RotateWebhookSecret makes secret the endpoint's secret; the one it
	// replaces keeps signing until previousUntil. It returns the endpoint
	// as it then stands.
	RotateWebhookSecret(ctx context.Context, id, secret string, previousUntil time.Time) (*Webhook, error)
	// EnableWebhook enables a disabled endpoint again, clearing its
	// DisabledReason and FailingSince, and returns it as it then stands.
	EnableWebhook(ctx context.Context, id string) (*Webhook, error)
	// RecordWebhookAttempt stores a delivery attempt and, in the same
	// transaction, the endpoint's health: a successful attempt clears
	// FailingSince, a failed one sets it if unset, and a non-empty
	// disable disables the endpoint (once) with that reason. It returns
	// the endpoint as it then stands; a deleted one is ErrNotFound.
	RecordWebhookAttempt(ctx context.Context, a *WebhookAttempt, disable string) (*Webhook, error)
	// WebhookAttempts returns up to limit attempts of an endpoint, newest
	// first. Attempts are deleted with their job's record.
	WebhookAttempts(ctx context.Context, webhookID string, limit int) ([]*WebhookAttempt, error)
}
