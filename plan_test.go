package docmill

import (
	"testing"
	"time"
)

func TestPeriod(t *testing.T) {
	utc := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		at         string
		want       string
		wantResets string
	}{
		{"2026-11-22T10:00:00Z", "2026-11", "2026-12-01T00:00:00Z"},
		{"2026-11-01T00:00:00Z", "2026-11", "2026-12-01T00:00:00Z"},
		{"2026-11-30T23:59:59.999999999Z", "2026-11", "2026-12-01T00:00:00Z"},
		{"2026-12-31T23:59:59Z", "2026-12", "2027-01-01T00:00:00Z"},
		{"2027-01-01T00:00:00Z", "2027-01", "2027-02-01T00:00:00Z"},
		{"2026-01-31T12:00:00Z", "2026-01", "2026-02-01T00:00:00Z"},
		{"2028-02-29T12:00:00Z", "2028-02", "2028-03-01T00:00:00Z"},
		// The period is the UTC month, whatever the caller's zone.
		{"2027-01-01T01:00:00+02:00", "2026-12", "2027-01-01T00:00:00Z"},
		{"2026-11-30T20:00:00-05:00", "2026-12", "2027-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.at, func(t *testing.T) {
			got, resets := Period(utc(tt.at))
			if got != tt.want || !resets.Equal(utc(tt.wantResets)) || resets.Location() != time.UTC {
				t.Errorf("Period = %s, %v; want %s, %s", got, resets, tt.want, tt.wantResets)
			}
		})
	}
}

func TestEffectivePlan(t *testing.T) {
	plans := DefaultPlans()
	own := &Plan{Name: "ignored", OperationsPerMonth: 2_000_000, MaxFileBytes: 0, RequestsPerMinute: 5000}
	tests := []struct {
		name    string
		account Account
		want    Plan
		wantErr bool
	}{
		{"free", Account{ID: "a", Plan: PlanFree}, plans[PlanFree], false},
		{"pro", Account{ID: "a", Plan: PlanPro}, plans[PlanPro], false},
		{"custom with own limits", Account{ID: "a", Plan: PlanCustom, Limits: own},
			Plan{Name: PlanCustom, OperationsPerMonth: 2_000_000, RequestsPerMinute: 5000, Webhooks: plans[PlanCustom].Webhooks}, false},
		{"custom without own limits", Account{ID: "a", Plan: PlanCustom}, plans[PlanCustom], false},
		{"unknown plan", Account{ID: "a", Plan: "gold"}, Plan{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.account.EffectivePlan(plans)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("plan = %+v, want %+v", got, tt.want)
			}
		})
	}
	if own.Name != "ignored" {
		t.Error("EffectivePlan modified the account's own limits")
	}
}

func TestDefaultPlans(t *testing.T) {
	plans := DefaultPlans()
	if got := PlanNames(plans); len(got) != 4 || got[0] != PlanCustom || got[3] != PlanTeam {
		t.Errorf("PlanNames = %v", got)
	}
	for name, p := range plans {
		if p.Name != name || p.Priority < 1 || p.Priority > 4 || p.ResultTTL <= 0 {
			t.Errorf("plan %s = %+v", name, p)
		}
	}
	// The plan table of docs/api.md.
	if f := plans[PlanFree]; f.OperationsPerMonth != 100 || f.MaxFileBytes != 100<<20 || f.RequestsPerMinute != 20 || f.JobsInFlight != 2 || f.ResultTTL != time.Hour {
		t.Errorf("free plan = %+v", f)
	}
	plans[PlanFree] = Plan{}
	if DefaultPlans()[PlanFree].Name != PlanFree {
		t.Error("DefaultPlans shares state between calls")
	}
}

func TestApplyPlanConfig(t *testing.T) {
	plans := DefaultPlans()
	err := ApplyPlanConfig(plans, []byte(`{"pro": {"price": {"amount": 590, "currency": "RUB", "period": "month"}},
		"free": {"operations_per_month": 50}, "team": {"price": null}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p := plans[PlanPro]; p.Price == nil || p.Price.Amount != 590 || p.OperationsPerMonth != 10_000 || p.Name != PlanPro {
		t.Errorf("pro after the change: %+v %+v", p, p.Price)
	}
	if p := plans[PlanFree]; p.OperationsPerMonth != 50 || p.Price == nil || p.Price.Amount != 0 || p.ResultTTL != time.Hour {
		t.Errorf("free after the change: %+v", p)
	}
	if plans[PlanTeam].Price != nil {
		t.Error(`"price": null left team's price`)
	}
	for _, bad := range []string{
		`{"gold": {}}`,
		`{"pro": {"price_rub": 5}}`,
		`{"pro": {"operations_per_month": 0}}`,
		`{"pro": {"price": {"amount": -1, "currency": "RUB", "period": "month"}}}`,
		`{"custom": {"price": {"amount": 1}}}`,
		`[1]`,
	} {
		if err := ApplyPlanConfig(DefaultPlans(), []byte(bad)); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}
