package main

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/client"
)

// urlSite is a local web site for url-to-pdf and url-to-image: a
// redirect chain to a page with a stylesheet, an image and an element a
// script inserts after 500 ms, and hostile parts (a file:// image, an
// iframe redirected to file://, a POST). It records every request.
type urlSite struct {
	srv   *httptest.Server
	mu    sync.Mutex
	asked []string
}

// urlSitePage is the site's page.
const urlSitePage = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Local page</title>
<link rel="stylesheet" href="/style.css"></head><body>
<h1>Page served locally</h1>
<img src="/pic.png" width="40" height="40">
<img src="file:///etc/hostname">
<iframe src="/to-file" width="400" height="100"></iframe>
<div style="height: 2400px"></div>
<script>
fetch("/post", {method: "POST", body: "x"}).catch(() => {});
setTimeout(() => { const p = document.createElement("p"); p.id = "late"; p.textContent = "Inserted after half a second"; document.body.prepend(p); }, 500);
</script></body></html>`

// urlPNG is a 1x1 PNG.
var urlPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

func urlNewSite(t *testing.T) *urlSite {
	t.Helper()
	s := &urlSite{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
			fmt.Fprint(w, urlSitePage)
		case "/style.css":
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, "h1 { color: #063; }")
		case "/pic.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(urlPNG)
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// requests returns the requests the site got.
func (s *urlSite) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.asked)
}

// urlResult downloads a done job's result.
func urlResult(t *testing.T, status int, j map[string]any) []byte {
	t.Helper()
	if status != 200 || j["status"] != "done" {
		t.Fatalf("%d %v", status, j)
	}
	return download(t, j["result"].(map[string]any)["url"].(string))
}

// urlImageSize decodes a PNG's size.
func urlImageSize(t *testing.T, data []byte) (int, int) {
	t.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	return cfg.Width, cfg.Height
}

// TestURLToolsRefused: without --allow-private-urls a page on loopback
// is refused at submission, before any request reaches it; a tool that
// takes no file refuses one; a pipeline refuses it as a step.
func TestURLToolsRefused(t *testing.T) {
	site := urlNewSite(t)
	s := startServer(t, "")
	for _, tool := range []string{"url-to-pdf", "url-to-image"} {
		status, body := processRaw(t, s, s.DevKey, tool, formItem{name: "url", value: site.srv.URL + "/"})
		wantProblem(t, status, body, 400, "invalid_parameter", "url", "url")
	}
	status, body := processRaw(t, s, s.DevKey, "url-to-pdf", formItem{name: "url", value: "https://169.254.169.254/latest/meta-data/"})
	wantProblem(t, status, body, 400, "invalid_parameter", "url", "internal")
	status, body = processRaw(t, s, s.DevKey, "url-to-pdf", formItem{name: "url", value: "file:///etc/passwd"})
	wantProblem(t, status, body, 400, "invalid_parameter", "url", "url")
	status, body = processRaw(t, s, s.DevKey, "url-to-pdf", formItem{name: "url", value: "https://user:secret@example.com/"})
	wantProblem(t, status, body, 400, "invalid_parameter", "url", "user name")
	status, body = processRaw(t, s, s.DevKey, "url-to-pdf")
	wantProblem(t, status, body, 400, "invalid_parameter", "url", "required")
	status, body = processRaw(t, s, s.DevKey, "url-to-pdf", formItem{name: "url", value: "https://example.com/"},
		formItem{name: "file", value: "page.html", file: []byte("<p>x</p>")})
	wantProblem(t, status, body, 400, "too_many_files", "", "takes no file")
	status, body = processRaw(t, s, s.DevKey, "pipeline", formItem{name: "steps", value: `[{"tool": "url-to-pdf", "params": {"url": "https://example.com/"}}]`},
		formItem{name: "file", value: "a.pdf", file: onePagePDF()})
	wantProblem(t, status, body, 400, "invalid_parameter", "steps[0].tool", "step")
	// Another tool still needs its file.
	status, body = processRaw(t, s, s.DevKey, "html-to-pdf")
	wantProblem(t, status, body, 400, "missing_file", "", "No file")
	if got := site.requests(); len(got) != 0 {
		t.Errorf("the local site got requests: %v", got)
	}
}

// TestURLToolsLocal: with --allow-private-urls url-to-pdf loads the local
// page through its redirects, with its stylesheet and image, waits for
// the element inserted late, and leaks nothing of the host; url-to-image
// gives a PNG of the asked size, or of the whole page; a page that
// answers 404 fails as fetch_failed.
func TestURLToolsLocal(t *testing.T) {
	site := urlNewSite(t)
	s := startServer(t, "", "--allow-private-urls")

	t.Run("pdf", func(t *testing.T) {
		status, j := processRaw(t, s, s.DevKey, "url-to-pdf", formItem{name: "url", value: site.srv.URL + "/"}, formItem{name: "wait_for", value: "#late"})
		text := pdftotext(t, urlResult(t, status, j))
		for _, want := range []string{"Page served locally", "Inserted after half a second"} {
			if !strings.Contains(text, want) {
				t.Errorf("PDF text lacks %q: %q", want, text)
			}
		}
		if strings.Contains(text, "root:x:0") {
			t.Errorf("the PDF has the host's /etc/passwd: %q", text)
		}
		asked := site.requests()
		for _, want := range []string{"GET /", "GET /hop", "GET /page", "GET /style.css", "GET /pic.png"} {
			if !slices.Contains(asked, want) {
				t.Errorf("the site was not asked %s: %v", want, asked)
			}
		}
		if slices.Contains(asked, "POST /post") {
			t.Errorf("the page's POST reached the site: %v", asked)
		}
		meta := j["meta"].(map[string]any)
		if b, _ := meta["blocked_requests"].(float64); b < 1 || meta["wait_timed_out"] != false {
			t.Errorf("meta %v: want blocked requests, and no timeout", meta)
		}
		if res := j["result"].(map[string]any); res["filename"] != "127.0.0.1.pdf" {
			t.Errorf("result named %v", res["filename"])
		}
		if in, _ := j["inputs"].([]any); len(in) != 0 {
			t.Errorf("inputs %v, want none", j["inputs"])
		}
	})
	t.Run("image", func(t *testing.T) {
		status, j := processRaw(t, s, s.DevKey, "url-to-image", formItem{name: "url", value: site.srv.URL + "/page"},
			formItem{name: "width", value: "800"}, formItem{name: "height", value: "600"})
		if w, h := urlImageSize(t, urlResult(t, status, j)); w != 800 || h != 600 {
			t.Errorf("image %dx%d, want 800x600", w, h)
		}
		status, j = processRaw(t, s, s.DevKey, "url-to-image", formItem{name: "url", value: site.srv.URL + "/page"},
			formItem{name: "width", value: "800"}, formItem{name: "full_page", value: "true"})
		if w, h := urlImageSize(t, urlResult(t, status, j)); w != 800 || h < 2400 {
			t.Errorf("full page %dx%d, want 800 wide and the page's 2400+ px tall", w, h)
		}
	})
	t.Run("client and Idempotency-Key", func(t *testing.T) {
		c := s.client(s.DevKey)
		opts := client.ProcessOptions{Params: map[string]string{"url": site.srv.URL + "/page", "width": "320", "height": "200"},
			Prefer: "wait=60", IdempotencyKey: "url-e2e-replay"}
		first, _, err := c.Process(t.Context(), "url-to-image", nil, opts)
		if err != nil || first.Status != docmill.StatusDone {
			t.Fatalf("%+v, %v", first, err)
		}
		again, _, err := c.Process(t.Context(), "url-to-image", nil, opts)
		if err != nil || again.JobID != first.JobID {
			t.Errorf("the same request again: %+v, %v; want job %s replayed", again, err, first.JobID)
		}
		opts.Params["width"] = "400"
		_, _, err = c.Process(t.Context(), "url-to-image", nil, opts)
		apiError(t, err, 409, "idempotency_conflict")
	})
	t.Run("errors", func(t *testing.T) {
		status, body := processRaw(t, s, s.DevKey, "url-to-pdf", formItem{name: "url", value: site.srv.URL + "/gone"})
		wantProblem(t, status, body, 400, "fetch_failed", "url", "HTTP 404")
		status, body = processRaw(t, s, s.DevKey, "url-to-pdf", formItem{name: "url", value: site.srv.URL + "/page"}, formItem{name: "wait_for", value: "30001"})
		wantProblem(t, status, body, 400, "invalid_parameter", "wait_for", "wait_for")
	})
}

// TestURLToolsWeb drives url-to-pdf's form in the web interface: no file
// picker, an address field, and the PDF of the page as the result.
func TestURLToolsWeb(t *testing.T) {
	site := urlNewSite(t)
	s := startServer(t, "", "--allow-private-urls")
	b := newBrowser(t)
	b.signIn(s.URL, s.DevKey)
	b.openTool("url-to-pdf")
	if got := b.eval(`document.querySelector('#tool-form [data-param="file"]').hidden + " " + document.getElementById("tool-files-title").hidden`); got != "true true" {
		t.Errorf("file picker hidden: %s, want true true", got)
	}
	if got := b.eval(`document.querySelector('#params input[name="url"]').type`); got != "url" {
		t.Errorf("the url field is an input of type %q", got)
	}
	b.run(chromedp.SendKeys(chromedp.CSS(`#params input[name="url"]`), site.srv.URL+"/page"),
		chromedp.Click(chromedp.ID("start")))
	b.wait(`!document.getElementById("result").hidden || !document.getElementById("tool-error").hidden`, 60*time.Second)
	if msg := b.eval(`document.getElementById("tool-error").textContent`); msg != "" {
		t.Fatalf("the form's job failed: %s", msg)
	}
	if text := pdftotext(t, b.download()); !strings.Contains(text, "Page served locally") {
		t.Errorf("PDF text %q lacks the page", text)
	}
	// Back in the catalogue, a tool that takes files shows its picker again.
	b.openTool("html-to-pdf")
	if got := b.eval(`document.querySelector('#tool-form [data-param="file"]').hidden + ""`); got != "false" {
		t.Errorf("html-to-pdf's file picker hidden: %s", got)
	}
}

// TestURLToolsCLI: docmill process runs a tool that takes no file on its
// params alone, and saves the result in the current directory.
func TestURLToolsCLI(t *testing.T) {
	site := urlNewSite(t)
	s := startServer(t, "", "--allow-private-urls")
	dir := t.TempDir()
	t.Chdir(dir)
	runCLI(t, "process", "--url", s.URL, "--key", s.DevKey, "-p", "url="+site.srv.URL+"/page", "url-to-pdf")
	b, err := os.ReadFile(filepath.Join(dir, "127.0.0.1.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if text := pdftotext(t, b); !strings.Contains(text, "Page served locally") {
		t.Errorf("PDF text %q lacks the page", text)
	}
	if list := runCLI(t, "tools", "--url", s.URL); !strings.Contains(list, "no file") {
		t.Errorf("tools does not say url-to-pdf takes no file:\n%s", list)
	}
}
