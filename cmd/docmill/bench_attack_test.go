package main

import (
	"testing"
	"time"

	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkAttack runs an attack (attack) for two minutes on a server
// whose metadata and queue are in SQLite (embedded) and then in PostgreSQL
// (skipped when it does not answer), and prints the victim's rotate-pdf
// latency beside its targets (p50 within 2x of the idle server's, p99
// under 2 s), the server's peak RSS beside 250 MB, and how far attacker
// jobs ran past their budget (meta.budget_ms) beside 5 s. It never fails
// on them; TestAttackWalls and TestAttackWallsPostgres assert the walls.
// A smoke pass (toolstest.BenchSmoke) attacks the embedded server only
// (TestAttackWallsPostgres runs the same attack on PostgreSQL in every
// test run) for 1 s once the attack is under way, and cancels the
// attacker jobs left, tools cut at 5 s.
func BenchmarkAttack(b *testing.B) {
	for _, st := range []struct {
		name string
		dir  dataDirFunc
	}{{"embedded", sqliteDir}, {"postgres", postgresDir}} {
		b.Run(st.name, func(b *testing.B) {
			if toolstest.BenchSmoke() && st.name != "embedded" {
				b.Skip("smoke pass: the embedded attack runs the same code")
			}
			for range b.N {
				benchAttack(b, st.dir(b))
			}
		})
	}
}

// benchAttack runs the two-minute attack on a server of dataDir and
// prints its figures.
func benchAttack(b *testing.B, dataDir string) {
	if toolstest.BenchSmoke() {
		a := newAttack(b, dataDir, "--job-timeout", "5s")
		a.cancelLeft = true
		a.checkWalls(b, a.run(b, time.Second))
		return
	}
	a := newAttack(b, dataDir)
	r := a.run(b, 2*time.Minute)
	idle, _ := percentiles(r.idle)
	p50, p99 := percentiles(r.busy)
	b.ReportMetric(ms(p50), "victim_p50_ms")
	b.ReportMetric(ms(p99), "victim_p99_ms")
	b.ReportMetric(float64(r.peakRSS>>20), "peak_rss_MB")
	over, ended := budgetOverrun(r)
	b.Logf("victim rotate-pdf under attack: p50 %.0f ms (target <= 2x idle p50 %.0f ms = %.0f ms), p99 %.0f ms (target < 2000 ms); %d calls, %d refused",
		ms(p50), ms(idle), 2*ms(idle), ms(p99), len(r.busy)+len(r.refused), len(r.refused))
	b.Logf("server peak RSS %d MB (target < 250 MB); %d attacker jobs ended, the furthest %.1f s past its budget (target <= 5 s)",
		r.peakRSS>>20, ended, over.Seconds())
	a.checkWalls(b, r)
}

// budgetOverrun is the most an attacker job ran past its budget
// (duration_ms beyond budget_ms), and how many attacker jobs ended.
func budgetOverrun(r *attackReport) (time.Duration, int) {
	var over time.Duration
	for _, aj := range r.attackerJobs {
		d, _ := aj.job.Meta.Int("duration_ms")
		budget, ok := aj.job.Meta.Int("budget_ms")
		if ok {
			over = max(over, time.Duration(d-budget)*time.Millisecond)
		}
	}
	return over, len(r.attackerJobs)
}
