package pdfops_test

import (
	"bytes"
	"github.com/docmill/docmill/tools/toolstest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// readZip returns the entries of the zip at path by name.
func readZip(t *testing.T, path string) map[string][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return toolstest.Unzip(t, b)
}

// TestExtractAttachments checks the zip against the files poppler's
// pdfdetach saves from the same PDF.
func TestExtractAttachments(t *testing.T) {
	in := pdfCorpus(t) + "with-attachment.pdf"
	out, err := run(t, "extract-attachments", nil, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.ContentType != "application/zip" || out.Filename != "with-attachment-attachments.zip" || out.Meta["files"] != 1 {
		t.Errorf("output %q %q, meta %v", out.ContentType, out.Filename, out.Meta)
	}
	got := readZip(t, out.Path)
	toolstest.Need(t, "pdfdetach")
	dir := t.TempDir()
	if b, err := exec.Command("pdfdetach", "-saveall", "-o", dir, in).CombinedOutput(); err != nil {
		t.Fatalf("pdfdetach: %v\n%s", err, b)
	}
	saved, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved) != len(got) {
		t.Fatalf("zip has %d entries, pdfdetach saved %d", len(got), len(saved))
	}
	for _, e := range saved {
		want, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[e.Name()], want) {
			t.Errorf("%s: %d bytes in the zip, pdfdetach saved %d", e.Name(), len(got[e.Name()]), len(want))
		}
	}
}

func TestExtractAttachmentsNone(t *testing.T) {
	out, err := run(t, "extract-attachments", nil, fourPagesPDF(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := readZip(t, out.Path); len(got) != 0 || out.Meta["files"] != 0 {
		t.Errorf("entries %d, meta %v", len(got), out.Meta)
	}
}

func TestExtractAttachmentsBadInput(t *testing.T) {
	wantBadInputsRefused(t, "extract-attachments", nil)
}
