package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
)

// toolParams is a tool to run and its params.
type toolParams struct {
	tool   string
	params map[string]string
}

// TestJailUnavailableFailsClosed: with bubblewrap missing (its path
// pointed at nothing), no engine runs unconfined: every tool is
// unavailable in the catalogue, answers 503 engine_unavailable, and
// /readyz says why; the node itself stays ready for polls and downloads.
func TestJailUnavailableFailsClosed(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "--bwrap", "/nonexistent/bwrap")
	for _, x := range getJSON(t, s.URL+"/v1/tools", 200)["tools"].([]any) {
		m := x.(map[string]any)
		if m["available"] != false {
			t.Errorf("%s is available without a jail", m["slug"])
		}
	}
	c := s.client(s.DevKey)
	for _, tc := range []toolParams{
		{"rotate-pdf", map[string]string{"angle": "90"}},
		{"compress-pdf", nil},
		{"pdf-to-text", nil},
	} {
		_, _, err := c.Process(context.Background(), tc.tool, []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{Params: tc.params})
		apiError(t, err, 503, "engine_unavailable")
	}
	_, _, err := c.Process(context.Background(), "word-to-pdf", []client.File{pdfFile("generated.docx", zipOf(t, sampleDocx))}, client.ProcessOptions{})
	apiError(t, err, 503, "engine_unavailable")

	ready := getJSON(t, s.URL+"/readyz", 200)
	sb := ready["engines"].(map[string]any)["sandbox"].(map[string]any)
	if sb["available"] != false || !strings.Contains(sb["version"].(string), "bubblewrap") {
		t.Errorf("/readyz sandbox %v, want unavailable naming bubblewrap", sb)
	}
}

// TestUnsafeNoSandbox: --unsafe-no-sandbox lets engines run unconfined
// when the jail cannot be set up, and /readyz shows it.
func TestUnsafeNoSandbox(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "--bwrap", "/nonexistent/bwrap", "--unsafe-no-sandbox")
	c := s.client(s.DevKey)
	for _, tc := range []toolParams{
		{"rotate-pdf", map[string]string{"angle": "90"}},
		{"pdf-to-text", nil},
	} {
		j, _, err := c.Process(context.Background(), tc.tool, []client.File{pdfFile("one-page.pdf", onePagePDF())}, client.ProcessOptions{Params: tc.params, Prefer: "wait=60"})
		if err != nil || j.Status != "done" {
			t.Fatalf("%s: %v %+v", tc.tool, err, j)
		}
	}
	sb := getJSON(t, s.URL+"/readyz", 200)["engines"].(map[string]any)["sandbox"].(map[string]any)
	if sb["available"] != true || !strings.Contains(sb["version"].(string), "UNSAFE") {
		t.Errorf("/readyz sandbox %v, want available and marked UNSAFE", sb)
	}
}

// TestDamagedPDFIsTheInputsFault: a PDF whose body is noise is a client
// error for every PDF tool, at once (no retries: well under River's
// backoff), never a 5xx; and a page that never stops running is
// processing_timeout, not internal.
func TestDamagedPDFIsTheInputsFault(t *testing.T) {
	t.Parallel()
	noise := make([]byte, 3000)
	if _, err := rand.Read(noise); err != nil {
		t.Fatal(err)
	}
	damaged := append([]byte("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"), noise...)
	damaged = append(damaged, "\ntrailer << /Root 1 0 R >>\n%%EOF\n"...)
	s := startServer(t, "", "--tool-timeout", "html-to-pdf=4s")
	c := s.client(s.DevKey)
	for _, tool := range []string{"pdf-to-jpg", "pdf-to-png", "pdf-to-text", "ocr-pdf", "compress-pdf", "pdf-to-pdfa", "rotate-pdf", "watermark-pdf", "split-pdf"} {
		params := map[string]string{}
		if tool == "watermark-pdf" {
			params["text"] = "draft"
		}
		start := time.Now()
		j, _, err := c.Process(context.Background(), tool, []client.File{{Name: "c.pdf", Body: bytes.NewReader(damaged)}}, client.ProcessOptions{Params: params, Prefer: "wait=60"})
		if err == nil && !j.Finished() {
			j, err = c.Wait(context.Background(), j.JobID, time.Second)
		}
		var code string
		var status int
		switch {
		case err != nil:
			var e *client.Problem
			if !errors.As(err, &e) {
				t.Fatalf("%s: %v", tool, err)
			}
			code, status = string(e.Code), e.StatusCode
		case j.Status == "failed":
			code, status = string(j.Error.Code), 400
		default:
			t.Logf("%s: %s (the engine made something of it)", tool, j.Status)
			continue
		}
		if status >= 500 || code != "invalid_document" {
			t.Errorf("%s: %d %s, want a 4xx invalid_document", tool, status, code)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("%s: took %s: retried?", tool, d)
		}
	}

	page := "<html><body><script>while(true){}</script></body></html>"
	_, _, err := c.Process(context.Background(), "html-to-pdf", []client.File{{Name: "loop.html", Body: strings.NewReader(page)}}, client.ProcessOptions{Prefer: "wait=60"})
	apiError(t, err, 422, "processing_timeout")
}
