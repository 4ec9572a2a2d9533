package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
)

// riverJob is how River sees a docmill job: its state and attempts.
type riverJob struct {
	state   string
	attempt int
}

// riverJobs returns the River entries of the docmill jobs in dataDir's
// embedded database, by docmill job id.
func riverJobs(t *testing.T, dataDir string) map[string]riverJob {
	t.Helper()
	rows, err := openDB(t, dataDir).Query(`SELECT json_extract(json(args), '$.job_id'), state, attempt FROM river_job WHERE kind = 'docmill.process'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]riverJob{}
	for rows.Next() {
		var id string
		var r riverJob
		if err := rows.Scan(&id, &r.state, &r.attempt); err != nil {
			t.Fatal(err)
		}
		out[id] = r
	}
	return out
}

// awaitRiver waits until River runs job id on attempt n (or has finished
// it after that attempt).
func awaitRiver(t *testing.T, dataDir, id string, n int, timeout time.Duration) {
	t.Helper()
	poll.Until(t, timeout, func() (bool, string) {
		r := riverJobs(t, dataDir)[id]
		return r.attempt >= n && r.state != "available" && r.state != "retryable",
			fmt.Sprintf("job %s: River has %+v, want attempt %d running", id, r, n)
	})
}

// TestTripleKillGivesUp: a job whose server is killed with SIGKILL on each
// of its three attempts ends failed with worker_lost as the server starts
// again: uncharged, out of the account's jobs in flight, its input gone.
func TestTripleKillGivesUp(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Wait-bound (restarts); its directory and nodes are its own.
	t.Parallel()
	dir := t.TempDir()
	s := startChild(t, dir, "--workers", "1")
	key := s.DevKey
	ctx := context.Background()
	// Each attempt waits for a selector that never matches, up to its
	// bound (tens of seconds), on next to no CPU: it outlasts each kill.
	stalled := client.File{Name: "stalled.html", Body: strings.NewReader("<p>waits for #never</p>")}
	j, _, err := s.client(key).Process(ctx, "html-to-pdf", []client.File{stalled},
		client.ProcessOptions{Params: map[string]string{"wait_for": blockerWaitFor}, Prefer: "respond-async"})
	if err != nil {
		t.Fatal(err)
	}
	awaitStatus(t, s.client(key), j.JobID, "processing")
	for attempt := 1; attempt <= 3; attempt++ {
		awaitRiver(t, dir, j.JobID, attempt, time.Minute)
		s.kill(t)
		if st := jobStatus(t, dir, j.JobID); st != "processing" {
			t.Fatalf("attempt %d: killed too late: job is %s", attempt, st)
		}
		s = startChild(t, dir, "--workers", "1")
	}
	c := s.client(key)
	got, err := c.Job(ctx, j.JobID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "failed" || got.Error == nil || got.Error.Code != "worker_lost" {
		t.Fatalf("after three kills and a restart: %s %+v, want failed worker_lost at once", got.Status, got.Error)
	}
	u := accountUsage(ctx, t, c)
	if u.OperationsUsed != 0 || u.JobsInFlight != 0 {
		t.Errorf("usage %v, want nothing charged and nothing in flight", u)
	}
	assertNoInputs(t, dir)
}

// TestKillRecoversInSeconds: a server killed with SIGKILL while it works
// through 8 async jobs (its two workers busy, more jobs queued) runs the
// interrupted ones again within 10 s of its restart (not after the job
// timeout), and every job ends done, charged once.
func TestKillRecoversInSeconds(t *testing.T) {
	// Serial: it bounds the time from its node's restart to the
	// interrupted jobs' new attempts (10 s), which the load of tests run
	// beside it would stretch.
	if testing.Short() {
		t.Skip("slow")
	}
	dir := t.TempDir()
	s := startChild(t, dir, "--workers", "2")
	key := newKey(t, dir, "custom", "--rpm", "100000", "--in-flight", "100", "--ops", "1000000")
	ctx := context.Background()
	var ids []string
	for i := 0; i < 8; i++ {
		j, _, err := s.client(key).Process(ctx, "merge-pdf", bigMerge(t)[:6], client.ProcessOptions{Prefer: "respond-async"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.JobID)
	}
	awaitRiver(t, dir, ids[2], 1, time.Minute)
	s.kill(t)
	var interrupted []string
	for id, r := range riverJobs(t, dir) {
		if r.state == "running" {
			interrupted = append(interrupted, id)
		}
	}
	if len(interrupted) == 0 {
		t.Fatal("no job was running at the kill")
	}
	s = startChild(t, dir, "--workers", "2")
	restarted := time.Now()
	for _, id := range interrupted {
		awaitRiver(t, dir, id, 2, 10*time.Second)
	}
	t.Logf("%d interrupted jobs running again %s after the restart", len(interrupted), time.Since(restarted).Round(10*time.Millisecond))

	allDoneChargedOnce(t, s.client(key), ids)
}

// allDoneChargedOnce waits for every job of ids to end done, and checks
// that the account paid one operation for each.
func allDoneChargedOnce(t *testing.T, c *client.Client, ids []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, id := range ids {
		j, err := c.Wait(ctx, id, 250*time.Millisecond)
		if err != nil || j.Status != "done" {
			t.Fatalf("job %s: %+v %v", id, j, err)
		}
	}
	if u := accountUsage(ctx, t, c); u.OperationsUsed != int64(len(ids)) {
		t.Errorf("usage %v, want %d operations: each job charged once", u, len(ids))
	}
}

// nodeRE finds a node's id in its start-up line.
var nodeRE = regexp.MustCompile(`serving on .*, node (\S+)$`)

// nodeID is the node id that s printed when it started.
func (s *testServer) nodeID(t *testing.T) string {
	t.Helper()
	s.out.mu.Lock()
	defer s.out.mu.Unlock()
	for _, l := range s.out.lines {
		if m := nodeRE.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	t.Fatal("the node printed no id")
	return ""
}

// TestClusterWorkerDeath: in a cluster, the jobs of a worker node killed
// with SIGKILL run again on another node within 15 s of its death, with
// no restart, and every job ends done, charged once.
func TestClusterWorkerDeath(t *testing.T) {
	// Serial: it bounds the time from a worker's death to its jobs' new
	// attempts on another node (15 s), which the load of tests run beside
	// it would stretch.
	if testing.Short() {
		t.Skip("cluster test in -short mode")
	}
	c := startCluster(t, 1, 2, "--workers", "2")
	key := c.key(t, "custom", "--rpm", "100000", "--in-flight", "100", "--ops", "100000")
	ctx := context.Background()
	db, err := pgx.Connect(ctx, c.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	api := c.apis[0].client(key)
	var ids []string
	for i := 0; i < 6; i++ {
		j, _, err := api.Process(ctx, "merge-pdf", bigMerge(t)[:9], client.ProcessOptions{Prefer: "respond-async"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.JobID)
	}

	// The jobs that worker 0 runs, once it runs any.
	victim := c.workers[0].nodeID(t)
	var lost []int64
	poll.Until(t, time.Minute, func() (bool, string) {
		rows, err := db.Query(ctx, `SELECT id FROM river_job WHERE kind = 'docmill.process' AND state = 'running' AND attempted_by[array_length(attempted_by, 1)] = $1`, victim)
		if err != nil {
			t.Fatal(err)
		}
		lost, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			t.Fatal(err)
		}
		return len(lost) > 0, "worker 0 ran no job"
	})
	c.workers[0].kill(t)
	killed := time.Now()
	for _, id := range lost {
		// The bound is counted from the kill; the figure is logged below.
		poll.UntilEvery(t, time.Until(killed.Add(15*time.Second)), 50*time.Millisecond, func() (bool, string) {
			var state string
			var attempt int
			if err := db.QueryRow(ctx, `SELECT state, attempt FROM river_job WHERE id = $1`, id).Scan(&state, &attempt); err != nil {
				t.Fatal(err)
			}
			return attempt >= 2 && state != "available", fmt.Sprintf("River job %d: %s, attempt %d, 15 s after its node died", id, state, attempt)
		})
	}
	t.Logf("%d jobs of the dead node running again %s after its death", len(lost), time.Since(killed).Round(10*time.Millisecond))

	allDoneChargedOnce(t, api, ids)
}
