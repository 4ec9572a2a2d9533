package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/internal/testsite"
)

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
	t.Parallel()
	site := testsite.New(t)
	s := startServer(t, "")
	for _, tool := range []string{"url-to-pdf", "url-to-image"} {
		status, body := processRaw(t, s, s.DevKey, tool, formItem{name: "url", value: site.URL + "/"})
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
	if got := site.Requests(); len(got) != 0 {
		t.Errorf("the local site got requests: %v", got)
	}
}

// TestURLToolsLocal: with --allow-private-urls url-to-pdf loads the local
// page through its redirects, with its stylesheet and image, waits for
// the element inserted late, and leaks nothing of the host; url-to-image
// gives a PNG of the asked size, or of the whole page; a page that
// answers 404 fails as fetch_failed.
func TestURLToolsLocal(t *testing.T) {
	t.Parallel()
	site := testsite.New(t)
	s := startServer(t, "", "--allow-private-urls")

	t.Run("pdf", func(t *testing.T) {
		status, j := processRaw(t, s, s.DevKey, "url-to-pdf", formItem{name: "url", value: site.URL + "/"}, formItem{name: "wait_for", value: testsite.LateSelector})
		text := pdftotext(t, urlResult(t, status, j))
		for _, want := range []string{testsite.Heading, testsite.Late} {
			if !strings.Contains(text, want) {
				t.Errorf("PDF text lacks %q: %q", want, text)
			}
		}
		if strings.Contains(text, "root:x:0") {
			t.Errorf("the PDF has the host's /etc/passwd: %q", text)
		}
		asked := site.Requests()
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
		status, j := processRaw(t, s, s.DevKey, "url-to-image", formItem{name: "url", value: site.URL + "/page"},
			formItem{name: "width", value: "800"}, formItem{name: "height", value: "600"})
		if w, h := urlImageSize(t, urlResult(t, status, j)); w != 800 || h != 600 {
			t.Errorf("image %dx%d, want 800x600", w, h)
		}
		status, j = processRaw(t, s, s.DevKey, "url-to-image", formItem{name: "url", value: site.URL + "/page"},
			formItem{name: "width", value: "800"}, formItem{name: "full_page", value: "true"})
		if w, h := urlImageSize(t, urlResult(t, status, j)); w != 800 || h < testsite.PageHeight {
			t.Errorf("full page %dx%d, want 800 wide and the page's %d+ px tall", w, h, testsite.PageHeight)
		}
	})
	t.Run("client and Idempotency-Key", func(t *testing.T) {
		c := s.client(s.DevKey)
		opts := client.ProcessOptions{Params: map[string]string{"url": site.URL + "/page", "width": "320", "height": "200"},
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
		status, body := processRaw(t, s, s.DevKey, "url-to-pdf", formItem{name: "url", value: site.URL + "/gone"})
		wantProblem(t, status, body, 400, "fetch_failed", "url", "HTTP 404")
		status, body = processRaw(t, s, s.DevKey, "url-to-pdf", formItem{name: "url", value: site.URL + "/page"}, formItem{name: "wait_for", value: "30001"})
		wantProblem(t, status, body, 400, "invalid_parameter", "wait_for", "wait_for")
	})
}

// TestURLToolsWeb drives url-to-pdf's form in the web interface: no file
// picker, an address field, and the PDF of the page as the result.
func TestURLToolsWeb(t *testing.T) {
	t.Parallel()
	site := testsite.New(t)
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
	b.run(chromedp.SendKeys(chromedp.CSS(`#params input[name="url"]`), site.URL+"/page"),
		chromedp.Click(chromedp.ID("start")))
	b.wait(`!document.getElementById("result").hidden || !document.getElementById("tool-error").hidden`, 60*time.Second)
	if msg := b.eval(`document.getElementById("tool-error").textContent`); msg != "" {
		t.Fatalf("the form's job failed: %s", msg)
	}
	if text := pdftotext(t, b.download()); !strings.Contains(text, testsite.Heading) {
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
	// Serial: what it tests is the current directory (t.Chdir).
	site := testsite.New(t)
	s := startServer(t, "", "--allow-private-urls")
	dir := t.TempDir()
	t.Chdir(dir)
	runCLI(t, "process", "--url", s.URL, "--key", s.DevKey, "-p", "url="+site.URL+"/page", "url-to-pdf")
	b, err := os.ReadFile(filepath.Join(dir, "127.0.0.1.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if text := pdftotext(t, b); !strings.Contains(text, testsite.Heading) {
		t.Errorf("PDF text %q lacks the page", text)
	}
	if list := runCLI(t, "tools", "--url", s.URL); !strings.Contains(list, "no file") {
		t.Errorf("tools does not say url-to-pdf takes no file:\n%s", list)
	}
}
