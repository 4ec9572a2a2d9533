package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobview"
)

// webhookBody is an endpoint as the API shows it: never its secret, but
// on creation and rotation (secret is then set).
type webhookBody struct {
	ID             string   `json:"id"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	CreatedAt      string   `json:"created_at"`
	Enabled        bool     `json:"enabled"`
	DisabledAt     *string  `json:"disabled_at,omitempty"`
	DisabledReason string   `json:"disabled_reason,omitempty"`
	// FailingSince is the first failed attempt since the last success.
	FailingSince *string `json:"failing_since,omitempty"`
	// PreviousSecretExpiresAt, after a rotation, is when the previous
	// secret stops signing.
	PreviousSecretExpiresAt *string `json:"previous_secret_expires_at,omitempty"`
	Secret                  string  `json:"secret,omitempty"`
}

// attemptBody is one delivery attempt.
type attemptBody struct {
	MessageID   string  `json:"message_id"`
	Event       string  `json:"event"`
	JobID       string  `json:"job_id"`
	Attempt     int     `json:"attempt"`
	AttemptedAt string  `json:"attempted_at"`
	Succeeded   bool    `json:"succeeded"`
	StatusCode  *int    `json:"status_code"`
	Error       *string `json:"error"`
	DurationMS  int64   `json:"duration_ms"`
	NextRetryAt *string `json:"next_retry_at"`
}

func optTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := jobview.Timestamp(*t)
	return &s
}

func (s *Server) renderWebhook(wh *docmill.Webhook) webhookBody {
	b := webhookBody{
		ID: wh.ID, URL: wh.URL, Events: wh.Events, CreatedAt: jobview.Timestamp(wh.CreatedAt),
		Enabled: wh.DisabledAt == nil, DisabledAt: optTime(wh.DisabledAt), DisabledReason: wh.DisabledReason,
		FailingSince: optTime(wh.FailingSince),
	}
	if wh.PreviousSecretExpiresAt != nil && s.cfg.Now().Before(*wh.PreviousSecretExpiresAt) {
		b.PreviousSecretExpiresAt = optTime(wh.PreviousSecretExpiresAt)
	}
	return b
}

// handleCreateWebhook adds an endpoint: {"url": "https://...", "events":
// [...]} (events optional: all). The answer is the only one to show its
// secret.
func (s *Server) handleCreateWebhook(w http.ResponseWriter, r *http.Request) {
	var body struct {
		URL    string    `json:"url"`
		Events *[]string `json:"events"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 16<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil {
		s.writeError(w, r, docmill.Errorf(docmill.CodeInvalidRequest,
			`The body must be JSON: {"url": "https://...", "events": ["job.done", "job.failed", "job.canceled"]} (events optional).`))
		return
	}
	if body.URL == "" {
		s.writeError(w, r, docmill.ParamError("url", "is required"))
		return
	}
	if s.cfg.CheckWebhookURL != nil {
		if err := s.cfg.CheckWebhookURL(r.Context(), "url", body.URL); err != nil {
			s.writeError(w, r, err)
			return
		}
	}
	events := docmill.WebhookEvents
	if body.Events != nil {
		if len(*body.Events) == 0 {
			s.writeError(w, r, docmill.ParamError("events", "must name at least one event (leave it out for all)"))
			return
		}
		for _, e := range *body.Events {
			if !slices.Contains(docmill.WebhookEvents, e) {
				s.writeError(w, r, docmill.ParamError("events", "has %q; the events are job.done, job.failed and job.canceled", e))
				return
			}
		}
		// Kept in the catalogue's order, each once.
		events = slices.DeleteFunc(slices.Clone(docmill.WebhookEvents), func(e string) bool { return !slices.Contains(*body.Events, e) })
	}
	c := callerOf(r.Context())
	wh := &docmill.Webhook{
		ID: docmill.NewID("wh_"), AccountID: c.account.ID, URL: body.URL, Events: events,
		Secret: docmill.NewWebhookSecret(), CreatedAt: s.cfg.Now(),
	}
	if err := s.cfg.Store.CreateWebhook(r.Context(), wh, c.plan.Webhooks); err != nil {
		if errors.Is(err, docmill.ErrTooManyWebhooks) {
			s.writeError(w, r, docmill.Errorf(docmill.CodeConflict,
				"The %s plan allows %d webhook endpoints, and this account has them all; delete one first.", c.plan.Name, c.plan.Webhooks))
			return
		}
		s.writeError(w, r, err)
		return
	}
	b := s.renderWebhook(wh)
	b.Secret = wh.Secret
	w.Header().Set("Location", "/v1/webhooks/"+wh.ID)
	writeJSON(w, http.StatusCreated, b)
}

