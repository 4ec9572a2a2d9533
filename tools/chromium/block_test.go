package chromium

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
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
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		paths = append(paths, r.URL.Path)
		w.Write([]byte("SECRET FROM SERVER"))
	}))
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
			time.Sleep(300 * time.Millisecond) // let a straggling request arrive
			if n := hits.Load(); n != 0 {
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

func TestLookup(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		method, url string
		ok          bool
		status      int64
	}{
		{"GET", origin + "index.html", true, 404},
		{"GET", origin + "../../etc/passwd", true, 404},
		{"GET", origin + "%2e%2e/%2e%2e/etc/passwd", true, 404},
		{"GET", "http://127.0.0.1/", false, 0},
		{"GET", "file:///etc/passwd", false, 0},
		{"GET", "https://" + originHost + "/index.html", false, 0},
		{"GET", "http://user@" + originHost + "/index.html", false, 0},
		{"POST", origin + "index.html", false, 0},
	} {
		res, ok := lookup(root, tc.method, tc.url)
		if ok != tc.ok || res.status != tc.status {
			t.Errorf("%s %s: ok %v status %d, want %v %d", tc.method, tc.url, ok, res.status, tc.ok, tc.status)
		}
	}
}

// TestJobsIsolated checks that a job sees no cookie or stored value that
// an earlier job left: each tab has a browser context of its own.
func TestJobsIsolated(t *testing.T) {
	b := testBrowser(t)
	tl := tool(t, b, "html-to-pdf")
	page := `<!DOCTYPE html><html><body><p id="o">x</p><script>
document.getElementById("o").textContent = "SEEN[" + (localStorage.getItem("k") || "") + "|" + document.cookie + "]";
localStorage.setItem("k", "LEFTOVER"); document.cookie = "c=CRUMB; max-age=3600";
</script></body></html>`
	for range 2 {
		out := mustRun(t, tl, "a.html", "text/html", []byte(page), nil)
		if text := pdfText(t, out.Path); !strings.Contains(text, "SEEN[|]") {
			t.Fatalf("a job saw state of an earlier one: %q", text)
		}
	}
}
