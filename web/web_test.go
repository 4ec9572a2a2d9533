package web

import (
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
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

func TestNotFound(t *testing.T) {
	for _, path := range []string{"/static/nope.js", "/static/", "/static/../web.go", "/index.html", "/other"} {
		if res := get(t, path); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: status %d, want 404", path, res.StatusCode)
		}
	}
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST /: %d", rec.Code)
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
	for _, g := range []string{"pdf", "to-pdf", "from-pdf", "images", "security"} {
		if en["group."+g] == "" {
			t.Errorf("group %q has no title", g)
		}
	}
}

// TestWeight checks the promise that the whole interface, before files are
// chosen, is under 150 KB: the page and every asset it loads.
func TestWeight(t *testing.T) {
	total := 0
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(name)
		total += len(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("interface weight: %d bytes", total)
	if total >= 150<<10 {
		t.Errorf("the interface weighs %d bytes, more than 150 KB", total)
	}
}
