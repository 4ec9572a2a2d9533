package jobs

import "testing"

// TestOverShare: an account yields only at its share (half the lane's
// workers, at least one) and only while another account waits.
func TestOverShare(t *testing.T) {
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
