// Package web is docmill's browser interface: static files embedded in the
// binary that call the public API (/v1/...) and nothing else.
package web

import (
	"bytes"
	"compress/gzip"
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/docmill/docmill"
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

// Handler serves index.html at "/" and the assets under "/static/", whole
// and gzip-compressed when the client accepts it:
// the assets are small, so Range and conditional requests are not answered
// (RFC 9110 lets a server ignore them) and no answer but 200 can come of
// them. Its errors, a 404 and a 405, are problem+json like the API's.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeProblem(w, http.StatusMethodNotAllowed, docmill.CodeMethodNotAllowed, "Method "+r.Method+" is not allowed here.")
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
			writeProblem(w, http.StatusNotFound, docmill.CodeNotFound, "No such file.")
			return
		}
		h := w.Header()
		h.Set("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			h.Set("Content-Encoding", "gzip")
			b = gzipped(name, b)
		}
		h.Set("Content-Type", ct)
		h.Set("Cache-Control", cache)
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(b)
		}
	})
}

// gzipCache holds each file compressed, once: the files never change.
var gzipCache sync.Map

// gzipped returns the file name, whose bytes are b, gzip-compressed.
func gzipped(name string, b []byte) []byte {
	if z, ok := gzipCache.Load(name); ok {
		return z.([]byte)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	gzipCache.Store(name, buf.Bytes())
	return buf.Bytes()
}

// acceptsGzip reports whether an Accept-Encoding header admits gzip
// (RFC 9110 12.5.3: listed, or "*", without q=0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "*" {
			continue
		}
		q := strings.ReplaceAll(strings.ToLower(params), " ", "")
		return !(q == "q=0" || strings.HasPrefix(q, "q=0.0") && strings.Trim(q[4:], "0") == "" || q == "q=0.")
	}
	return false
}

// writeProblem answers status with a problem+json body. The request id is
// the X-Request-Id that the API's middleware has set on the answer, if any.
func writeProblem(w http.ResponseWriter, status int, code docmill.Code, detail string) {
	h := w.Header()
	h.Set("Content-Type", "application/problem+json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(docmill.NewProblem(status, code, detail, h.Get("X-Request-Id")))
}
