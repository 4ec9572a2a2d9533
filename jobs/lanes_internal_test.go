package jobs

import "testing"

// TestOverShare: an account yields only at its share (half the lane's
// workers, at least one) and only while another account waits.
func TestOverShare(t *testing.T) {
	for _, c := range []struct {
		held, workers int
		others, want  bool
	}{
		{0, 1, true, false},
		{1, 1, true, true},
		{1, 1, false, false},
		{1, 4, true, false},
		{2, 4, true, true},
		{3, 4, false, false},
		{4, 8, true, true},
		{3, 8, true, false},
	} {
		if got := overShare(c.held, c.workers, c.others); got != c.want {
			t.Errorf("overShare(%d, %d, %v) = %v, want %v", c.held, c.workers, c.others, got, c.want)
		}
	}
}
