package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/mail"
	"strings"
	"time"

	"github.com/docmill/docmill"
)

type limitsBody struct {
	OperationsPerMonth int64 `json:"operations_per_month"`
	MaxFileBytes       int64 `json:"max_file_bytes"`
	RequestsPerMinute  int   `json:"requests_per_minute"`
	JobsInFlight       int   `json:"jobs_in_flight"`
	QueuePriority      int   `json:"queue_priority"`
	ResultTTLSeconds   int64 `json:"result_ttl_seconds"`
	Webhooks           int   `json:"webhooks"`
}

type usageBody struct {
	Period          string `json:"period"`
	OperationsUsed  int64  `json:"operations_used"`
	OperationsLimit int64  `json:"operations_limit"`
	JobsInFlight    int64  `json:"jobs_in_flight"`
	ResetsAt        string `json:"resets_at"`
}

// handleAccount shows the caller's plan, limits and this period's usage.
func (s *Server) handleAccount(w http.ResponseWriter, r *http.Request) {
	c := callerOf(r.Context())
	period, end := docmill.Period(s.cfg.Now())
	u, err := s.cfg.Store.Usage(r.Context(), c.account.ID, period)
	if err != nil {
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	p := c.plan
	writeJSON(w, http.StatusOK, map[string]any{
		"account_id": c.account.ID,
		"name":       c.account.Name,
		"email":      c.account.Email,
		"plan":       c.account.Plan,
		"key_prefix": c.key.Prefix,
		"limits":     s.limitsOf(p),
		"usage": usageBody{
			Period: period, OperationsUsed: u.Operations, OperationsLimit: p.OperationsPerMonth,
			JobsInFlight: u.InFlight, ResetsAt: timestamp(end),
		},
	})
}

// signupsPerHour bounds sign-ups from one client address.
const signupsPerHour = 10

// handleSignup creates a Free account and returns its API key, once. It
// exists only when sign-up is open.
func (s *Server) handleSignup(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.Signup {
		s.writeError(w, r, docmill.Errorf(docmill.CodeNotFound, "Sign-up is closed on this server."))
		return
	}
	// Counted by the client's address: behind a trusted proxy, the one
	// it forwards (clientAddr).
	ip := r.RemoteAddr
	if a, _, ok := s.clientAddr(r); ok {
		ip = a.String()
	}
	if res, err := s.cfg.Limiter.Allow(r.Context(), "signup:"+ip, signupsPerHour, time.Hour); err == nil && !res.Allowed {
		e := docmill.Errorf(docmill.CodeRateLimited, "Too many sign-ups from this address.")
		e.RetryAfter = max(1, ceilSeconds(res.RetryAfter))
		s.writeError(w, r, e)
		return
	}
	var body struct {
		Email string `json:"email"`
		Name  string `json:"name"`
	}
	dec := json.NewDecoder(io.LimitReader(r.Body, 16<<10))
	if err := dec.Decode(&body); err != nil {
		s.writeError(w, r, docmill.Errorf(docmill.CodeInvalidRequest, "The body must be JSON: {\"email\": \"you@example.com\"}."))
		return
	}
	email := strings.ToLower(strings.TrimSpace(body.Email))
	if a, err := mail.ParseAddress(email); err != nil || a.Address != email || len(email) > 254 {
		s.writeError(w, r, docmill.ParamError("email", "must be an email address"))
		return
	}
	acct := &docmill.Account{Name: strings.TrimSpace(body.Name), Email: email, Plan: docmill.PlanFree}
	if acct.Name == "" {
		acct.Name = email
	}
	key, stored, err := docmill.CreateAccount(r.Context(), s.cfg.Store, acct, "signup", s.cfg.Now())
	if err != nil {
		if errors.Is(err, docmill.ErrEmailTaken) {
			s.writeError(w, r, docmill.Errorf(docmill.CodeConflict, "An account with this email already exists."))
			return
		}
		s.writeError(w, r, docmill.Internal(err))
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"account_id": acct.ID,
		"plan":       acct.Plan,
		"api_key":    key,
		"key_prefix": stored.Prefix,
		"note":       "Store this key now; it is not shown again.",
	})
}
