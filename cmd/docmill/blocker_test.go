package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/docmill/docmill/client"
)

// startBlocker sends a url-to-pdf job that stays unfinished for tens of
// seconds while using next to no CPU: the long job of tests that only need
// a worker busy, or an in-flight slot held, until they cancel it. Its page
// loads at once but holds an image whose request is answered only when the
// test ends, so Chromium waits for the page's load (up to the URL tools'
// bound on one request, 20 s), then for a selector that never matches (up
// to 30 s). A real tool on a real browser, unlike a sleep; unlike an OCR
// of many pages, it leaves the CPU to the checks that time things. The
// server must run with --allow-private-urls, the page being on loopback.
func startBlocker(t testing.TB, c *client.Client) *client.Job {
	t.Helper()
	j, resp, err := c.Process(context.Background(), "url-to-pdf", nil, client.ProcessOptions{
		Params: map[string]string{"url": stalledPage(t), "wait_for": blockerWaitFor},
		Prefer: "respond-async",
	})
	if err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("url-to-pdf of a stalled page: %v %v", resp, err)
	}
	return j
}

// blockerWaitFor is the blocker's wait_for: a selector that never matches.
const blockerWaitFor = "#never"

// stalledPage serves, until the test ends, a page that loads at once but
// holds an image whose request is answered only then, and returns its
// address.
func stalledPage(t testing.TB) string {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, `<!doctype html><title>stalled</title><p>A page whose image never comes.</p><img src="/stall">`)
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL + "/"
}
