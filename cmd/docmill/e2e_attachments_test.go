package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestExtractAttachmentsE2E checks extract-attachments' zip against the
// files poppler's pdfdetach saves from the same PDF.
func TestExtractAttachmentsE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	j, data := runTool(t, c, "extract-attachments", []client.File{file(t, "pdf", "with-attachment.pdf")}, nil)
	if j.Result.ContentType != "application/zip" || j.Result.Filename != "with-attachment-attachments.zip" {
		t.Fatalf("result %+v", j.Result)
	}
	got := toolstest.Unzip(t, data)

	dir := t.TempDir()
	if out, err := exec.Command("pdfdetach", "-saveall", "-o", dir, corpus(t, "pdf", "with-attachment.pdf")).CombinedOutput(); err != nil {
		t.Fatalf("pdfdetach: %v\n%s", err, out)
	}
	saved, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved) == 0 || len(saved) != len(got) {
		t.Fatalf("zip has %d entries, pdfdetach saved %d", len(got), len(saved))
	}
	for _, e := range saved {
		want, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[e.Name()], want) {
			t.Fatalf("%s differs from pdfdetach's (%d vs %d bytes)", e.Name(), len(got[e.Name()]), len(want))
		}
	}

	// No attachments: an empty zip.
	j, data = runTool(t, c, "extract-attachments", []client.File{file(t, "pdf", fourPages)}, nil)
	if len(toolstest.Unzip(t, data)) != 0 || j.Meta["files"] != float64(0) {
		t.Fatalf("no attachments: %d entries, meta %v", len(toolstest.Unzip(t, data)), j.Meta)
	}
}
