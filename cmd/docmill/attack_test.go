package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/tools/toolstest"
)

// attack is issue 29's attack on one server: two Free accounts keep
// their jobs in flight busy with the worst inputs (attackInputs) while a
// third account sends a one-page rotate-pdf every 500 ms.
type attack struct {
	s         *testServer
	attackers []*client.Client
	victim    *client.Client
	inputs    []attackInput
	pdf       []byte
	// cancelLeft makes the attack cancel the attacker jobs still queued
	// or processing when it ends, instead of waiting for their budgets:
	// the tests' walls hold either way, the benchmark's budget figures
	// need the wait.
	cancelLeft bool
}

// attackReport is what an attack saw.
type attackReport struct {
	// idle and busy are the victim's rotate-pdf latencies on the idle
	// server and under attack.
	idle, busy []time.Duration
	// victimJobs are the victim's jobs under attack.
	victimJobs []*client.Job
	// attackerJobs are every attacker job, as they ended.
	attackerJobs []attackerJob
	// refused counts victim calls that did not end done.
	refused []error
	// peakRSS is the server process's peak resident set (VmHWM).
	peakRSS int64
}

// attackerJob is one job of an attacker account, as it ended.
type attackerJob struct {
	account, input string
	job            *client.Job
}

// newAttack starts a server process and the three accounts (the victim
// on the Team plan: a rotate every 500 ms is more than Free's rate).
func newAttack(t testing.TB, dataDir string, extra ...string) *attack {
	s := startChild(t, dataDir, append([]string{"--log-level", "error"}, extra...)...)
	a := &attack{s: s, inputs: attackInputs(t), pdf: onePagePDF()}
	for range 2 {
		a.attackers = append(a.attackers, s.client(newKey(t, s.DataDir, "free")))
	}
	a.victim = s.client(newKey(t, s.DataDir, "team"))
	return a
}

