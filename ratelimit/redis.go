package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	docmill "github.com/docmill/docmill"
)

// Redis is a GCRA limiter whose state lives in Redis, so that a limit holds
// across all the nodes of a deployment. It decides exactly as Memory does
// (the same gcra function builds every result); only where the TAT is kept
// and whose clock is read differ. It is safe for concurrent use.
//
// Each key is one Redis string holding its TAT, which expires when the TAT
// passes (an expired key behaves exactly like an unknown one, as in
// Memory). Time is Redis's own (the TIME command, inside the script), so
// the clocks of the API nodes do not matter.
type Redis struct {
	client redis.UniversalClient
	prefix string
}

var _ docmill.Limiter = (*Redis)(nil)

// NewRedis returns a limiter keeping its state in client under keys that
// start with prefix (e.g. "docmill:ratelimit:"), so that it can share a
// database with other data. The limiter owns client from then on: Close
// closes it.
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// Timeouts OpenRedis applies unless the URL sets its own (dial_timeout,
// read_timeout, write_timeout, pool_timeout, max_retries). go-redis's
// defaults (5 s timeouts, 3 retries, 5 dial attempts each) would hold a
// request for many seconds when Redis is down; a limiter is asked on every
// request, so it answers or fails within about a second and leaves the
// decision to the HTTP layer.
const (
	redisTimeout = time.Second
	// redisKeyPrefix is the prefix of the keys OpenRedis's limiter uses.
	redisKeyPrefix = "docmill:ratelimit:"
)

// OpenRedis connects to the Redis at url (redis://[user:password@]host:port/db
// or rediss:// for TLS, with go-redis's query options) and checks that it
// answers, so that a wrong URL stops the server at start rather than on the
// first request. Keys are prefixed with "docmill:ratelimit:".
//
// Unless the URL says otherwise, dialing, reading and writing each time out
// after 1 s and failed commands are not retried: a retried request could
// be counted twice, and a limiter that waits for Redis delays every API
// request.
func OpenRedis(ctx context.Context, url string) (*Redis, error) {
	r, err := DialRedis(url)
	if err != nil {
		return nil, err
	}
	if err := r.Ping(ctx); err != nil {
		_ = r.client.Close()
		return nil, err
	}
	return r, nil
}

// DialRedis is OpenRedis without the first Ping: the limiter connects on
// first use, so a node can start while Redis is down (Allow fails until it
// is back, and /readyz says so through Ping). Only a bad URL is an error.
func DialRedis(url string) (*Redis, error) {
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("ratelimit: redis: %w", err)
	}
	if opt.DialTimeout == 0 {
		opt.DialTimeout = redisTimeout
	}
	if opt.ReadTimeout == 0 {
		opt.ReadTimeout = redisTimeout
	}
	if opt.WriteTimeout == 0 {
		opt.WriteTimeout = redisTimeout
	}
	if opt.PoolTimeout == 0 {
		opt.PoolTimeout = redisTimeout
	}
	if opt.MaxRetries == 0 {
		opt.MaxRetries = -1 // -1 is go-redis's "no retries"; 0 means 3
	}
	// ParseURL has no option for dial attempts; go-redis makes 5 by default.
	opt.DialerRetries = 1
	// A caller's deadline (the request's) bounds Allow too.
	opt.ContextTimeoutEnabled = true

	return NewRedis(redis.NewClient(opt), redisKeyPrefix), nil
}

// Ping checks that Redis answers (for /readyz).
func (r *Redis) Ping(ctx context.Context) error {
	if err := r.client.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("ratelimit: redis: ping: %w", err)
	}
	return nil
}

// Close closes the Redis client.
func (r *Redis) Close() error {
	return r.client.Close()
}

// gcraScript is the atomic part of Allow: it reads a key's TAT, works out
// how far it is from now, and records the request if it is allowed. Go
// passes the period and emission interval (computed by interval, so that
// rounding is Memory's) and builds the result with gcra from the wait the
// script returns.
//
// The TAT is stored as "<unix seconds> <nanoseconds>": Lua numbers are
// doubles, exact only up to 2^53, far less than a Unix time in
// nanoseconds. Every quantity the script computes is a difference from now
// of at most about one period, so the arithmetic is exact for periods up
// to 2^53 ns (104 days) and off by a few nanoseconds beyond.
//
// KEYS[1]: the key. ARGV[1]: period in ns. ARGV[2]: emission interval in ns.
// Returns {allowed (1 or 0), wait in ns (the key's TAT minus now, before
// this request, never negative)}.
var gcraScript = redis.NewScript(`
local t = redis.call("TIME")
local now_s = tonumber(t[1])
local now_ns = tonumber(t[2]) * 1000
local period = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])

local wait = 0
local v = redis.call("GET", KEYS[1])
if v then
  local s, ns = string.match(v, "^(%d+) (%d+)$")
  if s then
    wait = math.max(0, (tonumber(s) - now_s) * 1e9 + (tonumber(ns) - now_ns))
  end
end

local after = wait + interval
if after > period then
  return {0, wait}
end

-- The new TAT is now + after, split into seconds and nanoseconds.
local s = math.floor(after / 1e9)
local ns = now_ns + (after - s * 1e9)
while ns < 0 do s = s - 1; ns = ns + 1e9 end
while ns >= 1e9 do s = s + 1; ns = ns - 1e9 end
-- The key expires once its TAT has passed (PX is rounded up).
redis.call("SET", KEYS[1], string.format("%d %d", now_s + s, ns),
  "PX", math.max(1, math.ceil(after / 1e6)))
return {1, wait}
`)

// Allow records one request of key against limit requests per period and
// reports whether it is allowed, exactly as Memory.Allow does. A refused
// request is not recorded. It returns an error, without deciding, when
// Redis cannot be reached in time; the caller chooses whether to let the
// request through.
func (r *Redis) Allow(ctx context.Context, key string, limit int, period time.Duration) (docmill.LimitResult, error) {
	if limit <= 0 || period <= 0 {
		return docmill.LimitResult{}, errBadLimit
	}
	vals, err := gcraScript.Run(ctx, r.client, []string{r.prefix + key},
		strconv.FormatInt(int64(period), 10),
		strconv.FormatInt(int64(interval(limit, period)), 10),
	).Int64Slice()
	if err != nil {
		return docmill.LimitResult{}, fmt.Errorf("ratelimit: redis: %w", err)
	}
	if len(vals) != 2 {
		return docmill.LimitResult{}, errors.New("ratelimit: redis: unexpected script reply")
	}
	wait := time.Duration(vals[1])
	res := gcra(wait, limit, period)
	// The script's decision is the one recorded. gcra reaches the same one
	// except where the script's doubles round (periods beyond 2^53 ns); then
	// the result follows the script, at the boundary between the two.
	if allowed := vals[0] == 1; res.Allowed != allowed {
		if allowed {
			res = docmill.LimitResult{Allowed: true, Limit: limit, ResetAfter: wait + interval(limit, period)}
		} else {
			res = docmill.LimitResult{Allowed: false, Limit: limit, RetryAfter: 1, ResetAfter: wait}
		}
	}
	return res, nil
}
