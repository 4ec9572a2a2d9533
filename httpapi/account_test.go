package httpapi

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobs"
)

// TestAccountEndpoint: GET /v1/account shows the caller's plan, the key
// it used, its limits and this period's usage.
func TestAccountEndpoint(t *testing.T) {
	a := newProcAPI(t, nil)
	key, acct := a.account(t, docmill.Plan{OperationsPerMonth: 50, JobsInFlight: 2})
	period, _ := docmill.Period(time.Now())
	j := &docmill.Job{AccountID: acct.ID, Tool: "rotate-pdf", CreatedAt: time.Now()}
	if _, err := a.st.CreateJob(t.Context(), j, docmill.Admission{Period: period}); err != nil {
		t.Fatal(err)
	}
	var body struct {
		AccountID string     `json:"account_id"`
		KeyPrefix string     `json:"key_prefix"`
		Limits    limitsBody `json:"limits"`
		Usage     usageBody  `json:"usage"`
	}
	decode(t, a.call(key, http.MethodGet, "/v1/account", ""), http.StatusOK, &body)
	if body.AccountID != acct.ID || key[:len(body.KeyPrefix)] != body.KeyPrefix || body.KeyPrefix == "" {
		t.Errorf("account %+v", body)
	}
	if body.Limits.OperationsPerMonth != 50 || body.Usage.OperationsLimit != 50 || body.Usage.Period != period || body.Usage.JobsInFlight != 1 {
		t.Errorf("limits %+v, usage %+v; want 50 operations, one job in flight", body.Limits, body.Usage)
	}
}

// TestConfigEndpoint: GET /v1/config, without a key, says whether sign-up
// is open and lists the plans, the lowest queue priority first.
func TestConfigEndpoint(t *testing.T) {
	a := newProcAPI(t, nil)
	for _, open := range []bool{false, true} {
		a.s.cfg.Signup = open
		var body struct {
			Signup string     `json:"signup"`
			Plans  []planBody `json:"plans"`
		}
		decode(t, a.call("", http.MethodGet, "/v1/config", ""), http.StatusOK, &body)
		if want := map[bool]string{false: "closed", true: "open"}[open]; body.Signup != want {
			t.Errorf("signup %q, want %q", body.Signup, want)
		}
		if len(body.Plans) != len(docmill.DefaultPlans()) {
			t.Fatalf("%d plans, want %d", len(body.Plans), len(docmill.DefaultPlans()))
		}
		for i := 1; i < len(body.Plans); i++ {
			if body.Plans[i].QueuePriority > body.Plans[i-1].QueuePriority {
				t.Errorf("plans out of order: %s (%d) after %s (%d)", body.Plans[i].Name, body.Plans[i].QueuePriority,
					body.Plans[i-1].Name, body.Plans[i-1].QueuePriority)
			}
		}
	}
}

// TestReadyz: ready while the store, the bucket and the further checks
// answer; a check that fails makes the node not ready (503) and names it.
func TestReadyz(t *testing.T) {
	a := newProcAPI(t, nil)
	var body struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
	}
	decode(t, a.call("", http.MethodGet, "/readyz", ""), http.StatusOK, &body)
	if body.Status != "ready" || body.Checks["database"] != "ok" || body.Checks["blob"] != "ok" {
		t.Errorf("readyz %+v", body)
	}
	a.s.cfg.Checks = map[string]func(context.Context) error{
		"redis": func(context.Context) error { return errors.New("connection refused") },
	}
	body.Checks = nil
	decode(t, a.call("", http.MethodGet, "/readyz", ""), http.StatusServiceUnavailable, &body)
	if body.Status != "not ready" || body.Checks["redis"] != "unavailable" || body.Checks["database"] != "ok" {
		t.Errorf("readyz with redis down %+v", body)
	}
}

// TestToolsEndpoint: GET /v1/tools lists every tool of the registry;
// GET /v1/tools/{tool} one, and an unknown one is unknown_tool.
func TestToolsEndpoint(t *testing.T) {
	a := newProcAPI(t, nil)
	var body struct {
		Tools []toolBody `json:"tools"`
	}
	decode(t, a.call("", http.MethodGet, "/v1/tools", ""), http.StatusOK, &body)
	if len(body.Tools) != 2 {
		t.Errorf("%d tools, want rotate-pdf and flip-pdf", len(body.Tools))
	}
	w := a.call("", http.MethodGet, "/v1/tools/no-such-tool", "")
	if w.Code != http.StatusNotFound || problemCode(t, w) != docmill.CodeUnknownTool {
		t.Errorf("unknown tool: %d %s", w.Code, w.Body)
	}
}

// TestDeleteJob: DELETE /v1/jobs/{id} cancels a queued job through the
// real queue and answers with the job canceled; another account's job,
// or none, is not_found.
func TestDeleteJob(t *testing.T) {
	a := newProcAPI(t, nil)
	q, err := jobs.New(riversqlite.New(a.st.WriteDB()), jobs.Config{Store: a.st, Blob: a.s.cfg.Blob, Registry: a.s.cfg.Registry})
	if err != nil {
		t.Fatal(err)
	}
	a.s.cfg.Queue = q // insert-only: an API node's
	key, acct := a.account(t, docmill.Plan{})
	otherKey, _ := a.account(t, docmill.Plan{})
	j, err := a.st.CreateJob(t.Context(), &docmill.Job{AccountID: acct.ID, Tool: "rotate-pdf", CreatedAt: time.Now()}, docmill.Admission{Period: "2026-11"})
	if err != nil {
		t.Fatal(err)
	}
	if w := a.call(otherKey, http.MethodDelete, "/v1/jobs/"+j.ID, ""); w.Code != http.StatusNotFound {
		t.Errorf("another account's DELETE: %d, want 404", w.Code)
	}
	var got struct {
		Status string `json:"status"`
	}
	decode(t, a.call(key, http.MethodDelete, "/v1/jobs/"+j.ID, ""), http.StatusOK, &got)
	if got.Status != string(docmill.StatusCanceled) {
		t.Errorf("status %q, want canceled", got.Status)
	}
	if w := a.call(key, http.MethodDelete, "/v1/jobs/job_none", ""); w.Code != http.StatusNotFound {
		t.Errorf("DELETE of no job: %d, want 404", w.Code)
	}
}
