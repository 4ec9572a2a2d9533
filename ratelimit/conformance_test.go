package ratelimit_test

import (
	"context"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/ratelimit"
)

// testLimiter is the conformance suite every docmill.Limiter passes. It
// runs on the real clock (Redis reads its own), so each case measures how
// long it took and allows for it: with a limit of n per period, a result
// taken elapsed after the start of a burst may show up to elapsed less
// than the ideal wait, never more. Burst cases use long periods so that
// no refill can happen while they run; the refill case uses a short one
// and only checks the direction of time. keys must return a key no other
// test or run uses.
func testLimiter(t *testing.T, l docmill.Limiter, keys func(string) string) {
	ctx := context.Background()
	allow := func(t *testing.T, key string, limit int, period time.Duration) docmill.LimitResult {
		t.Helper()
		r, err := l.Allow(ctx, key, limit, period)
		if err != nil {
			t.Fatalf("Allow(%q, %d, %v): %v", key, limit, period, err)
		}
		if r.Limit != limit {
			t.Fatalf("Limit = %d, want %d", r.Limit, limit)
		}
		if r.Remaining < 0 || r.Remaining >= limit {
			t.Fatalf("Remaining = %d, out of [0, %d)", r.Remaining, limit)
		}
		if r.Allowed && r.RetryAfter != 0 {
			t.Fatalf("allowed with RetryAfter %v, want 0", r.RetryAfter)
		}
		if !r.Allowed && (r.RetryAfter <= 0 || r.Remaining != 0) {
			t.Fatalf("refused with RetryAfter %v and Remaining %d, want > 0 and 0", r.RetryAfter, r.Remaining)
		}
		return r
	}
	// within fails unless got is in [want-slack, want].
	within := func(t *testing.T, what string, got, want, slack time.Duration) {
		t.Helper()
		if got > want || got < want-slack {
			t.Fatalf("%s = %v, want %v (minus at most %v)", what, got, want, slack)
		}
	}

	t.Run("burst then refusal", func(t *testing.T) {
		const limit, period = 5, time.Hour
		const iv = period / limit
		key := keys("burst")
		start := time.Now()
		for i := range limit {
			r := allow(t, key, limit, period)
			if !r.Allowed || r.Remaining != limit-1-i {
				t.Fatalf("request %d: got %+v, want allowed with %d remaining", i, r, limit-1-i)
			}
			within(t, "ResetAfter", r.ResetAfter, time.Duration(i+1)*iv, time.Since(start))
		}
		for range 3 {
			r := allow(t, key, limit, period)
			if r.Allowed {
				t.Fatalf("request beyond the burst allowed: %+v", r)
			}
			within(t, "RetryAfter", r.RetryAfter, iv, time.Since(start))
			within(t, "ResetAfter", r.ResetAfter, period, time.Since(start))
		}
	})

	t.Run("refused requests are not recorded", func(t *testing.T) {
		const limit, period = 2, time.Hour
		key := keys("refused")
		start := time.Now()
		allow(t, key, limit, period)
		allow(t, key, limit, period)
		for range 20 {
			// Were refusals counted, each would push RetryAfter back by
			// another half hour.
			r := allow(t, key, limit, period)
			if r.Allowed {
				t.Fatalf("allowed beyond the limit: %+v", r)
			}
			within(t, "RetryAfter", r.RetryAfter, period/limit, time.Since(start))
			within(t, "ResetAfter", r.ResetAfter, period, time.Since(start))
		}
	})

	t.Run("keys are independent", func(t *testing.T) {
		a, b := keys("a"), keys("b")
		if r := allow(t, a, 1, time.Hour); !r.Allowed {
			t.Fatalf("first request of a refused: %+v", r)
		}
		if r := allow(t, a, 1, time.Hour); r.Allowed {
			t.Fatalf("second request of a allowed: %+v", r)
		}
		if r := allow(t, b, 1, time.Hour); !r.Allowed {
			t.Fatalf("b refused because of a: %+v", r)
		}
	})

	t.Run("the burst fits when period/limit is not whole", func(t *testing.T) {
		const limit, period = 3, time.Hour + 1
		key := keys("rounding")
		for i := range limit {
			if r := allow(t, key, limit, period); !r.Allowed {
				t.Fatalf("request %d of the burst refused: %+v", i, r)
			}
		}
		if r := allow(t, key, limit, period); r.Allowed {
			t.Fatalf("request beyond the burst allowed: %+v", r)
		}
	})

	t.Run("refill", func(t *testing.T) {
		const limit, period = 2, 300 * time.Millisecond
		key := keys("refill")
		// Ask until refused: on a slow machine a token may come back
		// between two requests, which only means asking once more, so
		// no machine is too slow (20 requests over 150 ms each would be).
		var r docmill.LimitResult
		for i := 0; ; i++ {
			if r = allow(t, key, limit, period); !r.Allowed {
				break
			}
			if i == 20 {
				t.Fatalf("never refused in %d requests of a limit of %d per %v", i+1, limit, period)
			}
		}
		if r.RetryAfter > period/limit {
			t.Fatalf("RetryAfter = %v, want at most %v", r.RetryAfter, period/limit)
		}
		// Waiting RetryAfter is enough (a little more absorbs the rounding
		// of Redis's microsecond clock).
		time.Sleep(r.RetryAfter + 5*time.Millisecond) // not ordering: a lower bound
		if r := allow(t, key, limit, period); !r.Allowed {
			t.Fatalf("refused after waiting RetryAfter: %+v", r)
		}
		// After a whole period the key is back to full capacity, and idle
		// time banks nothing beyond it.
		time.Sleep(period + 5*time.Millisecond) // not ordering: a lower bound
		r = allow(t, key, limit, period)
		if !r.Allowed || r.Remaining != limit-1 {
			t.Fatalf("after a period: got %+v, want allowed with %d remaining", r, limit-1)
		}
		if r.ResetAfter != period/limit {
			t.Fatalf("after a period: ResetAfter = %v, want %v", r.ResetAfter, period/limit)
		}
	})

	t.Run("bad limit or period", func(t *testing.T) {
		for _, tt := range []struct {
			limit  int
			period time.Duration
		}{{0, time.Second}, {-1, time.Second}, {1, 0}, {1, -time.Second}} {
			if _, err := l.Allow(ctx, keys("bad"), tt.limit, tt.period); err == nil {
				t.Errorf("Allow(limit %d, period %v) succeeded, want error", tt.limit, tt.period)
			}
		}
	})
}

func TestMemoryConformance(t *testing.T) {
	testLimiter(t, ratelimit.NewMemory(nil), func(k string) string { return k })
}
