package replica_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/docmill/docmill/replica"
	"github.com/docmill/docmill/tools/toolstest"
)

// The test binary run with childEnv set to a database path is a writer
// that replicates it to the URL in childTargetEnv (runChild).
const (
	childEnv       = "REPLICA_TEST_CHILD_DB"
	childTargetEnv = "REPLICA_TEST_CHILD_TARGET"
)

// runChild replicates the database with the default Options, as the
// server does, and commits a row every 10 ms, printing "id unixnano" once
// each has committed, until it is killed.
func runChild() int {
	path, target := os.Getenv(childEnv), os.Getenv(childTargetEnv)
	db, err := openAppDB(path) // before the replicator, as startReplicator says
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	r, err := replica.New(path, target, replica.Options{})
	if err == nil {
		err = r.Start(context.Background())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tick := time.NewTicker(10 * time.Millisecond)
	for range tick.C {
		id, err := insert(db)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("%d %d\n", id, time.Now().UnixNano())
	}
	return 0
}

type commit struct {
	id int64
	at time.Time
}

// killResult is what a kill -9 lost: lost is the age, at the kill, of the
// oldest commit the restore lacks (zero if none).
type killResult struct {
	lost, restore time.Duration
	commits       int
}

// killAndRestore runs a writer child replicating to target for writeFor
// and a random part of a second (so that the kill falls anywhere between
// two shipments), kills it with SIGKILL (no final flush), restores the
// target into a new file and checks that every commit older than 5 s at
// the kill is there.
func killAndRestore(t testing.TB, target string, writeFor time.Duration) killResult {
	t.Helper()
	writeFor += rand.N(time.Second)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+filepath.Join(t.TempDir(), "docmill.db"), childTargetEnv+"="+target)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var commits []commit
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var c commit
		var ns int64
		if _, err := fmt.Sscan(sc.Text(), &c.id, &ns); err != nil {
			t.Fatalf("child printed %q: %v", sc.Text(), err)
		}
		c.at = time.Unix(0, ns)
		commits = append(commits, c)
		if c.at.Sub(commits[0].at) >= writeFor {
			break
		}
	}
	_ = cmd.Process.Kill()
	killedAt := time.Now()
	_, _ = io.Copy(io.Discard, stdout)
	_ = cmd.Wait()
	if len(commits) == 0 || commits[len(commits)-1].at.Sub(commits[0].at) < writeFor {
		t.Fatalf("the child stopped after %d commits; its errors:\n%s", len(commits), stderr.String())
	}

	begun := time.Now()
	restored := restoredIDs(t, target, time.Time{})
	res := killResult{restore: time.Since(begun), commits: len(commits)}
	have := make(map[int64]bool, len(restored))
	for _, id := range restored {
		have[id] = true
	}
	for _, c := range commits {
		age := killedAt.Sub(c.at)
		if !have[c.id] && res.lost == 0 {
			res.lost = age
		}
		if !have[c.id] && age > 5*time.Second {
			t.Errorf("row %d, committed %v before the kill, is not in the restore", c.id, age.Round(time.Millisecond))
		}
	}
	return res
}

func TestKillLosesOnlyTheLastSeconds(t *testing.T) {
	srv := startBucketServer(t)
	res := killAndRestore(t, s3URL(srv.Endpoint, "kill"), 8*time.Second)
	t.Logf("%d commits; after kill -9, lost the last %v; restore took %v", res.commits, res.lost.Round(time.Millisecond), res.restore.Round(time.Millisecond))
}

// BenchmarkRecoveryPoint measures the writes a kill -9 loses with the
// default Options and a bucket target: s-lost-max is the worst, over the
// runs, of the age at the kill of the oldest commit the restore lacks;
// s-restore is the slowest restore.
func BenchmarkRecoveryPoint(b *testing.B) {
	srv := startBucketServer(b)
	writeFor := toolstest.BenchSize(8*time.Second, 2*time.Second)
	var worst, slowest time.Duration
	for i := 0; b.Loop(); i++ {
		res := killAndRestore(b, s3URL(srv.Endpoint, fmt.Sprintf("run%d", i)), writeFor)
		worst, slowest = max(worst, res.lost), max(slowest, res.restore)
	}
	b.ReportMetric(worst.Seconds(), "s-lost-max")
	b.ReportMetric(slowest.Seconds(), "s-restore")
}

// TestRestoreThenReplicateAgain is the drill after a lost disk: kill -9,
// restore into a new directory, replicate the restored file to the same
// target and write on: a second restore has the rows of both lives.
func TestRestoreThenReplicateAgain(t *testing.T) {
	target := s3URL(startBucketServer(t).Endpoint, "drill")
	killAndRestore(t, target, 2*time.Second)
	before := restoredIDs(t, target, time.Time{})

	path := filepath.Join(t.TempDir(), "docmill.db")
	if err := replica.Restore(context.Background(), target, path, time.Time{}); err != nil {
		t.Fatal(err)
	}
	r := startReplicator(t, path, target, replica.Options{SyncInterval: 200 * time.Millisecond})
	db := openApp(t, path)
	after := insertN(t, db, 100)
	waitShipped(t, r, time.Now(), 20*time.Second)
	got := restoredIDs(t, target, time.Time{})
	if want := append(before, after...); !slices.Equal(got, want) {
		t.Errorf("after the second life the restore has %d rows (%v...), want %d", len(got), head(got), len(want))
	}
}
