package chromium

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/docmill/docmill/internal/poll"
)

// hostilePage tries every way a page can reach beyond its own files: the
// test's server by image, script, stylesheet, iframe, fetch, XHR, beacon,
// WebSocket, a form and a redirecting location, and the local file system
// by file:// URLs and a path that climbs out of the site.
func hostilePage(server string) string {
	ws := "ws" + strings.TrimPrefix(server, "http")
	return fmt.Sprintf(`<!DOCTYPE html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="%[1]s/style.css">
<link rel="prefetch" href="%[1]s/prefetch">
<script src="%[1]s/script.js"></script>
<style>@font-face { font-family: X; src: url(%[1]s/font.woff2); } body { font-family: X, sans-serif; }
h2 { background: url(%[1]s/bg.png); }</style>
</head><body>
<h1>Hostile page</h1><h2>still printed</h2>
<img src="%[1]s/x.png">
<img src="http://localhost:%[3]s/localhost.png">
<img src="file:///etc/hostname">
<img src="../../../../etc/hostname">
<iframe src="%[1]s/frame.html"></iframe>
<iframe src="file:///etc/passwd" width="600" height="200"></iframe>
<iframe src="/../../../../etc/passwd" width="600" height="200"></iframe>
<p id="out">no leak</p>
<script>
fetch("%[1]s/fetch").then(r => r.text()).then(t => { document.getElementById("out").textContent = "LEAKED " + t; }).catch(() => {});
fetch("file:///etc/passwd").then(r => r.text()).then(t => { document.getElementById("out").textContent = "LEAKED " + t; }).catch(() => {});
try { const x = new XMLHttpRequest(); x.open("GET", "%[1]s/xhr", false); x.send(); } catch (e) {}
try { navigator.sendBeacon("%[1]s/beacon", "x"); } catch (e) {}
try { new WebSocket("%[2]s/ws"); } catch (e) {}
try { new Image().src = "https://127.0.0.1:1/tls.png"; } catch (e) {}
</script>
<form id="f" action="%[1]s/form" method="post"><input name="a" value="b"></form>
<script>setTimeout(() => { try { document.getElementById("f").submit(); } catch (e) {} }, 0);</script>
</body></html>`, server, ws, portOf(server))
}

func portOf(url string) string { return url[strings.LastIndex(url, ":")+1:] }

// TestNetworkBlocked prints hostilePage and checks that the test's server
// got no request and that no local file reached the PDF. It runs twice:
// with every wall (netns, dead proxy, interception), and with request
// interception alone, to show that interception is a wall by itself.
func TestNetworkBlocked(t *testing.T) {
	testBrowser(t)
	var hits atomic.Int64
	var paths []string
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		paths = append(paths, r.URL.Path)
		w.Write([]byte("SECRET FROM SERVER"))
	}))
	conns := watchConns(srv.Config)
	srv.Start()
	defer srv.Close()

	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"all walls", Options{MaxTabs: 1}},
		{"interception only", Options{MaxTabs: 1, noOSIsolation: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(tc.opts)
			defer b.Close()
			out := mustRun(t, tool(t, b, "html-to-pdf"), "hostile.html", "text/html", []byte(hostilePage(srv.URL)), nil)
			// A straggling request has arrived once the browser is gone
			// and every connection it made has ended.
			b.Close()
			conns.awaitEnded(t, srv.Listener.Addr().String())
			n := hits.Load()
			if tc.opts.noOSIsolation && slices.Equal(paths, []string{"/ws"}) {
				// The Fetch domain does not see WebSockets, and a file://
				// page may open one to loopback: only the empty network
				// namespace and the dead proxy stop it.
				n = 0
			}
			if n != 0 {
				t.Errorf("the server got %d requests: %v", n, paths)
			}
			text := pdfText(t, out.Path)
			for _, leak := range []string{"root:x:0", "SECRET FROM SERVER", "LEAKED"} {
				if strings.Contains(text, leak) {
					t.Errorf("PDF text has %q: %s", leak, text)
				}
			}
			if !strings.Contains(text, "Hostile page") || !strings.Contains(text, "no leak") {
				t.Errorf("PDF text %q lacks the page", text)
			}
			if blocked, _ := out.Meta["blocked_requests"].(int64); blocked < 5 {
				t.Errorf("blocked_requests = %v, want several", out.Meta["blocked_requests"])
			}
			t.Logf("blocked_requests = %v", out.Meta["blocked_requests"])
		})
	}
}

// connWatch follows a server's connections (http.Server.ConnState) by
// their remote address, so that a test can wait until every connection
// made before a point has ended.
type connWatch struct {
	mu   sync.Mutex
	seen map[string]bool // accepted
	open map[string]bool // accepted and not yet ended
}

// watchConns sets srv's ConnState hook (before the server starts).
func watchConns(srv *http.Server) *connWatch {
	w := &connWatch{seen: map[string]bool{}, open: map[string]bool{}}
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		w.mu.Lock()
		defer w.mu.Unlock()
		switch addr := c.RemoteAddr().String(); st {
		case http.StateNew:
			w.seen[addr], w.open[addr] = true, true
		case http.StateClosed, http.StateHijacked:
			delete(w.open, addr)
		}
	}
	return w
}

// awaitEnded waits until every connection made to addr before the call
// has ended, with the requests it carried. A connection of its own, made
// last, marks the point: the server accepts connections in order, so
// once it has accepted this one it has accepted every earlier one.
func (w *connWatch) awaitEnded(t *testing.T, addr string) {
	t.Helper()
	marker, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, func() (bool, string) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.seen[marker.LocalAddr().String()], "the marking connection not accepted"
	})
	marker.Close()
	poll.Until(t, 10*time.Second, func() (bool, string) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return len(w.open) == 0, fmt.Sprintf("connections still open: %v", w.open)
	})
}

