// Package ratelimit provides the rate limiters of docmill.Limiter: Memory,
// in-process, for single-node deployments, and Redis, shared by all the
// nodes of a deployment.
//
// Limiters use GCRA (the generic cell rate algorithm): for a limit of n
// requests per period, a key may make n requests at once and then one more
// every period/n. A key's whole state is one instant, its theoretical
// arrival time (TAT): the time at which the key would be back to full
// capacity.
package ratelimit

import (
	"context"
	"errors"
	"sync"
	"time"

	docmill "github.com/docmill/docmill"
)

// sweepInterval is how often Allow drops the state of keys that are back
// to full capacity. A key whose TAT has passed behaves exactly like an
// unknown key, so dropping it loses nothing; memory then holds only keys
// used within their period.
const sweepInterval = time.Minute

// Memory is an in-process GCRA limiter. It is safe for concurrent use.
type Memory struct {
	now func() time.Time

	mu        sync.Mutex
	tat       map[string]time.Time
	lastSweep time.Time
}

var _ docmill.Limiter = (*Memory)(nil)

// NewMemory returns an empty in-process limiter reading time from now
// (time.Now when nil).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, tat: make(map[string]time.Time)}
}

// errBadLimit reports a limit or period that is not positive.
var errBadLimit = errors.New("ratelimit: limit and period must be positive")

// Allow records one request of key against limit requests per period and
// reports whether it is allowed. A refused request is not recorded, so it
// does not push back the key's next allowed request.
func (m *Memory) Allow(_ context.Context, key string, limit int, period time.Duration) (docmill.LimitResult, error) {
	if limit <= 0 || period <= 0 {
		return docmill.LimitResult{}, errBadLimit
	}
	m.mu.Lock()
	defer m.mu.Unlock()

	now := m.now()
	m.sweep(now)
	var wait time.Duration
	if tat, ok := m.tat[key]; ok && tat.After(now) {
		wait = tat.Sub(now)
	}
	res := gcra(wait, limit, period)
	if res.Allowed {
		// An allowed request's ResetAfter is its new TAT minus now.
		m.tat[key] = now.Add(res.ResetAfter)
	}
	return res, nil
}

// interval is GCRA's emission interval for limit requests per period. It
// is rounded down, so that limit intervals never exceed period and a full
// burst of limit requests always fits.
func interval(limit int, period time.Duration) time.Duration {
	return max(period/time.Duration(limit), 1)
}

// gcra decides one request of a key that is wait away from full capacity
// (its TAT minus now; zero for an unknown key or one whose TAT has passed).
// If the request is allowed, the key's new TAT is now plus the result's
// ResetAfter; if refused, the key's state must stay as it is. Memory and
// Redis both decide through it, which is what keeps their results alike.
func gcra(wait time.Duration, limit int, period time.Duration) docmill.LimitResult {
	iv := interval(limit, period)
	after := wait + iv // the new TAT, relative to now
	// A request is allowed while the new TAT stays within one period of
	// now, which is what lets a fresh key burst up to limit requests.
	if after > period {
		return docmill.LimitResult{
			Allowed:    false,
			Limit:      limit,
			Remaining:  0,
			RetryAfter: after - period,
			ResetAfter: wait,
		}
	}
	remaining := int((period - after) / iv)
	return docmill.LimitResult{
		Allowed:    true,
		Limit:      limit,
		Remaining:  max(0, min(remaining, limit-1)),
		ResetAfter: after,
	}
}

// sweep drops keys whose TAT has passed, at most once per sweepInterval.
// The caller holds m.mu.
func (m *Memory) sweep(now time.Time) {
	if now.Sub(m.lastSweep) < sweepInterval {
		return
	}
	m.lastSweep = now
	for k, tat := range m.tat {
		if !tat.After(now) {
			delete(m.tat, k)
		}
	}
}

// Len returns how many keys the limiter holds state for.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.tat)
}
