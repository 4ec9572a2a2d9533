package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// qdfBytes returns data as qpdf rewrites it with every stream and object
// uncompressed, so that names can be searched in it.
func qdfBytes(t *testing.T, data []byte) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "qdf.pdf")
	if b, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", toolstest.WriteTemp(t, "in.pdf", data), out).CombinedOutput(); err != nil && exitCode(err) != 3 {
		t.Fatalf("qpdf --qdf: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSanitizeE2E checks sanitize-pdf's output with qpdf: none of the
// active content's names are left in it, and its attachments are gone;
// pdftotext reads the same text as before.
func TestSanitizeE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	names := []string{"/JavaScript", "/JS", "/EmbeddedFile", "/Launch", "/GoToR", "/GoToE", "file:///", "/OpenAction", "/Metadata"}
	t.Run("active", func(t *testing.T) {
		in := toolstest.ActivePDF()
		for _, n := range names {
			if !bytes.Contains(qdfBytes(t, in), []byte(n)) {
				t.Fatalf("the sample lacks %s", n)
			}
		}
		j, data := runTool(t, c, "sanitize-pdf", []client.File{{Name: "active.pdf", Body: bytes.NewReader(in)}}, nil)
		qdf := qdfBytes(t, data)
		for _, n := range names {
			if bytes.Contains(qdf, []byte(n)) {
				t.Errorf("qpdf finds %s in the output", n)
			}
		}
		if !bytes.Contains(qdf, []byte("https://example.com/)")) {
			t.Error("the web link is gone")
		}
		if j.Meta["javascript"] != float64(4) || j.Meta["embedded_files"] != float64(3) || j.Meta["file_links"] != float64(3) {
			t.Errorf("meta %v", j.Meta)
		}
		if got := readQPDF(t, data).annotSubtypes(); strings.Join(got[1], " ") != "/Link /Link /Link /Link" {
			t.Errorf("page 2 annotations %v: the links stay, the file attachment goes", got)
		}
		for p := 1; p <= 2; p++ {
			if got, want := pageText(t, data, p), pageText(t, in, p); got != want {
				t.Errorf("page %d text %q, want %q", p, got, want)
			}
		}
		info := popplerInfo(t, data)
		if info["Title"] != "" || info["Author"] != "" || info["Metadata Stream"] != "no" || info["JavaScript"] != "no" {
			t.Errorf("pdfinfo reads metadata %v", info)
		}
	})
	t.Run("attachment", func(t *testing.T) {
		in := toolstest.ReadCorpus(t, "pdf", "with-attachment.pdf")
		j, data := runTool(t, c, "sanitize-pdf", []client.File{file(t, "pdf", "with-attachment.pdf")}, map[string]string{"metadata": "false"})
		if bytes.Contains(qdfBytes(t, data), []byte("/EmbeddedFile")) || j.Meta["embedded_files"] == float64(0) {
			t.Errorf("embedded file left; meta %v", j.Meta)
		}
		out, err := exec.Command("qpdf", "--list-attachments", toolstest.WriteTemp(t, "s.pdf", data)).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "no embedded files") {
			t.Errorf("qpdf --list-attachments: %v\n%s", err, out)
		}
		if got, want := pageText(t, data, 1), pageText(t, in, 1); got != want {
			t.Errorf("text %q, want %q", got, want)
		}
	})
	t.Run("damaged", func(t *testing.T) {
		_, _, err := c.Process(context.Background(), "sanitize-pdf", []client.File{{Name: "x.pdf", Body: strings.NewReader("%PDF-1.4\nnot a pdf at all")}}, client.ProcessOptions{})
		apiError(t, err, 400, "invalid_document")
	})
}
