package pdfops_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// qpdfAttachments returns the names qpdf lists as a PDF's attachments.
func qpdfAttachments(t *testing.T, path string) []string {
	t.Helper()
	out, err := exec.Command("qpdf", "--list-attachments", path).Output()
	if err != nil {
		t.Fatalf("qpdf --list-attachments: %v", err)
	}
	var names []string
	for line := range strings.Lines(string(out)) {
		if name, _, ok := strings.Cut(line, " -> "); ok {
			names = append(names, strings.TrimSpace(name))
		}
	}
	return names
}

// qpdfAttachment returns an attachment's bytes as qpdf extracts them.
func qpdfAttachment(t *testing.T, path, name string) []byte {
	t.Helper()
	out, err := exec.Command("qpdf", "--show-attachment="+name, path).Output()
	if err != nil {
		t.Fatalf("qpdf --show-attachment=%s: %v", name, err)
	}
	return out
}

func TestAddAttachments(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{"notes.txt": []byte("first notes\n"), "data.bin": toolstest.Noise(5000)}
	write := func(sub, name string, b []byte) string {
		p := filepath.Join(dir, sub, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notes2 := []byte("second notes, same name\n")
	in := pdfCorpus(t) + "with-attachment.pdf"
	existing := qpdfAttachments(t, in)
	out, err := run(t, "add-attachments", map[string]string{"description": "Sent with the report"},
		in, write("a", "notes.txt", files["notes.txt"]), write("a", "data.bin", files["data.bin"]), write("b", "notes.txt", notes2))
	if err != nil {
		t.Fatal(err)
	}
	if out.Filename != "with-attachment-attachments.pdf" || out.Meta["files"] != 3 {
		t.Errorf("output %q, meta %v", out.Filename, out.Meta)
	}
	files["notes-2.txt"] = notes2
	got := qpdfAttachments(t, out.Path)
	if len(got) != len(existing)+len(files) {
		t.Fatalf("qpdf lists %v; the input had %v", got, existing)
	}
	for name, want := range files {
		if b := qpdfAttachment(t, out.Path, name); !bytes.Equal(b, want) {
			t.Errorf("%s: qpdf extracts %d bytes, want %d", name, len(b), len(want))
		}
	}
	info, err := exec.Command("qpdf", "--list-attachments", "--verbose", out.Path).Output()
	if err != nil || !strings.Contains(string(info), "Sent with the report") {
		t.Errorf("description not listed (%v):\n%s", err, info)
	}
}

func TestAddAttachmentsRefused(t *testing.T) {
	txt := toolstest.WriteTemp(t, "notes.txt", []byte("notes\n"))
	// The first file is not a PDF.
	tl := tool(t, "add-attachments")
	dir := t.TempDir()
	in := &docmill.RunInput{Params: docmill.Params{}, WorkDir: dir, Files: []docmill.LocalFile{
		{Path: txt, Filename: "notes.txt", ContentType: "text/plain", Size: 6},
		{Path: fourPagesPDF(t), Filename: "a.pdf", ContentType: "application/pdf", Size: 1},
	}}
	out, err := tl.Invoke(context.Background(), in)
	wantRefused(t, out, err, docmill.CodeUnsupportedFileType, "notes.txt")
	wantBadInputsRefused(t, "add-attachments", nil, txt)
}
