package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/httpapi"
	"github.com/docmill/docmill/jobs"
)

// syncStages are the stages of one sync process call, in order: the
// client's send, the server's (httpapi and jobs Trace), the client's
// receipt of the whole answer.
var syncStages = []string{
	"sent",
	httpapi.StageAdmitted, httpapi.StageInputStored, httpapi.StageJobCreated,
	jobs.StagePickup, jobs.StageStarted, jobs.StageInputs, jobs.StageTool,
	jobs.StageResultStored, jobs.StageFinished, jobs.StagePublished,
	httpapi.StageWoken, httpapi.StageAnswered,
	"received",
}

// stageRecorder keeps when each job reached each stage, from the
// server's stageTrace and the benchmark's client.
type stageRecorder struct {
	mu   sync.Mutex
	jobs map[string]map[string]time.Time
}

// recordStages makes the servers started in this process from now on tell
// a new recorder of their jobs' stages, until the benchmark ends. It must
// be called before they start.
func recordStages(b *testing.B) *stageRecorder {
	r := &stageRecorder{jobs: map[string]map[string]time.Time{}}
	stageTrace = r.mark
	b.Cleanup(func() { stageTrace = nil })
	return r
}

func (r *stageRecorder) mark(id, stage string) { r.at(id, stage, time.Now()) }

func (r *stageRecorder) at(id, stage string, t time.Time) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.jobs[id]
	if m == nil {
		m = map[string]time.Time{}
		r.jobs[id] = m
	}
	if _, seen := m[stage]; !seen { // a retried attempt keeps its first
		m[stage] = t
	}
}

// report is the p50 of each stage's time (from the stage before it) over
// the jobs that reached every stage, one line a stage.
func (r *stageRecorder) report() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	per := make([][]time.Duration, len(syncStages))
	for _, m := range r.jobs {
		if len(m) != len(syncStages) {
			continue
		}
		for i := 1; i < len(syncStages); i++ {
			per[i] = append(per[i], m[syncStages[i]].Sub(m[syncStages[i-1]]))
		}
	}
	var sb strings.Builder
	var sum float64
	for i := 1; i < len(syncStages); i++ {
		p := ms(percentile(per[i], 50))
		sum += p
		fmt.Fprintf(&sb, "  %-14s -> %-14s p50 %6.2f ms  p90 %6.2f ms\n", syncStages[i-1], syncStages[i], p, ms(percentile(per[i], 90)))
	}
	fmt.Fprintf(&sb, "  sum of the stages' p50: %.2f ms over %d jobs", sum, len(per[1]))
	return sb.String()
}
