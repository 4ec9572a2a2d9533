package ratelimit_test

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/docmill/docmill/internal/testserver"
	"github.com/docmill/docmill/ratelimit"
	"github.com/docmill/docmill/tools/toolstest"
)

// redisURL is the Redis the tests use: DOCMILL_REDIS_URL or the local one
// that go-svc machines and CI run.
func redisURL() string {
	if u := os.Getenv("DOCMILL_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// openRedis opens a limiter on the test Redis, closed at the end of the
// test. Without Redis the test is skipped, loudly, except in CI (env CI
// set), where a missing Redis is a failure.
func openRedis(t *testing.T) *ratelimit.Redis {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, err := ratelimit.OpenRedis(ctx, redisURL())
	if err != nil {
		toolstest.NeedService(t, "Redis at "+redisURL()+" (start one or set DOCMILL_REDIS_URL)", err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// newClient returns a go-redis client of the test Redis, as a second API
// node would have, closed at the end of the test.
func newClient(t *testing.T) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// uniquePrefix returns a key prefix no other test, run (go test -count)
// or machine sharing a CI Redis uses, so that runs cannot collide.
func uniquePrefix() string {
	return "docmill-test:ratelimit:" + rand.Text() + ":"
}

func TestRedisConformance(t *testing.T) {
	r := openRedis(t)
	// OpenRedis's limiter adds its own prefix before this one.
	prefix := uniquePrefix()
	testLimiter(t, r, func(k string) string { return prefix + k })
}

// TestRedisTwoNodes is two API nodes, each with its own connection pool,
// sharing one key: the limit holds across them exactly.
func TestRedisTwoNodes(t *testing.T) {
	openRedis(t) // skips without Redis
	const (
		limit      = 40
		goroutines = 16 // per node
		perG       = 20
	)
	prefix := uniquePrefix()
	nodes := []*ratelimit.Redis{
		ratelimit.NewRedis(newClient(t), prefix),
		ratelimit.NewRedis(newClient(t), prefix),
	}
	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	for _, n := range nodes {
		for range goroutines {
			wg.Go(func() {
				for range perG {
					r, err := n.Allow(context.Background(), "shared", limit, time.Hour)
					if err != nil {
						t.Error(err)
						return
					}
					if r.Allowed {
						ok.Add(1)
					} else {
						refused.Add(1)
					}
				}
			})
		}
	}
	wg.Wait()
	if got := ok.Load(); got != limit {
		t.Errorf("%d requests allowed across two nodes, want exactly %d", got, limit)
	}
	if got, want := ok.Load()+refused.Load(), int64(len(nodes)*goroutines*perG); got != want {
		t.Errorf("%d requests answered, want %d", got, want)
	}
}

// TestRedisKeyExpires checks that Redis drops a key once its TAT has
// passed, as Memory's sweep does, so idle keys cost no memory.
func TestRedisKeyExpires(t *testing.T) {
	openRedis(t)
	c := newClient(t)
	prefix := uniquePrefix()
	r := ratelimit.NewRedis(c, prefix)
	ctx := context.Background()
	if _, err := r.Allow(ctx, "k", 2, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	ttl, err := c.PTTL(ctx, prefix+"k").Result()
	if err != nil {
		t.Fatal(err)
	}
	// One request of 2 per 10s puts the TAT 5s ahead.
	if ttl <= 4*time.Second || ttl > 5*time.Second {
		t.Fatalf("key TTL = %v, want about 5s", ttl)
	}
	// Use up the burst; then a refusal must leave the key as it is.
	if _, err := r.Allow(ctx, "k", 2, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	before, _ := c.Get(ctx, prefix+"k").Result()
	if res, err := r.Allow(ctx, "k", 2, 10*time.Second); err != nil || res.Allowed {
		t.Fatalf("third request: %+v, %v; want refused", res, err)
	}
	if after, _ := c.Get(ctx, prefix+"k").Result(); after != before {
		t.Fatalf("a refused request changed the key: %q -> %q", before, after)
	}
}

// quick fails the test if f takes longer than d or returns no error.
func quick(t *testing.T, what string, d time.Duration, f func() error) {
	t.Helper()
	start := time.Now()
	err := f()
	took := time.Since(start)
	if err == nil {
		t.Errorf("%s succeeded, want an error", what)
	}
	if took > d {
		t.Errorf("%s took %v, want at most %v (err %v)", what, took, d, err)
	}
}

func TestRedisUnreachable(t *testing.T) {
	ctx := context.Background()
	addr := testserver.ClosedAddr(t)

	t.Run("OpenRedis fails", func(t *testing.T) {
		quick(t, "OpenRedis", 2*time.Second, func() error {
			r, err := ratelimit.OpenRedis(ctx, "redis://"+addr+"/0")
			if err == nil {
				r.Close()
			}
			return err
		})
	})

	t.Run("Allow and Ping fail", func(t *testing.T) {
		r := ratelimit.NewRedis(redis.NewClient(&redis.Options{
			Addr: addr, DialTimeout: time.Second, DialerRetries: 1, MaxRetries: -1,
		}), "x:")
		defer r.Close()
		quick(t, "Allow", 2*time.Second, func() error {
			_, err := r.Allow(ctx, "k", 1, time.Second)
			return err
		})
		quick(t, "Ping", 2*time.Second, func() error { return r.Ping(ctx) })
	})

	t.Run("a server that never answers", func(t *testing.T) {
		// It accepts connections and reads, but never replies: only
		// OpenRedis's read timeout ends the wait.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() { _, _ = io.Copy(io.Discard, c) }()
			}
		}()
		quick(t, "OpenRedis", 3*time.Second, func() error {
			r, err := ratelimit.OpenRedis(ctx, "redis://"+ln.Addr().String()+"/0")
			if err == nil {
				r.Close()
			}
			return err
		})
	})
}

// TestRedisGoesAway opens a limiter through a proxy to the test Redis and
// then cuts the proxy, as when Redis stops after the server started: Allow
// and Ping fail quickly with OpenRedis's own settings.
func TestRedisGoesAway(t *testing.T) {
	openRedis(t)
	opt, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, opt.Addr)
	r, err := ratelimit.OpenRedis(context.Background(), "redis://"+p.addr()+"/0")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	key := uniquePrefix() + "k"
	if res, err := r.Allow(ctx, key, 1, time.Hour); err != nil || !res.Allowed {
		t.Fatalf("through the proxy: %+v, %v", res, err)
	}
	p.close()
	quick(t, "Allow", 2*time.Second, func() error {
		_, err := r.Allow(ctx, key, 1, time.Hour)
		return err
	})
	quick(t, "Ping", 2*time.Second, func() error { return r.Ping(ctx) })
}

// proxy forwards TCP connections to a backend until closed.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t *testing.T, backend string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	t.Cleanup(p.close)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b, err := net.Dial("tcp", backend)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, b)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(b, c); b.Close() }()
			go func() { _, _ = io.Copy(c, b); c.Close() }()
		}
	}()
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// close stops accepting and cuts every open connection.
func (p *proxy) close() {
	if err := p.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
