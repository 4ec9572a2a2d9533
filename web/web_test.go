package web

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func get(t *testing.T, path string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Result()
}

func TestIndex(t *testing.T) {
	res := get(t, "/")
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d", res.StatusCode)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q", csp)
	}
	if !strings.Contains(string(body), `src="/static/app.js"`) {
		t.Error("index.html does not load app.js")
	}
	// No inline scripts, no inline styles, no external origins.
	if regexp.MustCompile(`<script(\s[^>]*)?>\s*[^<\s]`).Match(body) {
		t.Error("index.html has an inline script")
	}
	for _, bad := range []string{"style=", "onclick=", "http://", "https://"} {
		if strings.Contains(string(body), bad) {
			t.Errorf("index.html contains %q", bad)
		}
	}
}

func TestAssets(t *testing.T) {
	for path, want := range map[string]string{
		"/static/app.js":    "text/javascript; charset=utf-8",
		"/static/app.css":   "text/css; charset=utf-8",
		"/static/i18n.json": "application/json; charset=utf-8",
	} {
		res := get(t, path)
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != want {
			t.Errorf("%s: %d %q, want 200 %q", path, res.StatusCode, res.Header.Get("Content-Type"), want)
		}
		if res.Header.Get("Cache-Control") == "" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: headers %v", path, res.Header)
		}
	}
}

// TestErrors checks that every error is problem+json (RFC 9457), with the
// request id the API's middleware sets, and that Range and conditional
// headers, which assets do not answer, cause none.
func TestErrors(t *testing.T) {
	tests := []struct {
		method, path string
		hdr          []string
		status       int
		code         string
	}{
		{"GET", "/static/nope.js", nil, 404, "not_found"},
		{"HEAD", "/static/nope.js", nil, 404, "not_found"},
		{"GET", "/static/", nil, 404, "not_found"},
		{"GET", "/static/../web.go", nil, 404, "not_found"},
		{"GET", "/static/i18n", nil, 404, "not_found"},
		{"GET", "/index.html", nil, 404, "not_found"},
		{"GET", "/other", nil, 404, "not_found"},
		{"POST", "/", nil, 405, "method_not_allowed"},
		{"DELETE", "/static/app.js", nil, 405, "method_not_allowed"},
		{"GET", "/static/app.js", []string{"Range", "bytes=99999999-"}, 200, ""},
		{"GET", "/static/app.js", []string{"Range", "bytes=-0"}, 200, ""},
		{"GET", "/static/app.js", []string{"Range", "bytes=0-1"}, 200, ""},
		{"GET", "/static/app.js", []string{"If-Match", `"x"`}, 200, ""},
		{"GET", "/static/app.js", []string{"If-None-Match", "*"}, 200, ""},
		{"HEAD", "/static/app.js", nil, 200, ""},
		{"HEAD", "/", nil, 200, ""},
	}
	for _, tc := range tests {
		t.Run(tc.method+" "+tc.path+" "+strings.Join(tc.hdr, ": "), func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.path, nil)
			for i := 0; i+1 < len(tc.hdr); i += 2 {
				r.Header.Set(tc.hdr[i], tc.hdr[i+1])
			}
			w := httptest.NewRecorder()
			w.Header().Set("X-Request-Id", "req_test")
			Handler().ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if tc.status == 200 {
				want := w.Header().Get("Content-Length")
				if tc.method == "HEAD" && (w.Body.Len() != 0 || want == "" || want == "0") {
					t.Errorf("HEAD: %d body bytes, Content-Length %q", w.Body.Len(), want)
				}
				if tc.method == "GET" && want != strconv.Itoa(w.Body.Len()) {
					t.Errorf("Content-Length %q, body %d bytes", want, w.Body.Len())
				}
				if w.Header().Get("Content-Range") != "" {
					t.Errorf("Content-Range %q", w.Header().Get("Content-Range"))
				}
				return
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q, want application/problem+json", ct)
			}
			if tc.status == 405 && w.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("Allow %q", w.Header().Get("Allow"))
			}
			if tc.method == "HEAD" {
				return
			}
			var p struct {
				Type, Title, Detail, Code string
				Status                    int
				RequestID                 string `json:"request_id"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
				t.Fatalf("not JSON: %v: %s", err, w.Body)
			}
			if p.Code != tc.code || p.Status != tc.status || p.Type != "https://docmill.dev/errors/"+tc.code ||
				p.Title == "" || p.Detail == "" || p.RequestID != "req_test" {
				t.Errorf("problem %+v", p)
			}
		})
	}
}

// TestI18n checks that both languages have the same keys, and that every key
// the page and the script use exists.
func TestI18n(t *testing.T) {
	var dict map[string]map[string]string
	b, err := files.ReadFile("static/i18n.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &dict); err != nil {
		t.Fatal(err)
	}
	en, ru := dict["en"], dict["ru"]
	if len(en) == 0 || len(dict) != 2 {
		t.Fatalf("languages: %v", len(dict))
	}
	for k, v := range en {
		if ru[k] == "" || v == "" {
			t.Errorf("key %q: en %q, ru %q", k, v, ru[k])
		}
	}
	for k := range ru {
		if _, ok := en[k]; !ok {
			t.Errorf("key %q only in ru", k)
		}
	}
	html, _ := files.ReadFile("index.html")
	used := regexp.MustCompile(`data-i18n(?:-placeholder|-label)?="([^"]+)"`).FindAllSubmatch(html, -1)
	scripts, _ := fs.Glob(files, "static/*.js")
	for _, name := range scripts {
		js, _ := files.ReadFile(name)
		used = append(used, regexp.MustCompile(`\bt\("([a-z]+\.[A-Za-z.-]+)"`).FindAllSubmatch(js, -1)...)
		used = append(used, regexp.MustCompile(`btn\("([a-z]+\.[A-Za-z]+)"`).FindAllSubmatch(js, -1)...)
	}
	if len(used) < 30 {
		t.Fatalf("found only %d keys in use", len(used))
	}
	for _, m := range used {
		if _, ok := en[string(m[1])]; !ok {
			t.Errorf("key %q is used but not defined", m[1])
		}
	}
	// Groups are built as "group." + name.
	for _, g := range []string{"chain", "pdf", "pages", "forms", "inspect", "to-pdf", "from-pdf", "convert", "images", "security"} {
		if en["group."+g] == "" {
			t.Errorf("group %q has no title", g)
		}
	}
}

