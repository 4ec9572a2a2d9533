package pdfops_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// uncompressed returns the PDF at path as qpdf writes it without object
// streams or compressed streams, so that its names can be searched.
func uncompressed(t *testing.T, path string) []byte {
	t.Helper()
	toolstest.Need(t, "qpdf")
	out := filepath.Join(t.TempDir(), "qdf.pdf")
	if b, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", path, out).CombinedOutput(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Fatalf("qpdf --qdf: %v\n%s", err, b)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSanitize(t *testing.T) {
	in := toolstest.WriteTemp(t, "active.pdf", toolstest.ActivePDF())
	active := [][]byte{[]byte("/JavaScript"), []byte("/JS"), []byte("/EmbeddedFile"), []byte("/Launch"), []byte("/GoToR"),
		[]byte("/GoToE"), []byte("file:"), []byte("/FileAttachment"), []byte("/OpenAction"), []byte("/Metadata"), []byte("Tester")}
	before := uncompressed(t, in)
	for _, name := range active {
		if !bytes.Contains(before, name) {
			t.Fatalf("the sample lacks %s", name)
		}
	}
	out, err := run(t, "sanitize-pdf", nil, in)
	if err != nil {
		t.Fatal(err)
	}
	after := uncompressed(t, out.Path)
	for _, name := range active {
		if bytes.Contains(after, name) {
			t.Errorf("%s left in the output", name)
		}
	}
	// What is not active stays: the web link, the form field, the note.
	for _, name := range [][]byte{[]byte("https://example.com/)"), []byte("/Widget"), []byte("(A note)")} {
		if !bytes.Contains(after, name) {
			t.Errorf("%s removed", name)
		}
	}
	want := map[string]any{"pages": 2, "javascript": 4, "open_action": 1, "launch_actions": 1, "file_links": 3, "embedded_files": 3, "metadata": 3}
	for k, v := range want {
		if out.Meta[k] != v {
			t.Errorf("meta %s = %v, want %v (meta %v)", k, out.Meta[k], v, out.Meta)
		}
	}
	if out.Filename != "active-sanitized.pdf" {
		t.Errorf("filename %q", out.Filename)
	}
}

// TestSanitizeSwitches checks that each switch turned off keeps its kind.
func TestSanitizeSwitches(t *testing.T) {
	in := toolstest.WriteTemp(t, "active.pdf", toolstest.ActivePDF())
	for param, kept := range map[string]string{
		"javascript": "/JavaScript", "open_action": "/OpenAction", "launch_actions": "/Launch",
		"embedded_files": "/EmbeddedFile", "file_links": "/GoToR", "metadata": "/Metadata",
	} {
		out, err := run(t, "sanitize-pdf", map[string]string{param: "false"}, in)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(uncompressed(t, out.Path), []byte(kept)) {
			t.Errorf("%s=false: %s removed", param, kept)
		}
		if out.Meta[param] != 0 {
			t.Errorf("%s=false: meta %v", param, out.Meta)
		}
	}
}

func TestSanitizeCorpus(t *testing.T) {
	out, err := run(t, "sanitize-pdf", nil, pdfCorpus(t)+"with-attachment.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if b := uncompressed(t, out.Path); bytes.Contains(b, []byte("/EmbeddedFile")) {
		t.Error("embedded file left")
	}
	if out.Meta["embedded_files"] == 0 {
		t.Errorf("meta %v", out.Meta)
	}
}

func TestSanitizeBadInput(t *testing.T) {
	wantBadInputsRefused(t, "sanitize-pdf", nil)
	// A script reached only through a chain of actions is removed; the
	// rest of the chain stays. (pdfcpu's validation refuses a cyclic
	// chain as a damaged file.)
	cyclic := toolstest.WriteTemp(t, "cyclic.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
		"<< /S /Named /N /NextPage /Next [5 0 R] >>",
		"<< /S /Named /N /PrevPage /Next [6 0 R] >>",
		"<< /S /JavaScript /JS (app.alert\\(1\\)) >>",
	))
	out, err := run(t, "sanitize-pdf", map[string]string{"open_action": "false"}, cyclic)
	if err != nil {
		t.Fatal(err)
	}
	if b := uncompressed(t, out.Path); bytes.Contains(b, []byte("/JS")) || bytes.Contains(b, []byte("/JavaScript")) || !bytes.Contains(b, []byte("/OpenAction")) {
		t.Errorf("output:\n%s", b)
	}
	if out.Meta["javascript"] != 1 {
		t.Errorf("meta %v", out.Meta)
	}
}
