// Package testsite is a local web site for the tests of the tools that
// load a page by its address (url-to-pdf, url-to-image): a redirect chain
// to a page with a stylesheet, an image and an element a script inserts
// after 500 ms, and hostile parts (a file:// image, an iframe redirected
// to file://, a POST). It records every request.
package testsite

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// What the page shows, and how tall it is.
const (
	// Heading is the page's heading.
	Heading = "Page served locally"
	// Late is the text of the element the script inserts after 500 ms,
	// whose selector is LateSelector.
	Late         = "Inserted after half a second"
	LateSelector = "#late"
	// PageHeight is the least height of the whole page, in CSS pixels.
	PageHeight = 2400
)

// page is the site's page, at /page (and at the end of the redirects
// from /).
var page = fmt.Sprintf(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Local page</title>
<link rel="stylesheet" href="/style.css"></head><body>
<h1>%s</h1>
<img src="/pic.png" width="40" height="40">
<img src="file:///etc/hostname">
<iframe src="/to-file" width="400" height="100"></iframe>
<div style="height: %dpx"></div>
<script>
fetch("/post", {method: "POST", body: "x"}).catch(() => {});
setTimeout(() => { const p = document.createElement("p"); p.id = "late"; p.textContent = %q; document.body.prepend(p); }, 500);
</script></body></html>`, Heading, PageHeight, Late)

// pic is a 1x1 PNG.
var pic = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

// Site is the running site, closed when its test ends.
type Site struct {
	// URL is the site's root, such as http://127.0.0.1:1234.
	URL   string
	mu    sync.Mutex
	asked []string
}

// New starts the site.
func New(t testing.TB) *Site {
	t.Helper()
	s := &Site{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.asked = append(s.asked, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		switch r.URL.Path {
		case "/":
			http.Redirect(w, r, "/hop", http.StatusFound)
		case "/hop":
			http.Redirect(w, r, "/page", http.StatusMovedPermanently)
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, page)
		case "/style.css":
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, "h1 { color: #063; }")
		case "/pic.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(pic)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Requests returns the requests the site got, as "METHOD /path".
func (s *Site) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.asked)
}
