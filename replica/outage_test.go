package replica_test

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/replica"
)

// TestTargetDown takes the target away for a while under writes: no write
// fails, Status shows the error and a growing lag, and once the target is
// back everything committed reaches it without a final flush.
func TestTargetDown(t *testing.T) {
	t.Run("directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "target")
		// A file where the directory was: every write to it fails, even
		// for root, whom permissions do not stop.
		testTargetDown(t, fileURL(dir), func(down bool) {
			if down {
				must(t, os.Rename(dir, dir+".away"))
				must(t, os.WriteFile(dir, nil, 0o600))
			} else {
				must(t, os.Remove(dir))
				must(t, os.Rename(dir+".away", dir))
			}
		})
	})
	t.Run("bucket", func(t *testing.T) {
		srv := startBucketServer(t)
		p := startDropProxy(t, srv.Endpoint[len("http://"):])
		testTargetDown(t, s3URL("http://"+p.ln.Addr().String(), "down"), p.setDown)
	})
}

func testTargetDown(t *testing.T, target string, setDown func(bool)) {
	path := filepath.Join(t.TempDir(), "docmill.db")
	r := startReplicator(t, path, target, replica.Options{SyncInterval: 200 * time.Millisecond, RetryMax: time.Second})
	db := openApp(t, path)
	w := startWriter(db)
	waitShipped(t, r, time.Now(), 20*time.Second)

	setDown(true)
	var st replica.Status
	poll.Until(t, 30*time.Second, func() (bool, string) {
		st = r.Status()
		return st.Failing && st.Lag > 3*time.Second, "status " + statusString(st)
	})
	t.Logf("target down: %s", statusString(st))
	if st.LastError == "" || st.LastErrorAt.IsZero() {
		t.Errorf("failing without an error: %s", statusString(st))
	}
	setDown(false)
	waitShipped(t, r, time.Now(), 30*time.Second)
	ids := w.finish(t)
	waitShipped(t, r, time.Now(), 20*time.Second)
	if got := restoredIDs(t, target, time.Time{}); !slices.Equal(got, ids) {
		t.Errorf("restored %d rows (%v...), want the %d written", len(got), head(got), len(ids))
	}
}

func statusString(st replica.Status) string {
	return fmt.Sprintf("failing=%v lag=%v local=%d shipped=%d bytes=%d error=%q",
		st.Failing, st.Lag.Round(time.Millisecond), st.LocalTXID, st.ShippedTXID, st.BytesShipped, st.LastError)
}

// dropProxy forwards TCP connections to target until set down, which
// closes the connections it carries and every new one at once.
type dropProxy struct {
	ln net.Listener

	target string // host:port

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
}

func startDropProxy(t testing.TB, target string) *dropProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dropProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { _ = ln.Close(); p.setDown(true) })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *dropProxy) serve(c net.Conn) {
	p.mu.Lock()
	if p.down {
		p.mu.Unlock()
		_ = c.Close()
		return
	}
	p.conns[c] = true
	p.mu.Unlock()
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	p.conns[up] = true
	p.mu.Unlock()
	go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
	_, _ = io.Copy(c, up)
	_ = c.Close()
}

func (p *dropProxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			_ = c.Close()
		}
		clear(p.conns)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
