package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/blob/s3test"
	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestReplicaSurvivesLostDisk: a server replicating to a bucket
// (versitygw) is killed with SIGKILL mid-work and its data directory
// deleted; `docmill restore --from` the bucket makes a new one, and a
// server started on it knows every key created more than 5 s before the
// kill, and the jobs finished by then. A new, empty data directory
// refuses to replicate over the bucket's replica, and the restored one
// replicates on.
func TestReplicaSurvivesLostDisk(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Parallel: its servers and commands are child processes, given the
	// bucket's credentials in their own environment.
	t.Parallel()
	s3 := s3test.Start(t)
	target := s3.URL("replica")
	dir := t.TempDir()
	s := startChildEnv(t, s3.Env(), dir, "--replicate-to", target)

	type made struct {
		key string
		at  time.Time
	}
	var keys []made
	first := newKey(t, dir, "pro")
	keys = append(keys, made{first, time.Now()})
	c := s.client(first)
	var jobIDs []string
	for range 3 {
		j, _, err := c.Process(context.Background(), "rotate-pdf",
			[]client.File{{Name: "a.pdf", Body: bytes.NewReader(toolstest.TextPDF("replicated"))}},
			client.ProcessOptions{Params: map[string]string{"angle": "90"}, Prefer: "wait=60"})
		if err != nil || j.Status != "done" {
			t.Fatalf("rotate: %v %+v", err, j)
		}
		jobIDs = append(jobIDs, j.JobID)
	}
	jobsDone := time.Now()
	// Keys keep coming, one every 50 ms, until the kill 6 s after the jobs
	// finished: the last of them are within the 5 s a kill may lose. The
	// ticker paces them (as a client would come) so that the test does
	// not take a core.
	pace := time.NewTicker(50 * time.Millisecond)
	for ; time.Since(jobsDone) < 6*time.Second; <-pace.C {
		keys = append(keys, made{newKey(t, dir, "free"), time.Now()})
	}
	pace.Stop()
	if st, detail := readyzReplica(t, s.URL); st != "ok" {
		t.Errorf("/readyz replica %s %v, want ok", st, detail)
	}
	if m := scrape(t, s.URL); m["docmill_replica_shipped_bytes_total"] <= 0 {
		t.Errorf("replica metrics %v", m)
	}
	killed := time.Now()
	s.kill(t)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}

	// A new data directory must not replicate over the bucket's replica.
	_, errOut, err := runChild(s3.Env(), "serve", "--data-dir", t.TempDir(), "--addr", "127.0.0.1:0", "--replicate-to", target)
	if err == nil || !strings.Contains(errOut, "docmill restore") {
		t.Fatalf("serve on an empty directory with a replica's target: %v %s, want a refusal naming docmill restore", err, errOut)
	}

	out, errOut, err := runChild(s3.Env(), "restore", "--data-dir", dir, "--from", target)
	if err != nil || !strings.Contains(out, "integrity ok") {
		t.Errorf("restore: %v, said %q %s", err, out, errOut)
	}
	s2 := startChildEnv(t, s3.Env(), dir, "--replicate-to", target)
	lost := 0
	for _, k := range keys {
		resp, _ := send(t, keyRequest(t, s2.URL+"/v1/account", k.key))
		switch {
		case resp.StatusCode == http.StatusOK:
		case killed.Sub(k.at) > 5*time.Second:
			t.Errorf("key made %v before the kill: %d after the restore", killed.Sub(k.at).Round(time.Millisecond), resp.StatusCode)
		default:
			lost++
		}
	}
	t.Logf("%d keys made, %d of the last 5 s before the kill lost", len(keys), lost)
	c2 := s2.client(first)
	for _, id := range jobIDs {
		j, err := c2.Job(context.Background(), id)
		if err != nil || j.Status != "done" {
			t.Errorf("job %s after the restore: %v %+v", id, err, j)
		}
	}
	// The restored database replicates on to the same target.
	poll.Until(t, time.Minute, func() (bool, string) {
		st, detail := readyzReplica(t, s2.URL)
		return st == "ok" && scrape(t, s2.URL)["docmill_replica_last_success_timestamp_seconds"] > 0, st + " " + detail
	})
}

