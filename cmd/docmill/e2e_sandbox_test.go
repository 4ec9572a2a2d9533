package main

import (
	"context"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
)

// TestJailUnavailableFailsClosed: with bubblewrap missing (its path
// pointed at nothing), no engine runs unconfined: every tool is
// unavailable in the catalogue, answers 503 engine_unavailable, and
// /readyz says why; the node itself stays ready for polls and downloads.
func TestJailUnavailableFailsClosed(t *testing.T) {
	s := startServer(t, "", "--bwrap", "/nonexistent/bwrap")
	for _, x := range getJSON(t, s.URL+"/v1/tools", 200)["tools"].([]any) {
		m := x.(map[string]any)
		if m["available"] != false {
			t.Errorf("%s is available without a jail", m["slug"])
		}
	}
	c := s.client(s.DevKey)
	for _, tc := range []struct {
		tool   string
		params map[string]string
	}{
		{"rotate-pdf", map[string]string{"angle": "90"}},
		{"compress-pdf", nil},
		{"pdf-to-text", nil},
	} {
		_, _, err := c.Process(context.Background(), tc.tool, []client.File{file(t, "pdf", "minimal-document.pdf")}, client.ProcessOptions{Params: tc.params})
		apiError(t, err, 503, "engine_unavailable")
	}
	_, _, err := c.Process(context.Background(), "word-to-pdf", []client.File{file(t, "office", "test.docx")}, client.ProcessOptions{})
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
	s := startServer(t, "", "--bwrap", "/nonexistent/bwrap", "--unsafe-no-sandbox")
	c := s.client(s.DevKey)
	for _, tc := range []struct {
		tool   string
		params map[string]string
	}{
		{"rotate-pdf", map[string]string{"angle": "90"}},
		{"pdf-to-text", nil},
	} {
		j, _, err := c.Process(context.Background(), tc.tool, []client.File{file(t, "pdf", "minimal-document.pdf")}, client.ProcessOptions{Params: tc.params, Prefer: "wait=60"})
		if err != nil || j.Status != "done" {
			t.Fatalf("%s: %v %+v", tc.tool, err, j)
		}
	}
	sb := getJSON(t, s.URL+"/readyz", 200)["engines"].(map[string]any)["sandbox"].(map[string]any)
	if sb["available"] != true || !strings.Contains(sb["version"].(string), "UNSAFE") {
		t.Errorf("/readyz sandbox %v, want available and marked UNSAFE", sb)
	}
}
