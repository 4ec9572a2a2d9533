// Package poll waits in tests for an event that announces itself only in
// state that can be read: a row, a file, a counter.
package poll

import (
	"context"
	"testing"
	"time"
)

// Until polls done every 10 ms until it reports true, and fails t with
// what done last said (its second result) once within has passed: a
// generous guard, not an oracle; the event waited for is done's.
func Until(t testing.TB, within time.Duration, done func() (bool, string)) {
	t.Helper()
	UntilEvery(t, within, 10*time.Millisecond, done)
}

// UntilEvery is Until polling every interval, for a done that costs
// something each time it asks (a request that a rate limit counts).
func UntilEvery(t testing.TB, within, interval time.Duration, done func() (bool, string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), within)
	defer cancel()
	var state string
	if !Sample(ctx, interval, func() bool {
		var ok bool
		ok, state = done()
		return ok
	}) {
		t.Fatalf("not within %v: %s", within, state)
	}
}

// Sample calls f at once and then every interval until f reports true or
// ctx ends, and says whether f reported true. It is the loop of a watch
// that samples state (processes, free space) while something else
// happens: the sampling orders nothing, and a watch that must see the end
// of its window lets ctx end it (f reporting false).
func Sample(ctx context.Context, interval time.Duration, f func() bool) bool {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if f() {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}
