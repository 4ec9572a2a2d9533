package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The web interface gets "/" and "/static/..." only; every other unknown path
// keeps its problem+json 404.
func TestWebRoutes(t *testing.T) {
	web := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("web " + r.URL.Path)) })
	for _, tc := range []struct {
		web          http.Handler
		method, path string
		status       int
		body         string
	}{
		{web, "GET", "/", 200, "web /"},
		{web, "HEAD", "/", 200, ""},
		{web, "GET", "/static/app.js", 200, "web /static/app.js"},
		{web, "GET", "/other", 404, "not_found"},
		{web, "POST", "/", 405, "method_not_allowed"},
		{nil, "GET", "/", 404, "not_found"},
		{nil, "GET", "/static/app.js", 404, "not_found"},
	} {
		s := NewServer(Config{Logger: slog.New(slog.DiscardHandler), Web: tc.web})
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(tc.method, tc.path, nil))
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.body) {
			t.Errorf("web=%v %s %s: %d %q, want %d %q", tc.web != nil, tc.method, tc.path, w.Code, w.Body.String(), tc.status, tc.body)
		}
	}
}
