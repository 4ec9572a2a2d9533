package chromium

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/outbound"
)

// pagesClient is the outbound client the server gives the browser for a
// URL job's requests (engines.go's pages client): loopback gives
// allow-private, as --allow-private-urls does, so that the page may come
// from this test's server on 127.0.0.1; without it, the address rules of
// the outbound package (tested there) refuse internal addresses.
func pagesClient(loopback bool) *outbound.Client {
	return outbound.New(outbound.Config{AllowPrivate: loopback, Timeout: 20 * time.Second, HeaderTimeout: 15 * time.Second, MaxResponseBytes: -1})
}

// remoteServer serves the fetch tests' answers.
func remoteServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Set-Cookie", "session=secret")
			w.Header().Set("Content-Disposition", "attachment")
			w.Header().Set("X-Accept-Seen", r.Header.Get("Accept"))
			fmt.Fprint(w, "<h1>page</h1>")
		case "/hop":
			http.Redirect(w, r, "/page", http.StatusFound)
		case "/to-metadata":
			// https, so that the address rule, not the scheme rule,
			// refuses the hop.
			http.Redirect(w, r, "https://169.254.169.254/latest/meta-data/", http.StatusFound)
		case "/big":
			w.Write([]byte(strings.Repeat("x", 5000)))
		case "/missing":
			http.NotFound(w, r)
		case "/gzip-bomb": // 8 MB of zeros in about 8 KB
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Type", "text/css")
			zw := gzip.NewWriter(w)
			zw.Write(make([]byte, 8<<20))
			zw.Close()
		default:
			w.Write([]byte("ok"))
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRemoteFetch covers the rules every request of a URL job's page is
// held to, without a browser.
func TestRemoteFetch(t *testing.T) {
	srv := remoteServer(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	newR := func() *remote { return newRemote(t.Context(), pagesClient(true), srv.URL+"/page", docmill.Limits{}) }
	// strictR fetches as a server without --allow-private-urls.
	strictR := func(page string) *remote { return newRemote(t.Context(), pagesClient(false), page, docmill.Limits{}) }

	t.Run("answer", func(t *testing.T) {
		a, err := newR().fetch("GET", srv.URL+"/page", network.Headers{"accept": "text/html", "Cookie": "a=b"}, false)
		if err != nil || a.status != 200 || string(a.body) != "<h1>page</h1>" {
			t.Fatalf("got %d %q, %v", a.status, a.body, err)
		}
		got := map[string]string{}
		for _, h := range a.headers {
			got[h.Name] = h.Value
		}
		if got["Content-Type"] != "text/html; charset=utf-8" || got["Cache-Control"] != "no-store" {
			t.Errorf("headers %v: want the content type and no-store", got)
		}
		for _, h := range []string{"Set-Cookie", "Content-Disposition", "X-Accept-Seen"} {
			if _, ok := got[h]; ok {
				t.Errorf("header %s given to the page: %v", h, got)
			}
		}
	})
	t.Run("redirect returned, not followed", func(t *testing.T) {
		a, err := newR().fetch("GET", srv.URL+"/hop", nil, false)
		if err != nil || a.status != http.StatusFound {
			t.Fatalf("got %d, %v; want the 302 itself", a.status, err)
		}
		if !hasHeader(a, "Location", "/page") {
			t.Errorf("no Location /page in %v", a.headers)
		}
	})
	t.Run("redirect to a refused address", func(t *testing.T) {
		a, err := newR().fetch("GET", srv.URL+"/to-metadata", nil, true)
		if err != nil || a.status != http.StatusFound || !hasHeader(a, "Location", "https://169.254.169.254/latest/meta-data/") {
			t.Fatalf("first hop: %d %v, %v", a.status, a.headers, err)
		}
		// Chromium follows the Location: its request comes back here, to
		// a server that refuses internal addresses (the first hop's
		// server on 127.0.0.1 is one too, hence the two clients).
		meta := "https://169.254.169.254/latest/meta-data/"
		r := strictR(meta)
		_, err = r.fetch("GET", meta, nil, true)
		var b errBlocked
		if !errors.As(err, &b) || !strings.Contains(err.Error(), "internal") {
			t.Fatalf("second hop: %v, want blocked as internal", err)
		}
		var de *docmill.Error
		if err := r.mainResult(); !errors.As(err, &de) || de.Code != docmill.CodeFetchFailed || !strings.Contains(de.Message, "internal") {
			t.Errorf("mainResult: %v, want fetch_failed naming the refused address", err)
		}
	})
	t.Run("loopback refused without allow-private", func(t *testing.T) {
		for u, why := range map[string]string{"https://" + host + "/page": "internal", "http://" + host + "/page": "only https"} {
			if _, err := strictR(u).fetch("GET", u, nil, true); err == nil || !strings.Contains(err.Error(), why) {
				t.Errorf("%s, from a server that refuses internal addresses: %v, want refused (%s)", u, err, why)
			}
		}
	})
	for _, c := range []struct{ name, method, url string }{
		{"file scheme", "GET", "file:///etc/passwd"},
		{"websocket", "GET", "ws://" + host + "/ws"},
		{"data", "GET", "data:text/plain,x"},
		{"post", "POST", srv.URL + "/page"},
		{"head", "HEAD", srv.URL + "/page"},
		{"credentials", "GET", "http://user:pass@" + host + "/page"},
		{"nothing listening", "GET", "http://127.0.0.1:1/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := newR().fetch(c.method, c.url, nil, false); err == nil {
				t.Errorf("%s %s was fetched", c.method, c.url)
			}
		})
	}
	// limited fetches within the Fetch fields of l, as a job with those
	// limits does.
	limited := func(l docmill.Limits) *remote {
		return newRemote(t.Context(), pagesClient(true), srv.URL+"/page", l)
	}
	t.Run("bounds", func(t *testing.T) {
		r := limited(docmill.Limits{FetchResponseBytes: 4000})
		if _, err := r.fetch("GET", srv.URL+"/big", nil, false); err == nil {
			t.Error("a response past the per-response bound was fetched")
		}
		r = limited(docmill.Limits{FetchResponseBytes: 1 << 20})
		if _, err := r.fetch("GET", srv.URL+"/gzip-bomb", nil, false); err == nil || !strings.Contains(err.Error(), "larger") {
			t.Errorf("a gzip bomb past the per-response bound, decoded: %v, want blocked", err)
		}
		r = limited(docmill.Limits{FetchBytes: 6000})
		if _, err := r.fetch("GET", srv.URL+"/big", nil, false); err != nil {
			t.Fatalf("first: %v", err)
		}
		if _, err := r.fetch("GET", srv.URL+"/big", nil, false); err == nil {
			t.Error("responses past the job's byte bound were fetched")
		}
		// The budget is charged as a body arrives: a long answer stops
		// at the budget, not after it was read whole (six such answers
		// in flight at once would otherwise hold six times the bound).
		r = limited(docmill.Limits{FetchResponseBytes: 16 << 20, FetchBytes: 1 << 20})
		if _, err := r.fetch("GET", srv.URL+"/gzip-bomb", nil, false); err == nil || !strings.Contains(err.Error(), "came to more than") {
			t.Errorf("an 8 MB answer within a 1 MB budget: %v, want blocked by the budget", err)
		}
		if got := r.bytes.Load(); got > 2<<20 {
			t.Errorf("%d bytes read for a 1 MB budget: the answer was read whole", got)
		}
		r = limited(docmill.Limits{FetchRequests: 2})
		for i := range 3 {
			_, err := r.fetch("GET", srv.URL+"/small", nil, false)
			if (err == nil) != (i < 2) {
				t.Errorf("request %d: %v", i+1, err)
			}
		}
	})
	t.Run("main document status", func(t *testing.T) {
		r := newR()
		if _, err := r.fetch("GET", srv.URL+"/missing", nil, true); err != nil {
			t.Fatal(err)
		}
		var de *docmill.Error
		if err := r.mainResult(); !errors.As(err, &de) || de.Code != docmill.CodeFetchFailed || !strings.Contains(de.Message, "404") {
			t.Errorf("mainResult after a 404: %v, want fetch_failed", err)
		}
		if _, err := r.fetch("GET", srv.URL+"/page", nil, true); err != nil {
			t.Fatal(err)
		}
		if err := r.mainResult(); err != nil {
			t.Errorf("mainResult after a 200: %v", err)
		}
	})
	t.Run("job ended", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		r := newRemote(ctx, pagesClient(true), srv.URL, docmill.Limits{})
		if _, err := r.fetch("GET", srv.URL+"/page", nil, false); err == nil {
			t.Error("a request of an ended job was fetched")
		}
	})
}

func hasHeader(a answer, name, value string) bool {
	for _, h := range a.headers {
		if h.Name == name && h.Value == value {
			return true
		}
	}
	return false
}

// TestWaitFor covers wait_for's reading: milliseconds within bounds, or
// a selector.
func TestWaitFor(t *testing.T) {
	for _, c := range []struct {
		v        string
		ok       bool
		ms       int
		selector string
	}{
		{"500", true, 500, ""},
		{"0", true, 0, ""},
		{"30000", true, 30000, ""},
		{"30001", false, 0, ""},
		{"99999999999999999999", false, 0, ""},
		{"#late", true, 0, "#late"},
		{"div.x > p", true, 0, "div.x > p"},
	} {
		err := checkWaitFor(c.v)
		if (err == nil) != c.ok {
			t.Errorf("%q: %v, want ok %v", c.v, err, c.ok)
		}
		if !c.ok {
			continue
		}
		s := waitFrom(docmill.Params{"wait_for": c.v}, 0)
		if s.ms != c.ms || s.selector != c.selector {
			t.Errorf("%q: wait %d ms, selector %q", c.v, s.ms, s.selector)
		}
	}
}
