package jobs

import (
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// TestOverShare: an account yields only at its share (half the lane's
// workers, at least one) and only while another account waits.
func TestOverShare(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		held, workers      int
		last, others, want bool
	}{
		{0, 1, false, true, false},
		{0, 1, true, true, true}, // one worker: turns alternate
		{0, 1, true, false, false},
		{1, 1, false, true, true},
		{1, 1, false, false, false},
		{1, 4, true, true, false},
		{2, 4, false, true, true},
		{3, 4, false, false, false},
		{4, 8, false, true, true},
		{3, 8, true, true, false},
	} {
		if got := overShare(c.held, c.workers, c.last, c.others); got != c.want {
			t.Errorf("overShare(%d, %d, %v, %v) = %v, want %v", c.held, c.workers, c.last, c.others, got, c.want)
		}
	}
}

// TestLaneSharesTake: jobs of one account starting at once (one River
// fetch) each see the others: every take counts, and no two see the same
// count, so only the first may pass the share unchecked. A drop gives
// the count back.
func TestLaneSharesTake(t *testing.T) {
	t.Parallel()
	s := newLaneShares()
	const n = 32
	seen := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { seen[i], _ = s.take(docmill.LaneBrowser, "acct_a") })
	}
	wg.Wait()
	sort.Ints(seen)
	for i, held := range seen {
		if held != i {
			t.Fatalf("counts seen %v, want 0 to %d once each", seen, n-1)
		}
	}
	for range n {
		s.drop(docmill.LaneBrowser, "acct_a")
	}
	if held, _ := s.take(docmill.LaneBrowser, "acct_a"); held != 0 || s.running(docmill.LaneBrowser) != 1 {
		t.Fatalf("after the drops: held %d, running %d; want 0, 1", held, s.running(docmill.LaneBrowser))
	}
}

// TestLaneSharesYielded: a job put back here counts as waiting for
// another account's jobs of its lane until its snooze ends, or until a
// job of its account starts here; never for its own account's jobs nor in
// another lane.
func TestLaneSharesYielded(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newLaneShares()
	s.yield(docmill.LaneBrowser, "acct_a", t0.Add(time.Second))
	for _, c := range []struct {
		lane    docmill.Lane
		account string
		at      time.Duration
		want    bool
	}{
		{docmill.LaneBrowser, "acct_b", 0, true},
		{docmill.LaneBrowser, "acct_b", 999 * time.Millisecond, true},
		{docmill.LaneBrowser, "acct_a", 0, false},
		{docmill.LanePDF, "acct_b", 0, false},
	} {
		if got := s.othersYielded(c.lane, c.account, t0.Add(c.at)); got != c.want {
			t.Errorf("othersYielded(%s, %s, +%v) = %v, want %v", c.lane, c.account, c.at, got, c.want)
		}
	}
	if s.othersYielded(docmill.LaneBrowser, "acct_b", t0.Add(time.Second)) || len(s.yielded[docmill.LaneBrowser]) != 0 {
		t.Errorf("at its snooze's end the record stays: %v", s.yielded)
	}
	s.yield(docmill.LaneBrowser, "acct_a", t0.Add(time.Second))
	s.started(docmill.LaneBrowser, "acct_a")
	if s.othersYielded(docmill.LaneBrowser, "acct_b", t0) {
		t.Error("acct_a's job started, yet acct_a still counts as waiting")
	}
}