func TestLookup(t *testing.T) {
	root := t.TempDir()
	served := "/jail/sites/0123456789abcdef"
	if err := os.WriteFile(filepath.Join(root, "index.html"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "dir"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	origin := "file://" + served + "/"
	for _, tc := range []struct {
		method, url string
		want        verdict
		at          string
	}{
		{"GET", origin + "index.html", found, origin + "index.html"},
		{"GET", "file:///index.html?v=2", found, origin + "index.html?v=2"}, // from the site's root
		{"GET", "file:///dir", blocked, ""},
		{"HEAD", origin + "index.html?x=1#y", found, ""},
		{"GET", origin + "missing.css", missing, ""},
		{"GET", origin + "dir", missing, ""},
		{"GET", origin + "link", missing, ""},
		{"GET", "file://" + served, blocked, ""}, // the folder itself: a listing
		{"GET", origin + "../../etc/passwd", blocked, ""},
		{"GET", origin + "%2e%2e/%2e%2e/etc/passwd", blocked, ""},
		{"GET", "file:///jail/sites/0123456789abcdef0/index.html", blocked, ""}, // another job's folder
		{"GET", "file:///etc/passwd", blocked, ""},
		{"GET", "file://host" + served + "/index.html", blocked, ""},
		{"GET", "http://127.0.0.1/", blocked, ""},
		{"GET", "https://example.com" + served + "/index.html", blocked, ""},
		{"POST", origin + "index.html", blocked, ""},
	} {
		got, at := lookup(root, served, tc.method, tc.url)
		if got != tc.want || (tc.at != "" && at != tc.at) {
			t.Errorf("%s %s: %v %q, want %v %q", tc.method, tc.url, got, at, tc.want, tc.at)
		}
	}
}

// TestJobsIsolated checks that a job sees nothing an earlier job of the
// same tab left: no cookie, localStorage, sessionStorage or window.name,
// and no history entry of its page. The browser has one tab, so the jobs
// share it; the test also checks that they did (the tab was reused).
func TestJobsIsolated(t *testing.T) {
	b, tl := ownBrowser(t, Options{MaxTabs: 1})
	page := `<!DOCTYPE html><html><body><p id="o">x</p><script>
document.getElementById("o").textContent = "SEEN[" + (localStorage.getItem("k") || "") + "|" +
  (sessionStorage.getItem("k") || "") + "|" + document.cookie + "|" + window.name + "|" + history.length + "]";
localStorage.setItem("k", "LEFTOVER"); sessionStorage.setItem("k", "SESSION");
document.cookie = "c=CRUMB; max-age=3600"; window.name = "NAME";
</script></body></html>`
	for i := range 3 {
		out := mustRun(t, tl, "a.html", "text/html", []byte(page), nil)
		text := pdfText(t, out.Path)
		if !strings.Contains(text, "SEEN[||||") {
			t.Fatalf("job %d saw state of an earlier one: %q", i, text)
		}
		if strings.Contains(text, "|3]") || strings.Contains(text, "|4]") {
			t.Fatalf("job %d has the history of an earlier one: %q", i, text)
		}
	}
	if n := openedTabs(b); n != 1 {
		t.Errorf("%d tabs opened for 3 jobs in a row, want 1 (reused)", n)
	}
}

// TestTabWithWindowNotReused checks that a tab whose browser context
// holds another window after a job is closed, not reused: the window
// would live on next to the next job's page. (Chromium's popup blocker
// stops window.open without a user gesture, so the test opens the window
// over the DevTools protocol, as a page that got one would.)
func TestTabWithWindowNotReused(t *testing.T) {
	b, tl := ownBrowser(t, Options{MaxTabs: 1})
	plain := []byte(`<!DOCTYPE html><html><body><p>plain</p></body></html>`)
	mustRun(t, tl, "a.html", "text/html", plain, nil)
	b.mu.Lock()
	inst := b.cur
	b.mu.Unlock()
	idle := idleTab(t, inst)
	newWindow := true
	if _, err := chromedp.CallBrowser(inst.ctx, target.CreateTarget, target.CreateTargetParams{
		URL: "about:blank", BrowserContextID: idle.contextID, NewWindow: &newWindow,
	}); err != nil {
		t.Fatal(err)
	}
	mustRun(t, tl, "b.html", "text/html", plain, nil) // in the idle tab, which is then closed
	mustRun(t, tl, "c.html", "text/html", plain, nil) // in a new tab
	mustRun(t, tl, "d.html", "text/html", plain, nil) // in the same new tab
	if n := openedTabs(b); n != 2 {
		t.Errorf("%d tabs opened, want 2: one closed after the window, one reused", n)
	}
}

// idleTab waits until inst has an idle tab (the reset after a job runs
// in the background) and returns it.
func idleTab(t *testing.T, inst *instance) *tab {
	var idle *tab
	poll.Until(t, resetTimeout+5*time.Second, func() (bool, string) {
		inst.tabsMu.Lock()
		defer inst.tabsMu.Unlock()
		if len(inst.idle) > 0 {
			idle = inst.idle[0]
		}
		return idle != nil, "no idle tab after a job"
	})
	return idle
}

// openedTabs returns how many tabs b's current browser opened.
func openedTabs(b *Browser) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cur == nil {
		return 0
	}
	return b.cur.opened.Load()
}
