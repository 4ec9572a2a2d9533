package httpapi

import (
	"net/http"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobview"
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
	prefix := "" // signed in by a session
	if c.key != nil {
		prefix = c.key.Prefix
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"account_id": c.account.ID,
		"name":       c.account.Name,
		"email":      c.account.Email,
		"plan":       c.account.Plan,
		"key_prefix": prefix,
		"limits":     s.limitsOf(p),
		"usage": usageBody{
			Period: period, OperationsUsed: u.Operations, OperationsLimit: p.OperationsPerMonth,
			JobsInFlight: u.InFlight, ResetsAt: jobview.Timestamp(end),
		},
	})
}
