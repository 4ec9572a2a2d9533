package docmill

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"
)

// Plan is a set of limits an account works under.
type Plan struct {
	Name string `json:"name"`
	// OperationsPerMonth is how many jobs may end done per calendar month (UTC).
	OperationsPerMonth int64 `json:"operations_per_month"`
	// MaxFileBytes is the largest accepted upload; 0 means only the server's
	// hard cap applies.
	MaxFileBytes int64 `json:"max_file_bytes"`
	// RequestsPerMinute is the per-key rate limit of the API.
	RequestsPerMinute int `json:"requests_per_minute"`
	// JobsInFlight is how many queued or processing jobs may exist at once.
	JobsInFlight int `json:"jobs_in_flight"`
	// Priority is the queue priority, 1 (highest) to 4 (lowest).
	Priority int `json:"queue_priority"`
	// ResultTTL is how long results stay downloadable.
	ResultTTL time.Duration `json:"-"`
	// Webhooks is how many webhook endpoints the account may have. An
	// account's own limits (custom plans) do not carry it: EffectivePlan
	// takes it from the named plan.
	Webhooks int `json:"webhooks"`
	// Price is what the plan costs, as the plans page shows it; nil is
	// "on request" (custom plans, agreed per customer). Operators change
	// it in the plan configuration (docmill serve --plans).
	Price *Price `json:"price"`
}

// Price is a plan's list price.
type Price struct {
	// Amount is in whole units of Currency (roubles, not kopecks).
	Amount int64 `json:"amount"`
	// Currency is an ISO 4217 code, such as RUB.
	Currency string `json:"currency"`
	// Period is what the amount pays for: "month".
	Period string `json:"period"`
	// From marks a starting price ("from 2,490 RUB a month").
	From bool `json:"from"`
}

// Plan names.
const (
	PlanFree   = "free"
	PlanPro    = "pro"
	PlanTeam   = "team"
	PlanCustom = "custom"
)

const mb = 1 << 20

// DefaultPlans are the plans of docs/api.md's plan table, with the prices
// GET /v1/config shows. Custom accounts carry their own limits; the custom
// entry here holds the defaults for new ones.
func DefaultPlans() map[string]Plan {
	rub := func(amount int64, from bool) *Price {
		return &Price{Amount: amount, Currency: "RUB", Period: "month", From: from}
	}
	return map[string]Plan{
		PlanFree:   {Name: PlanFree, OperationsPerMonth: 100, MaxFileBytes: 100 * mb, RequestsPerMinute: 20, JobsInFlight: 2, Priority: 4, ResultTTL: time.Hour, Webhooks: 1, Price: rub(0, false)},
		PlanPro:    {Name: PlanPro, OperationsPerMonth: 10_000, MaxFileBytes: 2048 * mb, RequestsPerMinute: 120, JobsInFlight: 8, Priority: 3, ResultTTL: 24 * time.Hour, Webhooks: 5, Price: rub(490, false)},
		PlanTeam:   {Name: PlanTeam, OperationsPerMonth: 100_000, MaxFileBytes: 2048 * mb, RequestsPerMinute: 600, JobsInFlight: 32, Priority: 2, ResultTTL: 24 * time.Hour, Webhooks: 20, Price: rub(2490, true)},
		PlanCustom: {Name: PlanCustom, OperationsPerMonth: 1_000_000, MaxFileBytes: 0, RequestsPerMinute: 3000, JobsInFlight: 128, Priority: 1, ResultTTL: 24 * time.Hour, Webhooks: 50},
	}
}

// PlanNames returns the names of plans, sorted.
func PlanNames(plans map[string]Plan) []string {
	names := make([]string, 0, len(plans))
	for n := range plans {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Account is a customer: a plan and, for custom plans, its own limits.
type Account struct {
	ID    string
	Name  string
	Email string
	Plan  string
	// Limits holds the account's own limits when Plan is custom.
	Limits    *Plan
	CreatedAt time.Time
	// Status is active or suspended; a suspended account's keys and
	// sessions are refused (CodeAccountSuspended). Empty reads as active.
	Status      AccountStatus
	SuspendedAt *time.Time
}

// Suspended reports whether the account is suspended.
func (a *Account) Suspended() bool { return a.Status == AccountSuspended }

// EffectivePlan returns the limits that apply to a: its own for a custom
// account, else the named plan's.
func (a *Account) EffectivePlan(plans map[string]Plan) (Plan, error) {
	if a.Limits != nil {
		p := *a.Limits
		p.Name = a.Plan
		if p.Webhooks == 0 {
			p.Webhooks = plans[a.Plan].Webhooks
		}
		return p, nil
	}
	p, ok := plans[a.Plan]
	if !ok {
		return Plan{}, fmt.Errorf("account %s has unknown plan %q", a.ID, a.Plan)
	}
	return p, nil
}

// Period returns the usage period (calendar month, UTC) that t falls in, as
// "2006-01", and the instant the next period starts.
func Period(t time.Time) (string, time.Time) {
	t = t.UTC()
	start := time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	return start.Format("2006-01"), start.AddDate(0, 1, 0)
}

// ApplyPlanConfig changes plans by a plan configuration: a JSON object
// from a plan's name to the fields to change, by Plan's JSON names, such
// as {"pro": {"price": {"amount": 590, "currency": "RUB", "period":
// "month"}}, "free": {"operations_per_month": 50}}. Fields left out keep
// their value; "price": null makes the price "on request". Only existing
// plans may be changed (keys and accounts name them), and an unknown
// field is an error, so that a typo is not silently ignored.
func ApplyPlanConfig(plans map[string]Plan, config []byte) error {
	var changes map[string]json.RawMessage
	if err := json.Unmarshal(config, &changes); err != nil {
		return fmt.Errorf("plan configuration: %w", err)
	}
	for name, raw := range changes {
		p, ok := plans[name]
		if !ok {
			return fmt.Errorf("plan configuration: unknown plan %q (the plans are %v)", name, PlanNames(plans))
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return fmt.Errorf("plan configuration: plan %s: %w", name, err)
		}
		p.Name = name
		if p.OperationsPerMonth < 1 || p.MaxFileBytes < 0 || p.RequestsPerMinute < 1 || p.JobsInFlight < 1 ||
			p.Priority < 1 || p.Priority > 4 || p.Webhooks < 0 {
			return fmt.Errorf("plan configuration: plan %s: operations, requests and jobs in flight must be at least 1, priority 1 to 4, sizes and webhooks not negative", name)
		}
		if p.Price != nil && (p.Price.Amount < 0 || p.Price.Currency == "" || p.Price.Period == "") {
			return fmt.Errorf("plan configuration: plan %s: a price needs an amount (not negative), a currency and a period", name)
		}
		plans[name] = p
	}
	return nil
}
