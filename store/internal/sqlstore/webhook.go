package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/store/internal/sqltext"
)

// CreateWebhook stores w unless its account has max endpoints already
// (docmill.ErrTooManyWebhooks). The account row is locked first, as in
// CreateJob, so concurrent creations cannot overshoot max. An unknown
// account is docmill.ErrNotFound.
func (s *Store) CreateWebhook(ctx context.Context, w *docmill.Webhook, max int) error {
	events, err := json.Marshal(w.Events)
	if err != nil {
		return s.errorf("create webhook: %w", err)
	}
	err = s.db.InTx(ctx, func(tx Tx) error {
		if err := lockAccount(ctx, tx, w.AccountID); err != nil {
			return err
		}
		var n int64
		if err := tx.QueryRow(ctx, sqltext.CountWebhooks, w.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= int64(max) {
			return docmill.ErrTooManyWebhooks
		}
		_, err := tx.Exec(ctx, sqltext.InsertWebhook, w.ID, w.AccountID, w.URL, string(events), w.Secret, millis(w.CreatedAt))
		return err
	})
	if err != nil {
		return s.errorf("create webhook: %w", err)
	}
	return nil
}

// Webhook returns the endpoint id; an unknown id is docmill.ErrNotFound.
func (s *Store) Webhook(ctx context.Context, id string) (*docmill.Webhook, error) {
	w, err := scanWebhook(s.db.Read().QueryRow(ctx, sqltext.Webhook, id))
	if err != nil {
		return nil, s.errorf("webhook %s: %w", id, s.notFound(err))
	}
	return w, nil
}

// ListWebhooks returns the account's endpoints, oldest first.
func (s *Store) ListWebhooks(ctx context.Context, accountID string) ([]*docmill.Webhook, error) {
	ws, err := queryAll(ctx, s.db.Read(), scanWebhook, sqltext.AccountWebhooks, accountID)
	if err != nil {
		return nil, s.errorf("list webhooks: %w", err)
	}
	return ws, nil
}

// DeleteWebhook removes the endpoint and its attempts; an unknown id is
// docmill.ErrNotFound. Deliveries still queued for it find it gone and
// are dropped.
func (s *Store) DeleteWebhook(ctx context.Context, id string) error {
	err := s.db.InTx(ctx, func(tx Tx) error {
		n, err := tx.Exec(ctx, sqltext.DeleteWebhook, id)
		if err != nil {
			return err
		}
		if n == 0 {
			return docmill.ErrNotFound
		}
		_, err = tx.Exec(ctx, sqltext.DeleteWebhookAttempts, id)
		return err
	})
	if err != nil {
		return s.errorf("delete webhook %s: %w", id, err)
	}
	return nil
}

// RotateWebhookSecret makes secret the endpoint's secret and the old one
// its previous secret until previousUntil (a previous secret before it is
// forgotten).
func (s *Store) RotateWebhookSecret(ctx context.Context, id, secret string, previousUntil time.Time) (*docmill.Webhook, error) {
	return s.updateWebhook(ctx, "rotate webhook secret", id, sqltext.RotateWebhookSecret, id, secret, millis(previousUntil))
}

// EnableWebhook enables the endpoint again, healthy: no reason, no
// failures.
func (s *Store) EnableWebhook(ctx context.Context, id string) (*docmill.Webhook, error) {
	return s.updateWebhook(ctx, "enable webhook", id, sqltext.EnableWebhook, id)
}

// updateWebhook runs the update query with args on endpoint id and
// returns the endpoint as it then is, in one transaction; an unknown id
// is docmill.ErrNotFound. what names the operation in errors.
func (s *Store) updateWebhook(ctx context.Context, what, id, query string, args ...any) (*docmill.Webhook, error) {
	return updateRow(ctx, s, what, id, query, args, func(tx Tx) (*docmill.Webhook, error) {
		return scanWebhook(tx.QueryRow(ctx, sqltext.Webhook, id))
	})
}

// RecordWebhookAttempt stores a and updates the endpoint's health (see
// docmill.Store). Recording the same attempt twice (message and attempt
// number) keeps the first record.
func (s *Store) RecordWebhookAttempt(ctx context.Context, a *docmill.WebhookAttempt, disable string) (*docmill.Webhook, error) {
	var w *docmill.Webhook
	err := s.db.InTx(ctx, func(tx Tx) error {
		n, err := tx.Exec(ctx, sqltext.WebhookFailed, a.WebhookID, millis(a.AttemptedAt))
		if a.Succeeded() {
			n, err = tx.Exec(ctx, sqltext.WebhookSucceeded, a.WebhookID)
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return docmill.ErrNotFound
		}
		if disable != "" {
			if _, err := tx.Exec(ctx, sqltext.DisableWebhook, a.WebhookID, millis(a.AttemptedAt), disable); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, sqltext.InsertWebhookAttempt, a.WebhookID, a.MessageID, a.Attempt, a.Event, a.JobID,
			millis(a.AttemptedAt), a.StatusCode, nullString(a.Error), a.Duration.Milliseconds(), nullMillis(a.NextRetryAt))
		if err != nil {
			return err
		}
		w, err = scanWebhook(tx.QueryRow(ctx, sqltext.Webhook, a.WebhookID))
		return err
	})
	if err != nil {
		return nil, s.errorf("record webhook attempt %s: %w", a.MessageID, err)
	}
	return w, nil
}

// WebhookAttempts returns up to limit attempts of the endpoint, newest
// first.
func (s *Store) WebhookAttempts(ctx context.Context, webhookID string, limit int) ([]*docmill.WebhookAttempt, error) {
	if limit <= 0 {
		return nil, nil
	}
	as, err := queryAll(ctx, s.db.Read(), scanAttempt, sqltext.WebhookAttempts, webhookID, limit)
	if err != nil {
		return nil, s.errorf("webhook attempts: %w", err)
	}
	return as, nil
}

// deliver hands the webhook deliveries of job id, which tx has just moved
// to a final status, to Config.Deliver: one per enabled endpoint of the
// job's account subscribed to its event. Without a hook it does nothing.
func (s *Store) deliver(ctx context.Context, tx Tx, id string) error {
	if s.cfg.Deliver == nil {
		return nil
	}
	// The endpoints first: most accounts have none, and then the job
	// need not be read.
	ws, err := queryAll(ctx, tx, scanWebhook, sqltext.JobWebhooks, id)
	if err != nil || len(ws) == 0 {
		return err
	}
	j, err := scanJob(tx.QueryRow(ctx, sqltext.Job, id))
	if err != nil {
		return err
	}
	event := docmill.JobEvent(j.Status)
	var ds []docmill.WebhookDelivery
	for _, w := range ws {
		if w.Subscribed(event) {
			ds = append(ds, docmill.WebhookDelivery{MessageID: docmill.NewID("msg_"), WebhookID: w.ID, Event: event, Job: j})
		}
	}
	if len(ds) == 0 {
		return nil
	}
	if err := s.cfg.Deliver(ctx, tx, ds); err != nil {
		return fmt.Errorf("webhook deliveries: %w", err)
	}
	return nil
}

// scanWebhook reads one row of sqltext.WebhookColumns.
func scanWebhook(r Row) (*docmill.Webhook, error) {
	var w docmill.Webhook
	var events string
	var created int64
	var prevExpires, disabled, failing *int64
	err := r.Scan(&w.ID, &w.AccountID, &w.URL, &events, &w.Secret, &w.PreviousSecret,
		&prevExpires, &created, &disabled, &w.DisabledReason, &failing)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return nil, fmt.Errorf("webhook %s: %w", w.ID, err)
	}
	w.PreviousSecretExpiresAt = timePtr(prevExpires)
	w.CreatedAt = fromMillis(created)
	w.DisabledAt = timePtr(disabled)
	w.FailingSince = timePtr(failing)
	return &w, nil
}

// scanAttempt reads one row of sqltext.WebhookAttempts.
func scanAttempt(r Row) (*docmill.WebhookAttempt, error) {
	var a docmill.WebhookAttempt
	var at, ms int64
	var next *int64
	err := r.Scan(&a.WebhookID, &a.MessageID, &a.Attempt, &a.Event, &a.JobID, &at, &a.StatusCode,
		&a.Error, &ms, &next)
	if err != nil {
		return nil, err
	}
	a.AttemptedAt = fromMillis(at)
	a.Duration = time.Duration(ms) * time.Millisecond
	a.NextRetryAt = timePtr(next)
	return &a, nil
}
