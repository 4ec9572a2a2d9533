package toolstest

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
)

// cancelAfter is when the cancel check cancels a run's context.
const cancelAfter = 100 * time.Millisecond

// cancelDeadline is how long after its cancellation a run may take to
// return: generous, a deadline and not a measure (a loaded machine takes
// seconds to stop a tree of engine processes); what the check proves is
// that the run ended canceled, mid-run, on an input that outlasts the
// cancellation. TestCancelStopsTheWork shows the engines' processes gone.
const cancelDeadline = 15 * time.Second

// cancelTally counts, over a suite's tools, which were canceled mid-run
// by the cancel check and which finished before the cancellation (for
// which the check proved nothing), for the suite's report.
type cancelTally struct {
	mu          sync.Mutex
	mid, before []string
}

func (c *cancelTally) record(slug string, canceledMidRun bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if canceledMidRun {
		c.mid = append(c.mid, slug)
	} else {
		c.before = append(c.before, slug)
	}
}

// report says how many tools the cancel check canceled mid-run, and
// names those that finished first.
func (c *cancelTally) report() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	slices.Sort(c.before)
	return fmt.Sprintf("cancel check: %d tool(s) canceled mid-run, %d finished before the cancellation at %v (not proven cancelable): %s",
		len(c.mid), len(c.before), cancelAfter, strings.Join(c.before, ", "))
}

// checkCancel cancels a run's context cancelAfter its start and wants it
// to fail within cancelDeadline of the cancellation. A run that finishes
// first proves nothing: it is counted (cancelTally), and for a tool
// Suite.Slow gives a slow input for, the run is on that input and
// finishing first fails the check.
func (s *Suite) checkCancel(t testing.TB, tool *docmill.Tool, smp sample) {
	files := s.files(t, tool, smp)
	slow := ""
	if s.Slow != nil {
		if p, ct := s.Slow(testOf(t), tool); p != "" {
			files[0], slow = sample{p, ct}, p
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	canceled := make(chan time.Time, 1)
	timer := time.AfterFunc(cancelAfter, func() { canceled <- time.Now(); cancel() })
	r := s.run(t, ctx, tool, s.baseParams(t, tool), files)
	mid := !timer.Stop()
	if s.cancels != nil {
		s.cancels.record(tool.Slug, mid)
	}
	if !mid {
		if slow != "" {
			t.Errorf("finished before its cancellation at %v even on the slow input %s (err %v): give it a slower one", cancelAfter, slow, r.err)
		}
		return
	}
	late := r.ended.Sub(<-canceled)
	switch {
	case r.err == nil && slow != "":
		// On its slow input the run outlasts the cancellation by far;
		// elsewhere it may have finished just as it came.
		t.Errorf("succeeded %v after its context was canceled on the slow input: a canceled run must fail", late.Round(time.Millisecond))
	case late > cancelDeadline:
		t.Errorf("returned %v after its context was canceled (err %v), want within %v", late.Round(time.Millisecond), r.err, cancelDeadline)
	}
}

// runKnown runs a check listed in Suite.Known with a recorder in place of
// t: while it still fails, the test is skipped with the reason and the
// first failure; once it passes, the test fails, so that the entry is
// removed and the check guards the tool again.
func runKnown(t *testing.T, why string, check func(t testing.TB)) {
	t.Helper()
	r := &knownRecorder{TB: t, t: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	switch {
	case r.failure != "":
		t.Skipf("known failure (%s), still failing: %s", why, r.failure)
	case r.skipped != "":
		t.Skip(r.skipped)
	default:
		t.Errorf("listed as a known failure (%s), but it passes now: remove it from Suite.Known", why)
	}
}

// knownRecorder stands in for a test while a known failure is re-checked:
// it records the first failure instead of failing the test, and ends the
// check's goroutine on Fatal and Skip as the testing package does.
type knownRecorder struct {
	testing.TB
	t                *testing.T
	failure, skipped string
}

func (r *knownRecorder) Helper() {}
func (r *knownRecorder) fail(msg string) {
	if r.failure == "" {
		r.failure = msg
	}
}
func (r *knownRecorder) Fail()                     { r.fail("failed") }
func (r *knownRecorder) Failed() bool              { return r.failure != "" }
func (r *knownRecorder) Error(args ...any)         { r.fail(fmt.Sprint(args...)) }
func (r *knownRecorder) Errorf(f string, a ...any) { r.fail(fmt.Sprintf(f, a...)) }
func (r *knownRecorder) FailNow()                  { r.Fail(); runtime.Goexit() }
func (r *knownRecorder) Fatal(args ...any)         { r.Error(args...); runtime.Goexit() }
func (r *knownRecorder) Fatalf(f string, a ...any) { r.Errorf(f, a...); runtime.Goexit() }
func (r *knownRecorder) SkipNow()                  { r.Skip("skipped") }
func (r *knownRecorder) Skip(args ...any)          { r.skipped = fmt.Sprint(args...); runtime.Goexit() }
func (r *knownRecorder) Skipf(f string, a ...any)  { r.Skip(fmt.Sprintf(f, a...)) }
func (r *knownRecorder) Skipped() bool             { return r.skipped != "" }

// testOf returns the *testing.T behind t, for the Suite's functions that
// take one (Sample, Companions, Slow): a failure there is the suite's
// own, never a known failure of the tool.
func testOf(t testing.TB) *testing.T {
	switch t := t.(type) {
	case *testing.T:
		return t
	case *knownRecorder:
		return t.t
	}
	panic(fmt.Sprintf("toolstest: a check ran with a %T", t))
}