// TestWeight checks the promise that the whole interface, before files are
// chosen, reaches a browser in under 100 KB: the page and every asset it
// loads, as sent gzip-compressed (TestGzip). The raw size is logged: it
// grows with every tool's texts in both languages (i18n.json), which
// compress well.
func TestWeight(t *testing.T) {
	total, sent := 0, 0
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(name)
		total += len(b)
		sent += len(gzipped(name, b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("interface weight: %d bytes, %d as sent gzip-compressed", total, sent)
	if sent >= 100<<10 {
		t.Errorf("the interface weighs %d bytes as sent, more than 100 KB", sent)
	}
}

// TestGzip checks that a client accepting gzip gets each file compressed,
// the same bytes once decompressed, and that others get it as it is.
func TestGzip(t *testing.T) {
	for _, tc := range []struct {
		accept string
		gzip   bool
	}{
		{"gzip, deflate, br", true}, {"br;q=1, gzip;q=0.5", true}, {"*", true},
		{"gzip;q=0", false}, {"gzip; q=0.000", false}, {"", false}, {"identity", false},
	} {
		for _, path := range []string{"/", "/static/app.js", "/static/i18n.json"} {
			r := httptest.NewRequest(http.MethodGet, path, nil)
			r.Header.Set("Accept-Encoding", tc.accept)
			w := httptest.NewRecorder()
			Handler().ServeHTTP(w, r)
			name := strings.TrimPrefix(path, "/")
			if name == "" {
				name = "index.html"
			}
			raw, _ := files.ReadFile(name)
			body := w.Body.Bytes()
			if got := w.Header().Get("Content-Encoding") == "gzip"; got != tc.gzip {
				t.Fatalf("%s with Accept-Encoding %q: gzip %v, want %v", path, tc.accept, got, tc.gzip)
			}
			if w.Header().Get("Vary") != "Accept-Encoding" || w.Header().Get("Content-Length") != strconv.Itoa(len(body)) {
				t.Errorf("%s: Vary %q, Content-Length %q for %d bytes", path, w.Header().Get("Vary"), w.Header().Get("Content-Length"), len(body))
			}
			if tc.gzip {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(body, raw) {
				t.Errorf("%s with Accept-Encoding %q: the body is not the file", path, tc.accept)
			}
		}
	}
}
