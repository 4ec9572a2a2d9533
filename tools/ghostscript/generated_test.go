package ghostscript_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// TestLinearizeRepairGenerated: linearize-pdf and repair-pdf on generated
// PDFs, TestLinearize's and TestRepair's checks without the corpus: a
// linearized copy qpdf finds without errors, with the text kept; a
// healthy file and one whose startxref points nowhere, repaired by qpdf.
func TestLinearizeRepairGenerated(t *testing.T) {
	four := toolstest.WriteTemp(t, "four-pages.pdf", toolstest.TextPDF("Page one", "Page two", "Page three", "Page four"))
	out, err := run(t, "linearize-pdf", nil, four)
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["pages"] != 4 || out.Filename != "four-pages-linearized.pdf" {
		t.Errorf("meta %v, filename %q", out.Meta, out.Filename)
	}
	if check, err := exec.Command("qpdf", "--check-linearization", out.Path).CombinedOutput(); err != nil || !strings.Contains(string(check), "no linearization errors") {
		t.Fatalf("qpdf --check-linearization: %v\n%s", err, check)
	}
	if got, want := text(t, out.Path), text(t, four); got != want {
		t.Errorf("text changed:\n%q\nwant\n%q", got, want)
	}

	one := toolstest.TextPDF("A page to repair")
	for _, tc := range []struct {
		name, path string
		pages      int
	}{
		{"healthy", four, 4},
		{"broken startxref", toolstest.WriteTemp(t, "xref.pdf", bytes.Replace(one, []byte("startxref\n"), []byte("startxref\n9"), 1)), 1},
	} {
		out, err := run(t, "repair-pdf", nil, tc.path)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if out.Meta["engine"] != "qpdf" || out.Meta["pages"] != tc.pages || !strings.HasSuffix(out.Filename, "-repaired.pdf") {
			t.Errorf("%s: meta %v, filename %q", tc.name, out.Meta, out.Filename)
		}
		qpdfCheck(t, out.Path)
		if text(t, out.Path) == "" {
			t.Errorf("%s: repaired file has no text", tc.name)
		}
	}
}
