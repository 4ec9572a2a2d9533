package httpapi

import (
	"go/format"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/docmill/docmill"
)

// TestReferencePage: GET /docs lists every tool with its params and an
// example in each language (the Go ones gofmt-clean programs), the
// examples of the other endpoints, links and loads only this origin's
// files, and carries the policy that forbids inline code; its assets are
// served, other names are 404.
func TestReferencePage(t *testing.T) {
	tools := []*docmill.Tool{
		{Slug: "merge-pdf", Title: "Merge PDF", Accepts: []string{"application/pdf"}, MinFiles: 2, MaxFiles: 50},
		{Slug: "url-to-pdf", Title: "URL to PDF", Params: []docmill.Param{
			{Name: "url", Type: docmill.TypeURL, Required: true, Example: "https://example.com/"},
			{Name: "note", Type: docmill.TypeString, Example: `it's "quoted"`}}},
		{Slug: "sign-pdf", Title: "Sign PDF", Accepts: []string{"application/pdf", "application/x-pkcs12"}, MinFiles: 2, MaxFiles: 2},
	}
	s := NewServer(Config{Registry: docmill.NewRegistry(tools...), Logger: slog.New(slog.DiscardHandler), BaseURL: "https://pdf.example"})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/docs", nil))
	page := rec.Body.String()
	if rec.Code != http.StatusOK || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("GET /docs: %d %v", rec.Code, rec.Header())
	}
	if strings.Contains(page, "<style") || regexp.MustCompile(`<script>|\son[a-z]+=|style=`).MatchString(page) {
		t.Error("the page has inline code or style")
	}
	for _, m := range regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(m[1], "/") && !strings.HasPrefix(m[1], "#") {
			t.Errorf("the page links %s", m[1])
		}
	}
	samples := regexp.MustCompile(`(?s)data-lang="(\w+)">.*?<code>(.*?)</code>`).FindAllStringSubmatch(page, -1)
	perLang := map[string]int{}
	for _, m := range samples {
		perLang[m[1]]++
		code := html.UnescapeString(m[2])
		if m[1] == "go" {
			if out, err := format.Source([]byte(code)); err != nil || string(out) != code {
				t.Errorf("a Go example is not gofmt-clean (%v):\n%s", err, code)
			}
		}
		if !strings.Contains(code, "https://pdf.example") {
			t.Errorf("an example does not call BaseURL:\n%s", code)
		}
	}
	want := len(tools) + len(endpointExamples)
	for _, l := range sampleLangs {
		if perLang[l.Lang] != want {
			t.Errorf("%d %s examples, want %d", perLang[l.Lang], l.Lang, want)
		}
	}
	for _, frag := range []string{`id="tool-merge-pdf"`, "file=@report.pdf", "file=@report-2.pdf", "file=@certificate.p12",
		`--form-string &#39;note=it&#39;\&#39;&#39;s &#34;quoted&#34;&#39;`, `id="op-createWebhook"`, `id="op-listJobs"`, `/v1/openapi.json`} {
		if !strings.Contains(page, frag) {
			t.Errorf("the page lacks %s", frag)
		}
	}
	for header, want := range map[string]bool{"gzip": true, "br, gzip;q=0.5": true, "gzip;q=0": false, "gzip; q=0.000": false, "*": true, "": false, "identity": false} {
		if acceptsGzip(header) != want {
			t.Errorf("acceptsGzip(%q) = %v", header, !want)
		}
	}
	for path, status := range map[string]int{"/docs/reference.js": 200, "/docs/reference.css": 200, "/docs/reference.html": 404, "/docs/x.js": 404} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if b, _ := io.ReadAll(rec.Body); rec.Code != status {
			t.Errorf("GET %s: %d %s", path, rec.Code, b)
		}
	}
}