// ownWebhook loads the endpoint named in the path if it belongs to the
// caller; any other account gets not_found, as for one that does not
// exist.
func (s *Server) ownWebhook(r *http.Request) (*docmill.Webhook, error) {
	id := r.PathValue("webhook_id")
	wh, err := s.cfg.Store.Webhook(r.Context(), id)
	if errors.Is(err, docmill.ErrNotFound) || (err == nil && wh.AccountID != callerOf(r.Context()).account.ID) {
		return nil, docmill.Errorf(docmill.CodeNotFound, "No webhook endpoint %q.", id)
	}
	if err != nil {
		return nil, docmill.Internal(err)
	}
	return wh, nil
}

// handleListWebhooks lists the caller's endpoints, oldest first.
func (s *Server) handleListWebhooks(w http.ResponseWriter, r *http.Request) {
	ws, err := s.cfg.Store.ListWebhooks(r.Context(), callerOf(r.Context()).account.ID)
	if err != nil {
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	out := make([]webhookBody, 0, len(ws))
	for _, wh := range ws {
		out = append(out, s.renderWebhook(wh))
	}
	writeJSON(w, http.StatusOK, map[string]any{"webhooks": out})
}

func (s *Server) handleGetWebhook(w http.ResponseWriter, r *http.Request) {
	wh, err := s.ownWebhook(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.renderWebhook(wh))
}

// handleDeleteWebhook removes an endpoint; deliveries still queued for it
// are dropped. It answers 204.
func (s *Server) handleDeleteWebhook(w http.ResponseWriter, r *http.Request) {
	wh, err := s.ownWebhook(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if err := s.cfg.Store.DeleteWebhook(r.Context(), wh.ID); err != nil && !errors.Is(err, docmill.ErrNotFound) {
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// handleRotateWebhookSecret gives the endpoint a new secret, shown in
// this answer only; the old one keeps signing, beside it, for
// docmill.SecretRotationOverlap.
func (s *Server) handleRotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	wh, err := s.ownWebhook(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	wh, err = s.cfg.Store.RotateWebhookSecret(r.Context(), wh.ID, docmill.NewWebhookSecret(), s.cfg.Now().Add(docmill.SecretRotationOverlap))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	b := s.renderWebhook(wh)
	b.Secret = wh.Secret
	writeJSON(w, http.StatusOK, b)
}

// handleEnableWebhook enables a disabled endpoint again (after its owner
// fixed it); events of jobs that ended while it was disabled are not sent.
func (s *Server) handleEnableWebhook(w http.ResponseWriter, r *http.Request) {
	wh, err := s.ownWebhook(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if wh, err = s.cfg.Store.EnableWebhook(r.Context(), wh.ID); err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.renderWebhook(wh))
}

// maxAttemptsShown bounds GET /v1/webhooks/{id}/deliveries: a page of
// the latest attempts, the shape of the answer, not a cost.
const maxAttemptsShown = 100

// handleWebhookDeliveries lists an endpoint's recent delivery attempts,
// newest first (?limit=N, 1..100, default 100).
func (s *Server) handleWebhookDeliveries(w http.ResponseWriter, r *http.Request) {
	wh, err := s.ownWebhook(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	limit := maxAttemptsShown
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxAttemptsShown {
			s.writeError(w, r, docmill.ParamError("limit", "must be a whole number from 1 to %d", maxAttemptsShown))
			return
		}
		limit = n
	}
	as, err := s.cfg.Store.WebhookAttempts(r.Context(), wh.ID, limit)
	if err != nil {
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	out := make([]attemptBody, 0, len(as))
	for _, a := range as {
		b := attemptBody{
			MessageID: a.MessageID, Event: a.Event, JobID: a.JobID, Attempt: a.Attempt,
			AttemptedAt: jobview.Timestamp(a.AttemptedAt), Succeeded: a.Succeeded(), DurationMS: a.Duration.Milliseconds(),
			NextRetryAt: optTime(a.NextRetryAt),
		}
		if a.StatusCode != 0 {
			b.StatusCode = &a.StatusCode
		}
		if a.Error != "" {
			b.Error = &a.Error
		}
		out = append(out, b)
	}
	writeJSON(w, http.StatusOK, map[string]any{"deliveries": out})
}
