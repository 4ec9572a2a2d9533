package jobs

import (
	"sort"
	"sync"
	"testing"

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
