package client

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"
)

// Config is the server's sign-up setting and plans (GET /v1/config),
// which need no key.
type Config struct {
	// Signup is "open" (POST /v1/signup mails a link that opens a Free
	// account) or "closed".
	Signup         string `json:"signup"`
	Plans          []Plan `json:"plans"`
	MaxUploadBytes int64  `json:"max_upload_bytes"`
}

// Plan is one plan of the server: its limits and its price.
type Plan struct {
	Name string `json:"name"`
	AccountLimits
	Webhooks int `json:"webhooks"`
	// Price is nil when it is on request (custom plans).
	Price *Price `json:"price"`
}

// Price is a plan's list price.
type Price struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
	Period   string `json:"period"`
	// From marks a starting price ("from 2,490 RUB a month").
	From bool `json:"from"`
}

// Config returns the server's sign-up setting and plans.
func (c *Client) Config(ctx context.Context) (*Config, error) {
	var cfg Config
	if _, err := c.call(ctx, http.MethodGet, "/v1/config", &cfg); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// Key is one of the caller's API keys, by its display prefix.
type Key struct {
	Prefix    string     `json:"prefix"`
	Name      string     `json:"name"`
	CreatedAt time.Time  `json:"created_at"`
	RevokedAt *time.Time `json:"revoked_at"`
	// LastUsedAt and LastUsedIP are the key's last use, to the minute
	// (nil and "" if never used).
	LastUsedAt *time.Time `json:"last_used_at"`
	LastUsedIP string     `json:"last_used_ip"`
	// Current marks the key of the client that asked.
	Current bool `json:"current"`
}

// NewKey is a key just created: APIKey is shown only this once.
type NewKey struct {
	APIKey    string    `json:"api_key"`
	Prefix    string    `json:"prefix"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// Keys lists the caller's keys, revoked ones too, oldest first.
func (c *Client) Keys(ctx context.Context) ([]Key, error) {
	var out struct {
		Keys []Key `json:"keys"`
	}
	_, err := c.call(ctx, http.MethodGet, "/v1/keys", &out)
	return out.Keys, err
}

// CreateKey adds a key named name ("": api) to the caller's account.
func (c *Client) CreateKey(ctx context.Context, name string) (*NewKey, error) {
	var k NewKey
	_, err := c.callJSON(ctx, http.MethodPost, "/v1/keys", map[string]string{"name": name}, &k)
	return &k, err
}

// RenameKey names the caller's key with display prefix prefix anew.
func (c *Client) RenameKey(ctx context.Context, prefix, name string) (*Key, error) {
	var k Key
	_, err := c.callJSON(ctx, http.MethodPatch, "/v1/keys/"+url.PathEscape(prefix), map[string]string{"name": name}, &k)
	return &k, err
}

// RevokeKey revokes the caller's key with display prefix prefix (the
// client's own key too, which then stops working).
func (c *Client) RevokeKey(ctx context.Context, prefix string) (*Key, error) {
	var k Key
	_, err := c.call(ctx, http.MethodDelete, "/v1/keys/"+url.PathEscape(prefix), &k)
	return &k, err
}

// callJSON is call with in as the request's JSON body.
func (c *Client) callJSON(ctx context.Context, method, path string, in, out any) (*Response, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	return c.do(ctx, func(int) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req, err
	}, out)
}
