package ratelimit_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/ratelimit"
)

// clock is a fake clock, safe for concurrent use.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// step is one request: after advancing the clock by wait, key asks and
// gets want.
type step struct {
	wait time.Duration
	key  string
	want docmill.LimitResult
}

func allowed(remaining int, reset time.Duration) docmill.LimitResult {
	return docmill.LimitResult{Allowed: true, Remaining: remaining, ResetAfter: reset}
}

func refused(retry, reset time.Duration) docmill.LimitResult {
	return docmill.LimitResult{Allowed: false, RetryAfter: retry, ResetAfter: reset}
}

func TestMemoryAllow(t *testing.T) {
	const s = time.Second
	tests := []struct {
		name   string
		limit  int
		period time.Duration
		steps  []step
	}{
		{"burst, refusal, refill", 3, 3 * s, []step{
			{0, "a", allowed(2, 1*s)},
			{0, "a", allowed(1, 2*s)},
			{0, "a", allowed(0, 3*s)},
			{0, "a", refused(1*s, 3*s)},
			{s / 2, "a", refused(s/2, 5*s/2)},
			{s / 2, "a", allowed(0, 3*s)},
			{0, "a", refused(1*s, 3*s)},
			{3 * s, "a", allowed(2, 1*s)}, // back to full capacity
		}},
		{"partial refill", 10, time.Minute, []step{
			{0, "k", allowed(9, 6*s)},
			{0, "k", allowed(8, 12*s)},
			{0, "k", allowed(7, 18*s)},
			{0, "k", allowed(6, 24*s)},
			{0, "k", allowed(5, 30*s)},
			{0, "k", allowed(4, 36*s)},
			{0, "k", allowed(3, 42*s)},
			{0, "k", allowed(2, 48*s)},
			{0, "k", allowed(1, 54*s)},
			{0, "k", allowed(0, 60*s)},
			{0, "k", refused(6*s, 60*s)},
			{12 * s, "k", allowed(1, 54*s)},
			{0, "k", allowed(0, 60*s)},
			{0, "k", refused(6*s, 60*s)},
		}},
		{"independent keys", 1, s, []step{
			{0, "a", allowed(0, s)},
			{0, "a", refused(s, s)},
			{0, "b", allowed(0, s)},
			{0, "b", refused(s, s)},
			{s, "a", allowed(0, s)},
		}},
		{"refusals are not counted", 2, 2 * s, []step{
			{0, "a", allowed(1, s)},
			{0, "a", allowed(0, 2*s)},
			{0, "a", refused(s, 2*s)},
			{0, "a", refused(s, 2*s)},
			{0, "a", refused(s, 2*s)},
			{s, "a", allowed(0, 2*s)},
		}},
		{"idle time does not bank extra capacity", 2, 2 * s, []step{
			{0, "a", allowed(1, s)},
			{time.Hour, "a", allowed(1, s)},
			{0, "a", allowed(0, 2*s)},
			{0, "a", refused(s, 2*s)},
		}},
		{"interval rounds down so the burst fits", 3, s, []step{
			{0, "a", allowed(2, 333333333)},
			{0, "a", allowed(1, 666666666)},
			{0, "a", allowed(0, 999999999)},
			{0, "a", refused(333333332, 999999999)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClock()
			m := ratelimit.NewMemory(c.Now)
			for i, st := range tt.steps {
				c.Advance(st.wait)
				got, err := m.Allow(context.Background(), st.key, tt.limit, tt.period)
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				want := st.want
				want.Limit = tt.limit
				if got != want {
					t.Fatalf("step %d (%s after %v): got %+v, want %+v", i, st.key, st.wait, got, want)
				}
			}
		})
	}
}

func TestMemoryBadLimit(t *testing.T) {
	m := ratelimit.NewMemory(nil)
	for _, tt := range []struct {
		limit  int
		period time.Duration
	}{{0, time.Second}, {-1, time.Second}, {1, 0}, {1, -time.Second}} {
		if _, err := m.Allow(context.Background(), "k", tt.limit, tt.period); err == nil {
			t.Errorf("Allow(limit %d, period %v) succeeded, want error", tt.limit, tt.period)
		}
	}
}

func TestMemoryRealClock(t *testing.T) {
	m := ratelimit.NewMemory(nil)
	r, err := m.Allow(context.Background(), "k", 2, time.Hour)
	if err != nil || !r.Allowed || r.Remaining != 1 {
		t.Fatalf("got %+v, %v", r, err)
	}
}

func TestMemoryEvictsIdleKeys(t *testing.T) {
	c := newClock()
	m := ratelimit.NewMemory(c.Now)
	ctx := context.Background()
	for i := range 100 {
		if _, err := m.Allow(ctx, fmt.Sprint("idle-", i), 10, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Allow(ctx, "busy", 1, time.Hour); err != nil {
		t.Fatal(err)
	}
	if n := m.Len(); n != 101 {
		t.Fatalf("Len = %d, want 101", n)
	}
	// The idle keys are back to full capacity after 6s; the busy one only
	// after an hour. Sweeps run at most once a minute.
	c.Advance(2 * time.Minute)
	if _, err := m.Allow(ctx, "new", 10, time.Minute); err != nil {
		t.Fatal(err)
	}
	if n := m.Len(); n != 2 {
		t.Fatalf("Len after sweep = %d, want 2 (busy and new)", n)
	}
	r, err := m.Allow(ctx, "busy", 1, time.Hour)
	if err != nil || r.Allowed {
		t.Fatalf("busy key forgot its state: %+v, %v", r, err)
	}
}

func TestMemoryConcurrent(t *testing.T) {
	const (
		goroutines = 8
		perG       = 200
		limit      = 50
		keys       = 4
	)
	c := newClock()
	m := ratelimit.NewMemory(c.Now)
	var ok [keys]atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range perG {
				k := (g + i) % keys
				r, err := m.Allow(context.Background(), fmt.Sprint("key-", k), limit, time.Hour)
				if err != nil {
					t.Error(err)
					return
				}
				if r.Allowed {
					ok[k].Add(1)
				}
				if r.Remaining < 0 || r.Remaining >= limit {
					t.Errorf("remaining %d out of range", r.Remaining)
				}
			}
		})
	}
	wg.Wait()
	for k := range ok {
		if n := ok[k].Load(); n != limit {
			t.Errorf("key %d: %d requests allowed, want exactly %d", k, n, limit)
		}
	}
}
