package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// Webhook is a webhook endpoint of the caller's account, as the API
// returns it. Secret is set only in the answers of CreateWebhook and
// RotateWebhookSecret.
type Webhook struct {
	ID                      string     `json:"id"`
	URL                     string     `json:"url"`
	Events                  []string   `json:"events"`
	CreatedAt               time.Time  `json:"created_at"`
	Enabled                 bool       `json:"enabled"`
	DisabledAt              *time.Time `json:"disabled_at,omitempty"`
	DisabledReason          string     `json:"disabled_reason,omitempty"`
	FailingSince            *time.Time `json:"failing_since,omitempty"`
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at,omitempty"`
	Secret                  string     `json:"secret,omitempty"`
}

// WebhookAttempt is one attempt to deliver an event to an endpoint.
type WebhookAttempt struct {
	MessageID   string     `json:"message_id"`
	Event       string     `json:"event"`
	JobID       string     `json:"job_id"`
	Attempt     int        `json:"attempt"`
	AttemptedAt time.Time  `json:"attempted_at"`
	Succeeded   bool       `json:"succeeded"`
	StatusCode  *int       `json:"status_code"`
	Error       *string    `json:"error"`
	DurationMS  int64      `json:"duration_ms"`
	NextRetryAt *time.Time `json:"next_retry_at"`
}

// CreateWebhook registers an endpoint for events (none: every event) and
// returns it with its signing secret, which is shown only this once.
func (c *Client) CreateWebhook(ctx context.Context, endpoint string, events []string) (*Webhook, error) {
	body, err := json.Marshal(map[string]any{"url": endpoint, "events": events})
	if err != nil {
		return nil, err
	}
	if events == nil {
		body, _ = json.Marshal(map[string]any{"url": endpoint})
	}
	var wh Webhook
	_, err = c.do(ctx, func(int) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.BaseURL+"/v1/webhooks", bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req, err
	}, &wh)
	return &wh, err
}

// Webhooks lists the account's endpoints.
func (c *Client) Webhooks(ctx context.Context) ([]Webhook, error) {
	var out struct {
		Webhooks []Webhook `json:"webhooks"`
	}
	_, err := c.call(ctx, http.MethodGet, "/v1/webhooks", &out)
	return out.Webhooks, err
}

// Webhook returns one endpoint.
func (c *Client) Webhook(ctx context.Context, id string) (*Webhook, error) {
	var wh Webhook
	_, err := c.call(ctx, http.MethodGet, "/v1/webhooks/"+url.PathEscape(id), &wh)
	return &wh, err
}

// DeleteWebhook removes an endpoint; its pending deliveries are dropped.
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.BaseURL+"/v1/webhooks/"+url.PathEscape(id), nil)
	if err != nil {
		return err
	}
	if c.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.Key)
	}
	resp, _, err := c.send(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// RotateWebhookSecret gives an endpoint a new secret, returned once; the
// previous one keeps signing beside it for 24 hours.
func (c *Client) RotateWebhookSecret(ctx context.Context, id string) (*Webhook, error) {
	var wh Webhook
	_, err := c.call(ctx, http.MethodPost, "/v1/webhooks/"+url.PathEscape(id)+"/rotate-secret", &wh)
	return &wh, err
}

// WebhookDeliveries returns an endpoint's recent delivery attempts,
// newest first.
func (c *Client) WebhookDeliveries(ctx context.Context, id string) ([]WebhookAttempt, error) {
	var out struct {
		Deliveries []WebhookAttempt `json:"deliveries"`
	}
	_, err := c.call(ctx, http.MethodGet, "/v1/webhooks/"+url.PathEscape(id)+"/deliveries", &out)
	return out.Deliveries, err
}
