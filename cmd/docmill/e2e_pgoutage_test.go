package main

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/poll"
	"github.com/docmill/docmill/store/postgres/pgtest"
)

// TestPostgresOutage: when PostgreSQL goes away under a running node, the
// node stays up and /readyz says 503, database unavailable; when it comes
// back, the node is ready again, hears job notifications again, and
// processes jobs. The outage is made by a TCP proxy between the node and
// the database, cut and restored on the same port.
func TestPostgresOutage(t *testing.T) {
	t.Parallel() // wait-bound; its schema, proxy and server are its own
	dir, p := proxiedPostgresDir(t)
	s := startServer(t, dir)
	c := s.client(s.DevKey)
	if code, db := readyz(t, s.URL); code != 200 || db != "ok" {
		t.Fatalf("readyz before the outage: %d, database %q", code, db)
	}

	p.down()
	eventually(t, 20*time.Second, "readyz to say 503, database unavailable", func() bool {
		code, db := readyz(t, s.URL)
		return code == 503 && db == "unavailable"
	})
	if scrape(t, s.URL)["docmill_job_notifications_listening"] != 0 {
		t.Error("still listening for notifications without a database")
	}

	p.up(t)
	eventually(t, 30*time.Second, "readyz to say 200 again", func() bool {
		code, db := readyz(t, s.URL)
		return code == 200 && db == "ok"
	})
	eventually(t, 30*time.Second, "notifications to be heard again", func() bool {
		return scrape(t, s.URL)["docmill_job_notifications_listening"] == 1
	})
	j, _, err := c.Process(context.Background(), "rotate-pdf", []client.File{pdfFile("one-page.pdf", onePagePDF())},
		client.ProcessOptions{Prefer: "wait=30"})
	if err != nil {
		t.Fatalf("process after the outage: %v", err)
	}
	if j.Status != "done" { // River may still be backing off: wait for it
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if j, err = c.Wait(ctx, j.JobID, 200*time.Millisecond); err != nil || j.Status != "done" {
			t.Fatalf("job after the outage: %+v %v", j, err)
		}
	}
}

// eventually polls cond until it holds, failing t after timeout.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	poll.Until(t, timeout, func() (bool, string) { return cond(), "waited for " + what })
}

// proxy forwards TCP connections from addr to target. down cuts every
// connection and refuses new ones; up listens on addr again.
// proxiedPostgresDir is a data directory whose metadata is in a fresh
// PostgreSQL schema reached through p, a TCP proxy a test can cut.
func proxiedPostgresDir(t *testing.T) (dir string, p *proxy) {
	t.Helper()
	u, err := url.Parse(pgtest.SchemaURL(t))
	if err != nil {
		t.Fatal(err)
	}
	p = newProxy(t, u.Host)
	u.Host = p.addr
	dir = t.TempDir()
	databases.Store(dir, u.String())
	t.Cleanup(func() { databases.Delete(dir) })
	return dir, p
}

type proxy struct {
	target, addr string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{target: target, addr: "127.0.0.1:0", conns: map[net.Conn]bool{}}
	p.up(t)
	t.Cleanup(p.down) // registered before the server's, so it runs after
	return p
}

func (p *proxy) up(t *testing.T) {
	t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(in)
		}
	}()
}

func (p *proxy) forward(in net.Conn) {
	out, err := net.Dial("tcp", p.target)
	if err != nil {
		in.Close()
		return
	}
	p.mu.Lock()
	if p.ln == nil { // cut meanwhile
		p.mu.Unlock()
		in.Close()
		out.Close()
		return
	}
	p.conns[in], p.conns[out] = true, true
	p.mu.Unlock()
	go func() { _, _ = io.Copy(out, in); out.Close() }()
	_, _ = io.Copy(in, out)
	in.Close()
}

func (p *proxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}
