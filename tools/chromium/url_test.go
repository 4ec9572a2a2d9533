package chromium

import (
	"context"
	"errors"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	docmill "github.com/docmill/docmill"
)

// urlSite is a web site for the URL tools' tests: a redirect chain to a
// page with a stylesheet, an image, a file:// image, a POST and an
// element a script inserts after 500 ms. It records the paths asked.
type urlSite struct {
	srv   *httptest.Server
	mu    sync.Mutex
	paths []string
}

const urlPage = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Remote page</title>
<link rel="stylesheet" href="/style.css"></head><body>
<h1>Remote page text</h1>
<img src="/pic.png" width="20" height="20">
<img src="file:///etc/hostname">
<div style="height: 2000px"></div>
<script>
fetch("/post", {method: "POST", body: "x"}).catch(() => {});
setTimeout(() => { const p = document.createElement("p"); p.id = "late"; p.textContent = "Late element"; document.body.prepend(p); }, 500);
</script></body></html>`

func newURLSite(t *testing.T) *urlSite {
	t.Helper()
	s := &urlSite{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.paths = append(s.paths, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		switch r.URL.Path {
		case "/":
			http.Redirect(w, r, "/hop", http.StatusFound)
		case "/hop":
			http.Redirect(w, r, "/page", http.StatusMovedPermanently)
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, urlPage)
		case "/style.css":
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, "body { background: #fff; }")
		case "/pic.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(testPNG)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// testPNG is a 1x1 PNG.
var testPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

func (s *urlSite) asked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.paths)
}

// runURLTool validates raw as the API does and runs tl, which takes no
// file.
func runURLTool(t *testing.T, tl *docmill.Tool, raw map[string]string) (*docmill.RunOutput, error) {
	t.Helper()
	params, err := tl.ParseParams(raw)
	if err != nil {
		t.Fatalf("params: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), tl.Timeout)
	defer cancel()
	return tl.Invoke(ctx, &docmill.RunInput{Params: params, WorkDir: t.TempDir()})
}

// TestURLToPDF loads a page through a redirect chain, with its
// stylesheet and image, waits for an element a script inserts late, and
// blocks what the page may not do (a file:// image, a POST).
func TestURLToPDF(t *testing.T) {
	site := newURLSite(t)
	b, _ := ownBrowser(t, Options{MaxTabs: 2, Pages: pagesClient(true)})
	out, err := runURLTool(t, tool(t, b, "url-to-pdf"), map[string]string{"url": site.srv.URL + "/", "wait_for": "#late"})
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, out.Path)
	for _, want := range []string{"Remote page text", "Late element"} {
		if !strings.Contains(text, want) {
			t.Errorf("PDF text lacks %q: %q", want, text)
		}
	}
	asked := site.asked()
	for _, want := range []string{"GET /", "GET /hop", "GET /page", "GET /style.css", "GET /pic.png"} {
		if !slices.Contains(asked, want) {
			t.Errorf("the server was not asked %s: %v", want, asked)
		}
	}
	if slices.Contains(asked, "POST /post") {
		t.Errorf("the page's POST reached the server: %v", asked)
	}
	if blocked, _ := out.Meta["blocked_requests"].(int64); blocked < 1 || out.Meta["wait_timed_out"] != false {
		t.Errorf("meta %v: want blocked requests and no timeout", out.Meta)
	}
	if out.Filename != "127.0.0.1.pdf" {
		t.Errorf("result named %q", out.Filename)
	}
}

// TestURLErrors: a page that answers 404 or cannot be reached fails as
// fetch_failed; a selector that never matches prints the page anyway;
// a selector the browser cannot read is invalid_parameter.
func TestURLErrors(t *testing.T) {
	site := newURLSite(t)
	b, _ := ownBrowser(t, Options{MaxTabs: 2, Pages: pagesClient(true)})
	tl := tool(t, b, "url-to-pdf")
	for _, c := range []struct {
		url, wait string
		code      docmill.Code
	}{
		{site.srv.URL + "/gone", "", docmill.CodeFetchFailed},
		{"http://127.0.0.1:1/", "", docmill.CodeFetchFailed}, // nothing listens there
		{site.srv.URL + "/page", "p[", docmill.CodeInvalidParameter},
	} {
		raw := map[string]string{"url": c.url}
		if c.wait != "" {
			raw["wait_for"] = c.wait
		}
		_, err := runURLTool(t, tl, raw)
		var de *docmill.Error
		if !errors.As(err, &de) || de.Code != c.code {
			t.Errorf("%s: %v, want %s", c.url, err, c.code)
		}
	}
}

// TestURLToImage takes a full-page screenshot of the page.
func TestURLToImage(t *testing.T) {
	site := newURLSite(t)
	b, _ := ownBrowser(t, Options{MaxTabs: 2, Pages: pagesClient(true)})
	out, err := runURLTool(t, tool(t, b, "url-to-image"), map[string]string{"url": site.srv.URL + "/page", "width": "800", "full_page": "true"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != 800 || cfg.Height < 2000 {
		t.Errorf("image %dx%d, want 800 wide and the page's 2000+ px tall", cfg.Width, cfg.Height)
	}
}
