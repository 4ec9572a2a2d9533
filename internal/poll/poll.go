// Package poll waits in tests for an event that announces itself only in
// state that can be read: a row, a file, a counter.
package poll

import (
	"testing"
	"time"
)

// Until polls done every 10 ms until it reports true, and fails t with
// what done last said (its second result) once within has passed: a
// generous guard, not an oracle; the event waited for is done's.
func Until(t testing.TB, within time.Duration, done func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		ok, state := done()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, state)
		}
		time.Sleep(10 * time.Millisecond) // polling with a deadline, not ordering
	}
}
