// Package web is docmill's browser interface: static files embedded in the
// binary that call the public API (/v1/...) and nothing else.
package web

import (
	"bytes"
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed index.html static
var files embed.FS

// csp forbids inline scripts and styles and every origin but our own.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".json": "application/json; charset=utf-8",
	".svg":  "image/svg+xml",
}

// Handler serves index.html at "/" and the assets under "/static/".
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name, cache := "", ""
		switch {
		case r.URL.Path == "/":
			name, cache = "index.html", "no-cache"
		case strings.HasPrefix(r.URL.Path, "/static/"):
			name = path.Clean(strings.TrimPrefix(r.URL.Path, "/"))
			// Assets are not fingerprinted: revalidate after an hour.
			cache = "public, max-age=3600"
		}
		ct := contentTypes[path.Ext(name)]
		b, err := fs.ReadFile(files, name)
		if name == "" || ct == "" || err != nil {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", ct)
		h.Set("Cache-Control", cache)
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	})
}
