package client

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Account is the caller's account document (GET /v1/account).
type Account struct {
	AccountID string        `json:"account_id"`
	Name      string        `json:"name"`
	Email     string        `json:"email"`
	Plan      string        `json:"plan"`
	KeyPrefix string        `json:"key_prefix"`
	Limits    AccountLimits `json:"limits"`
	Usage     AccountUsage  `json:"usage"`
}

// AccountLimits are the limits of the account's plan.
type AccountLimits struct {
	OperationsPerMonth int64 `json:"operations_per_month"`
	MaxFileBytes       int64 `json:"max_file_bytes"`
	RequestsPerMinute  int   `json:"requests_per_minute"`
	// JobsInFlight is how many of the account's jobs may be queued or
	// processing at once; a process call past it is a 429.
	JobsInFlight     int   `json:"jobs_in_flight"`
	QueuePriority    int   `json:"queue_priority"`
	ResultTTLSeconds int64 `json:"result_ttl_seconds"`
}

// AccountUsage is the account's use of the current period.
type AccountUsage struct {
	Period          string    `json:"period"`
	OperationsUsed  int64     `json:"operations_used"`
	OperationsLimit int64     `json:"operations_limit"`
	JobsInFlight    int64     `json:"jobs_in_flight"`
	ResetsAt        time.Time `json:"resets_at"`
}

// Account returns the caller's plan, limits and this period's usage.
func (c *Client) Account(ctx context.Context) (*Account, error) {
	var a Account
	if _, err := c.call(ctx, http.MethodGet, "/v1/account", &a); err != nil {
		return nil, err
	}
	return &a, nil
}

// Tool is one entry of the tool catalogue (GET /v1/tools).
type Tool struct {
	Slug        string   `json:"slug"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Accepts     []string `json:"accepts"`
	MinFiles    int      `json:"min_files"`
	MaxFiles    int      `json:"max_files"`
	Params      []Param  `json:"params"`
	// Long tools (OCR) answer 202 at once unless asked to wait.
	Long bool `json:"long"`
	// Engine names the engine family.
	Engine string `json:"engine"`
	// Lane is the class of work the tool's jobs queue in (pdf, render,
	// browser, office, ocr), each with its own workers.
	Lane string `json:"lane,omitempty"`
	// Available is false when the engine is not installed or not healthy
	// on the node that answered.
	Available bool           `json:"available"`
	Engines   []EngineStatus `json:"engines,omitempty"`
	// Endpoint is the tool's process path, /v1/{slug}/process.
	Endpoint string `json:"endpoint"`
}

// Param is one parameter a tool takes, as a form field.
type Param struct {
	Name string `json:"name"`
	// Type is string, integer, number, boolean, color or pages.
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
	// Enum, when set, lists the allowed values.
	Enum []string `json:"enum,omitempty"`
	// Min and Max bound numbers and integers, and the length of strings.
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	// Default is the value used when the field is absent ("" for none).
	Default string `json:"default,omitempty"`
}

// EngineStatus is an external program a tool runs, as the node found it.
type EngineStatus struct {
	Name      string `json:"name"`
	Path      string `json:"path,omitempty"`
	Version   string `json:"version,omitempty"`
	Available bool   `json:"available"`
}

// Tools returns the server's tool catalogue. It needs no key.
func (c *Client) Tools(ctx context.Context) ([]Tool, error) {
	var cat struct {
		Tools []Tool `json:"tools"`
	}
	if _, err := c.call(ctx, http.MethodGet, "/v1/tools", &cat); err != nil {
		return nil, err
	}
	return cat.Tools, nil
}

// Tool returns one tool of the catalogue; an unknown slug is a 404
// unknown_tool Problem.
func (c *Client) Tool(ctx context.Context, slug string) (*Tool, error) {
	var t Tool
	if _, err := c.call(ctx, http.MethodGet, "/v1/tools/"+url.PathEscape(slug), &t); err != nil {
		return nil, err
	}
	return &t, nil
}
