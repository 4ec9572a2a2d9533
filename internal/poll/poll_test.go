package poll_test

import (
	"context"
	"testing"
	"time"

	"github.com/docmill/docmill/internal/poll"
)

// TestSample: Sample calls f until it reports true, and says so; with f
// never true, it returns false once ctx ends, having called f meanwhile.
func TestSample(t *testing.T) {
	calls := 0
	if !poll.Sample(context.Background(), time.Millisecond, func() bool { calls++; return calls == 3 }) || calls != 3 {
		t.Errorf("Sample stopped after %d calls, want true after 3", calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	calls = 0
	if poll.Sample(ctx, time.Millisecond, func() bool {
		calls++
		if calls == 5 {
			cancel()
		}
		return false
	}) {
		t.Error("Sample of an f never true reported true")
	}
	if calls < 5 {
		t.Errorf("Sample returned after %d calls, before ctx ended", calls)
	}
}

// TestUntilEvery: UntilEvery returns once done reports true.
func TestUntilEvery(t *testing.T) {
	calls := 0
	poll.UntilEvery(t, time.Minute, time.Millisecond, func() (bool, string) {
		calls++
		return calls == 3, "not yet"
	})
	if calls != 3 {
		t.Errorf("done called %d times, want 3", calls)
	}
}
