package httpapi

import (
	"net/http"
	"sort"
	"time"

	"github.com/docmill/docmill"
)

// planBody is a plan as GET /v1/config shows it: its limits and price.
type planBody struct {
	Name string `json:"name"`
	limitsBody
	// Price is null when it is on request (custom plans).
	Price *docmill.Price `json:"price"`
}

// handleConfig serves what a client (the web page) needs to know of this
// server before it has a key: whether sign-up is open, and the plans with
// their limits and prices, cheapest (lowest queue priority) first.
func (s *Server) handleConfig(w http.ResponseWriter, r *http.Request) {
	plans := make([]planBody, 0, len(s.cfg.Plans))
	for _, p := range s.cfg.Plans {
		plans = append(plans, planBody{Name: p.Name, limitsBody: s.limitsOf(p), Price: p.Price})
	}
	sort.Slice(plans, func(i, j int) bool {
		if plans[i].QueuePriority != plans[j].QueuePriority {
			return plans[i].QueuePriority > plans[j].QueuePriority
		}
		return plans[i].Name < plans[j].Name
	})
	signup := "closed"
	if s.cfg.Signup {
		signup = "open"
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"signup":           signup,
		"plans":            plans,
		"max_upload_bytes": s.cfg.MaxUploadBytes,
	})
}

// limitsOf is a plan's limits as the API shows them: the file size as
// this server applies it (a plan's none, or more than the server's cap,
// is the cap).
func (s *Server) limitsOf(p docmill.Plan) limitsBody {
	return limitsBody{
		OperationsPerMonth: p.OperationsPerMonth, MaxFileBytes: s.fileLimit(p).bytes, RequestsPerMinute: p.RequestsPerMinute,
		JobsInFlight: p.JobsInFlight, QueuePriority: p.Priority, ResultTTLSeconds: int64(p.ResultTTL / time.Second),
		Webhooks: p.Webhooks,
	}
}