// readyzReplica returns the replica's state in a server's /readyz and its
// detail; /readyz must answer 200 whatever the replica's state.
func readyzReplica(t testing.TB, base string) (string, string) {
	t.Helper()
	resp, body := send(t, keyRequest(t, base+"/readyz", ""))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/readyz %d %s", resp.StatusCode, body)
	}
	var r struct {
		Checks  map[string]string `json:"checks"`
		Replica json.RawMessage   `json:"replica"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	return r.Checks["replica"], string(r.Replica)
}

// keyRequest is a GET of u with key as its bearer token (none if empty).
func keyRequest(t testing.TB, u, key string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return req
}

// TestReplicaTargetDown: the bucket a server replicates to is cut off for
// 30 s while clients work; no request fails, /readyz stays 200 and says
// the replica is failing, /metrics shows the lag, and once the bucket is
// back the replica catches up.
func TestReplicaTargetDown(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Wait-bound (the 30 s outage); its bucket, proxy and server are its
	// own, and the credentials go to the child alone.
	t.Parallel()
	s3 := s3test.Start(t)
	u, err := url.Parse(s3.URL("replica"))
	if err != nil {
		t.Fatal(err)
	}
	endpoint, err := url.Parse(u.Query().Get("endpoint"))
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, endpoint.Host)
	q := u.Query()
	q.Set("endpoint", "http://"+p.addr)
	u.RawQuery = q.Encode()
	dir := t.TempDir()
	s := startChildEnv(t, s3Env(s3), dir, "--replicate-to", u.String())
	c := s.client(newKey(t, dir, "custom", "--rpm", "1000000", "--in-flight", "100", "--ops", "1000000000"))
	metric := func(name string) float64 { return scrape(t, s.URL)[name] }
	poll.Until(t, time.Minute, func() (bool, string) {
		return metric("docmill_replica_last_success_timestamp_seconds") > 0, "no shipment yet"
	})

	p.down()
	cut := time.Now()
	var maxLag float64
	failing := false
	n := 0
	// A request every 100 ms at most (the ticker paces them, as clients
	// would come, so that the test does not take a core for 30 s).
	pace := time.NewTicker(100 * time.Millisecond)
	defer pace.Stop()
	for ; time.Since(cut) < 30*time.Second; n++ {
		<-pace.C
		j, _, err := c.Process(context.Background(), "rotate-pdf",
			[]client.File{{Name: "a.pdf", Body: bytes.NewReader(toolstest.TextPDF("outage"))}},
			client.ProcessOptions{Params: map[string]string{"angle": "90"}, Prefer: "wait=60"})
		if err != nil || j.Status != "done" {
			t.Fatalf("request %d with the replica's target down: %v %+v", n, err, j)
		}
		maxLag = max(maxLag, metric("docmill_replica_lag_seconds"))
		if st, detail := readyzReplica(t, s.URL); st == "failing" {
			failing = true
		} else if st != "ok" && st != "lagging" {
			t.Fatalf("/readyz replica %q %s", st, detail)
		}
	}
	t.Logf("%d requests answered in the 30 s outage; largest lag %.1f s", n, maxLag)
	if !failing || maxLag < 5 {
		t.Errorf("30 s of outage: /readyz said failing %v, largest lag %.1f s; want failing and a lag of seconds", failing, maxLag)
	}
	p.up(t)
	poll.Until(t, time.Minute, func() (bool, string) {
		lag, fail := metric("docmill_replica_lag_seconds"), metric("docmill_replica_failing")
		return lag == 0 && fail == 0, fmt.Sprintf("lag %.1f s, failing %v", lag, fail)
	})
	t.Logf("caught up %v after the bucket came back", time.Since(cut.Add(30*time.Second)).Round(100*time.Millisecond))
	if st, detail := readyzReplica(t, s.URL); st != "ok" {
		t.Errorf("after the outage /readyz replica %s %s", st, detail)
	}
}