// run measures the victim on the idle server, then attacks for d, and
// waits for every attacker job to end (canceled first with cancelLeft).
func (a *attack) run(t testing.TB, d time.Duration) *attackReport {
	r := &attackReport{}
	for range 10 {
		lat, _, _ := a.rotate(t)
		r.idle = append(r.idle, lat)
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, c := range a.attackers {
		for slot := range 2 { // Free's jobs in flight
			wg.Go(func() {
				for n := i*2 + slot; ctx.Err() == nil; n++ {
					in := a.inputs[n%len(a.inputs)]
					j, goOn := a.attackOnce(t, ctx, c, in)
					if j != nil {
						mu.Lock()
						r.attackerJobs = append(r.attackerJobs, attackerJob{fmt.Sprint("attacker", i), in.name, j})
						mu.Unlock()
					}
					if !goOn {
						return
					}
				}
			})
		}
	}
	// The attack is under way once as many jobs run as there are
	// attackers (the victim sends nothing meanwhile).
	poll.Until(t, time.Minute, func() (bool, string) {
		n := scrape(t, a.s.URL)[`docmill_queue_depth{status="processing"}`]
		return n >= float64(len(a.attackers)), fmt.Sprintf("%v jobs processing, want %d", n, len(a.attackers))
	})
	tick := time.NewTicker(500 * time.Millisecond)
	for end := time.Now().Add(d); time.Now().Before(end); <-tick.C {
		lat, j, err := a.rotate(t)
		if err != nil {
			r.refused = append(r.refused, err)
			continue
		}
		r.busy = append(r.busy, lat)
		r.victimJobs = append(r.victimJobs, j)
	}
	tick.Stop()
	stop()
	wg.Wait()
	r.peakRSS = toolstest.PeakRSS(t, a.s.cmd.Process.Pid)
	return r
}

// rotate sends one synchronous rotate-pdf as the victim.
func (a *attack) rotate(t testing.TB) (time.Duration, *client.Job, error) {
	started := time.Now()
	j, _, err := a.victim.Process(context.Background(), "rotate-pdf", []client.File{{Name: "one.pdf", Body: bytes.NewReader(a.pdf)}},
		client.ProcessOptions{Prefer: "wait=60"})
	lat := time.Since(started)
	if err == nil && j.Status != "done" {
		err = errors.New("rotate-pdf ended " + string(j.Status))
	}
	return lat, j, err
}

// attackOnce sends one hostile job and waits for its end; it returns nil
// when the job was refused at once (a 429 waits its Retry-After), and
// goOn false after an unexpected error: the test has failed, and that
// attacker stops rather than repeat the error.
func (a *attack) attackOnce(t testing.TB, ctx context.Context, c *client.Client, in attackInput) (_ *client.Job, goOn bool) {
	j, _, err := c.Process(ctx, in.tool, []client.File{{Name: in.file, Body: bytes.NewReader(in.body)}},
		client.ProcessOptions{Prefer: "respond-async", Params: in.params})
	var p *client.Problem
	switch {
	case errors.As(err, &p) && p.StatusCode == http.StatusTooManyRequests:
		select {
		case <-ctx.Done():
		case <-time.After(max(p.RetryAfter, 500*time.Millisecond)):
		}
		return nil, true
	case err != nil && ctx.Err() != nil:
		return nil, true
	case err != nil:
		t.Errorf("%s: %v", in.name, err)
		return nil, false
	}
	// Every job is followed to its end: past the attack, or canceled when
	// the attack ends (cancelLeft).
	waitCtx := context.Background()
	if a.cancelLeft {
		waitCtx = ctx
	}
	done, err := c.WaitJob(waitCtx, j.JobID, 10*time.Minute)
	if err != nil && waitCtx.Err() != nil {
		if _, err := c.CancelJob(context.Background(), j.JobID); err != nil {
			t.Errorf("%s: cancel %s: %v", in.name, j.JobID, err)
			return nil, true
		}
		done, err = c.WaitJob(context.Background(), j.JobID, time.Minute)
	}
	if err != nil {
		t.Errorf("%s: wait %s: %v", in.name, j.JobID, err)
		return nil, true
	}
	return done, true
}

// onePagePDF is a one-page PDF of a line of text.
func onePagePDF() []byte {
	content := "BT /F1 24 Tf 72 700 Td (One page) Tj ET"
	return toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
}

// span is when a job waited and ran, from its record. A job that never
// ran (canceled while queued) has ran false and started at its end: it
// waited all its life and held no worker.
type span struct {
	account, lane    string
	created, started time.Time
	finished         time.Time
	ran              bool
}

// spanOf is when rec waited and ran. The times are the database's: the
// API gives whole seconds, too coarse to order jobs started together.
func spanOf(account, lane string, rec *docmill.Job) span {
	s := span{account: account, lane: lane, created: rec.CreatedAt, started: rec.CreatedAt, finished: rec.CreatedAt}
	if rec.FinishedAt != nil {
		s.finished = *rec.FinishedAt
	}
	if rec.StartedAt != nil {
		s.started, s.ran = *rec.StartedAt, true
	} else {
		s.started = s.finished
	}
	return s
}

// jobRecords reads the records of the jobs ids from the server's
// database (SQLite in its data directory, or its PostgreSQL schema).
func jobRecords(t testing.TB, dataDir string, ids []string) map[string]*docmill.Job {
	t.Helper()
	d := &dataFlags{dataDir: dataDir}
	if u, ok := databases.Load(dataDir); ok {
		d.databaseURL = u.(string)
	}
	db, err := openDatabase(context.Background(), d, false)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	recs := map[string]*docmill.Job{}
	for _, id := range ids {
		rec, err := db.Store().Job(context.Background(), id)
		if err != nil {
			t.Fatalf("job %s: %v", id, err)
		}
		recs[id] = rec
	}
	return recs
}

// toolLanes reads each tool's lane from the catalogue.
func toolLanes(t testing.TB, base string) map[string]string {
	resp, err := http.Get(base + "/v1/tools")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var cat struct {
		Tools []struct {
			Slug string `json:"slug"`
			Lane string `json:"lane"`
		} `json:"tools"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&cat); err != nil {
		t.Fatal(err)
	}
	lanes := map[string]string{}
	for _, tl := range cat.Tools {
		if tl.Lane == "" {
			t.Fatalf("tool %s has no lane in the catalogue", tl.Slug)
		}
		lanes[tl.Slug] = tl.Lane
	}
	return lanes
}

// commitLag is how long before its start a job of another account must
// have been created to count as waiting: a record's created_at is taken
// before the transaction that queues it commits, and the share check
// sees only committed jobs.
const commitLag = 250 * time.Millisecond

// unfairMoments returns the moments (a job's start) at which an account
// held more than share workers of a lane while another account's job
// waited in that lane, created before the share was decided: what fair
// share forbids.
func unfairMoments(spans []span, share func(lane string) int) []string {
	var bad []string
	for _, s := range spans {
		if !s.ran {
			continue
		}
		t := s.started
		held, waiting := 0, ""
		for _, o := range spans {
			if o.lane != s.lane {
				continue
			}
			if o.ran && o.account == s.account && !o.started.After(t) && o.finished.After(t) {
				held++
			}
			if o.account != s.account && o.created.Before(t.Add(-commitLag)) && o.started.After(t) {
				waiting = fmt.Sprintf("%s's job created at %s waited until %s", o.account, o.created.Format(time.RFC3339Nano), o.started.Format(time.RFC3339Nano))
			}
		}
		if held > share(s.lane) && waiting != "" {
			bad = append(bad, fmt.Sprintf("%s held %d of lane %s at %s while %s", s.account, held, s.lane, t.Format(time.RFC3339Nano), waiting))
		}
	}
	return bad
}

func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return percentile(s, 50), percentile(s, 99)
}

// TestAttackWalls is issue 29's attack, short: the walls between
// accounts hold (lanes, fair share, the server's memory) and every
// attacker job ends, done or refused by a client code, never internal.
// Tools are cut at 4 s and the attack lasts 5 s, so the first attacker
// jobs end by their budget (processing_timeout) and others take their
// workers before the attack ends; the jobs left then are canceled, not
// waited for. BenchmarkAttack runs it for two minutes and prints the
// figures.
func TestAttackWalls(t *testing.T) {
	// Serial: its attackers keep every core busy by design, which would
	// slow the tests beside it, and the fairness judge allows a job's
	// commit commitLag, which a loaded machine can exceed. It asserts the
	// server's peak RSS, never a latency.
	if testing.Short() {
		t.Skip("slow")
	}
	a := newAttack(t, t.TempDir(), "--job-timeout", "4s")
	a.cancelLeft = true
	r := a.run(t, 5*time.Second)
	a.checkWalls(t, r)
	checkBudgetEnds(t, r)
}

// TestAttackWallsPostgres is TestAttackWalls on a server whose metadata
// and queue are in PostgreSQL (River's PostgreSQL driver, the fair-share
// query on PostgreSQL), shorter still to spare CI: 4 s of attack, tools
// cut at 3 s. The walls are the same.
func TestAttackWallsPostgres(t *testing.T) {
	// Serial, as TestAttackWalls.
	if testing.Short() {
		t.Skip("slow")
	}
	a := newAttack(t, postgresDir(t), "--job-timeout", "3s")
	a.cancelLeft = true
	r := a.run(t, 4*time.Second)
	a.checkWalls(t, r)
	checkBudgetEnds(t, r)
}

// checkBudgetEnds asserts that some attacker job ended by its budget
// during the attack (processing_timeout): the wall that frees a worker
// from a hostile input, which the jobs canceled at the end do not reach.
func checkBudgetEnds(t *testing.T, r *attackReport) {
	t.Helper()
	for _, aj := range r.attackerJobs {
		if aj.job.Error != nil && aj.job.Error.Code == "processing_timeout" {
			return
		}
	}
	t.Errorf("no attacker job of %d ended by its budget (processing_timeout)", len(r.attackerJobs))
}

// checkWalls asserts what the attack must not break, never a time.
func (a *attack) checkWalls(t testing.TB, r *attackReport) {
	t.Helper()
	for _, err := range r.refused {
		t.Errorf("victim's rotate-pdf under attack: %v", err)
	}
	if r.peakRSS > 250<<20 {
		t.Errorf("server peak RSS %d MB, over 250 MB", r.peakRSS>>20)
	}
	lanes := toolLanes(t, a.s.URL)
	workers := laneWorkers(t, a.s.URL)
	var ids []string
	for _, aj := range r.attackerJobs {
		ids = append(ids, aj.job.JobID)
	}
	for _, j := range r.victimJobs {
		ids = append(ids, j.JobID)
	}
	recs := jobRecords(t, a.s.DataDir, ids)
	var spans []span
	for _, aj := range r.attackerJobs {
		j := aj.job
		d, _ := j.Meta.Int("duration_ms")
		budget, _ := j.Meta.Int("budget_ms")
		sp := spanOf(aj.account, lanes[j.Tool], recs[j.JobID])
		t.Logf("attacker job %s: %s (lane %s), created %s, queued %s, %s, %d ms of a %d ms budget, error %+v",
			aj.account, aj.input, sp.lane, sp.created.Format(time.RFC3339Nano), sp.started.Sub(sp.created), j.Status, d, budget, j.Error)
		if !j.Finished() || (j.Error != nil && j.Error.Code == "internal") {
			t.Errorf("attacker job %s (%s) ended %s %+v", j.JobID, aj.input, j.Status, j.Error)
		}
		if lanes[j.Tool] == lanes["rotate-pdf"] {
			t.Errorf("attacker tool %s shares rotate-pdf's lane %s", j.Tool, lanes[j.Tool])
		}
		spans = append(spans, sp)
	}
	share := func(lane string) int { return max(1, workers[lane]/2) }
	for _, m := range unfairMoments(spans, share) {
		t.Errorf("fair share broken: %s", m)
	}
	// The lanes at work: the victim's jobs ran while attackers held workers.
	alongside := 0
	for _, j := range r.victimJobs {
		v := spanOf("victim", lanes["rotate-pdf"], recs[j.JobID])
		for _, s := range spans {
			if s.started.Before(v.started) && s.finished.After(v.finished) {
				alongside++
				break
			}
		}
	}
	if len(r.victimJobs) > 0 && alongside == 0 {
		t.Errorf("no victim job ran while an attacker job was processing (%d attacker jobs)", len(spans))
	}
	t.Logf("attack: %d attacker jobs, %d victim jobs (%d alongside attackers), peak RSS %d MB",
		len(spans), len(r.victimJobs), alongside, r.peakRSS>>20)
}

// laneWorkers reads each lane's workers on this node from /metrics.
func laneWorkers(t testing.TB, base string) map[string]int {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	workers := map[string]int{}
	for _, m := range laneWorkersRE.FindAllStringSubmatch(string(b), -1) {
		n, _ := strconv.Atoi(m[2])
		workers[m[1]] = n
	}
	if len(workers) == 0 {
		t.Fatal("no lane workers in /metrics")
	}
	return workers
}

var laneWorkersRE = regexp.MustCompile(`(?m)^docmill_lane_workers\{lane="([a-z]+)"\} ([0-9]+)$`)

// TestUnfairMoments checks the attack's fairness judge on made-up spans:
// it flags an account over its share while another waits, and only then.
func TestUnfairMoments(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	share := func(string) int { return 1 }
	a1 := span{"a", "browser", at(0), at(0), at(5000), true}
	for _, tc := range []struct {
		name  string
		spans []span
		bad   int
	}{
		{"alone may take every worker", []span{a1, {"a", "browser", at(0), at(1000), at(3000), true}}, 0},
		{"second job while b waits", []span{a1, {"a", "browser", at(0), at(1000), at(3000), true}, {"b", "browser", at(500), at(5000), at(6000), true}}, 1},
		{"b came as the share was decided", []span{a1, {"a", "browser", at(0), at(1000), at(3000), true}, {"b", "browser", at(900), at(5000), at(6000), true}}, 0},
		{"b waits in another lane", []span{a1, {"a", "browser", at(0), at(1000), at(3000), true}, {"b", "office", at(500), at(5000), at(6000), true}}, 0},
		{"a job canceled while queued held nothing", []span{a1, {"a", "browser", at(1000), at(1200), at(1200), false}, {"b", "browser", at(500), at(5000), at(6000), true}}, 0},
		{"b waited until canceled", []span{a1, {"a", "browser", at(0), at(1000), at(3000), true}, {"b", "browser", at(500), at(4000), at(4000), false}}, 1},
		{"first job ended before the second", []span{{"a", "browser", at(0), at(0), at(900), true}, {"a", "browser", at(0), at(1000), at(3000), true}, {"b", "browser", at(500), at(5000), at(6000), true}}, 0},
	} {
		if got := unfairMoments(tc.spans, share); len(got) != tc.bad {
			t.Errorf("%s: %d unfair moments %v, want %d", tc.name, len(got), got, tc.bad)
		}
	}
}
