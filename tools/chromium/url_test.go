package chromium

import (
	"context"
	"errors"
	"image/png"
	"os"
	"slices"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/testsite"
)

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
	site := testsite.New(t)
	b, _ := ownBrowser(t, Options{MaxTabs: 2, Pages: pagesClient(true)})
	out, err := runURLTool(t, tool(t, b, "url-to-pdf"), map[string]string{"url": site.URL + "/", "wait_for": testsite.LateSelector})
	if err != nil {
		t.Fatal(err)
	}
	text := pdfText(t, out.Path)
	for _, want := range []string{testsite.Heading, testsite.Late} {
		if !strings.Contains(text, want) {
			t.Errorf("PDF text lacks %q: %q", want, text)
		}
	}
	asked := site.Requests()
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
	site := testsite.New(t)
	b, _ := ownBrowser(t, Options{MaxTabs: 2, Pages: pagesClient(true)})
	tl := tool(t, b, "url-to-pdf")
	for _, c := range []struct {
		url, wait string
		code      docmill.Code
	}{
		{site.URL + "/gone", "", docmill.CodeFetchFailed},
		{"http://127.0.0.1:1/", "", docmill.CodeFetchFailed}, // nothing listens there
		{site.URL + "/page", "p[", docmill.CodeInvalidParameter},
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
	site := testsite.New(t)
	b, _ := ownBrowser(t, Options{MaxTabs: 2, Pages: pagesClient(true)})
	out, err := runURLTool(t, tool(t, b, "url-to-image"), map[string]string{"url": site.URL + "/page", "width": "800", "full_page": "true"})
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
	if cfg.Width != 800 || cfg.Height < testsite.PageHeight {
		t.Errorf("image %dx%d, want 800 wide and the page's %d+ px tall", cfg.Width, cfg.Height, testsite.PageHeight)
	}
}
