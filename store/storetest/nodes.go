package storetest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
)

// nodeTests are the tests of docmill.Nodes.
var nodeTests = []test{
	{"Nodes", testNodes},
	{"ConcurrentClaims", testConcurrentClaims},
}

func testNodes(t *testing.T, s docmill.Store) {
	ctx := t.Context()
	beat := func(id string, at time.Time) {
		t.Helper()
		if err := s.Heartbeat(ctx, id, at); err != nil {
			t.Fatalf("Heartbeat(%s): %v", id, err)
		}
	}
	beat("a", t0.Add(-time.Minute))
	beat("b", t0.Add(-time.Minute))
	beat("b", t0) // b is alive again
	beat("c", t0.Add(-2*time.Minute))
	beat("d", t0.Add(-time.Hour))
	if err := s.ForgetNode(ctx, "d"); err != nil {
		t.Fatalf("ForgetNode: %v", err)
	}

	got, err := s.ClaimDeadNodes(ctx, t0.Add(-time.Second))
	slices.Sort(got)
	if err != nil || !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("ClaimDeadNodes = %v, %v; want [a c]", got, err)
	}
	if got, err := s.ClaimDeadNodes(ctx, t0.Add(-time.Second)); err != nil || len(got) != 0 {
		t.Errorf("second ClaimDeadNodes = %v, %v; want none: a dead node is claimed once", got, err)
	}
	if got, err := s.ClaimDeadNodes(ctx, t0.Add(time.Second)); err != nil || !slices.Equal(got, []string{"b"}) {
		t.Errorf("ClaimDeadNodes after b's last beat = %v, %v; want [b]", got, err)
	}
}

// testConcurrentClaims checks that nodes claiming at once each get a
// different share of the dead nodes, and together all of them.
func testConcurrentClaims(t *testing.T, s docmill.Store) {
	const dead = 20
	for i := range dead {
		if err := s.Heartbeat(t.Context(), string(rune('A'+i)), t0.Add(-time.Hour)); err != nil {
			t.Fatalf("Heartbeat: %v", err)
		}
	}
	var mu sync.Mutex
	var all []string
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			got, err := s.ClaimDeadNodes(t.Context(), t0)
			if err != nil {
				t.Errorf("ClaimDeadNodes: %v", err)
			}
			mu.Lock()
			all = append(all, got...)
			mu.Unlock()
		})
	}
	wg.Wait()
	slices.Sort(all)
	if len(all) != dead || len(slices.Compact(slices.Clone(all))) != dead {
		t.Errorf("claimed %d nodes (%v), want each of %d once", len(all), all, dead)
	}
}
