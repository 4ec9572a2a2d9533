package ghostscript_test

import (
	"os/exec"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestLinearize checks the output with qpdf's own linearization check and
// that the text survives; a file that is not a PDF, and one that needs a
// password, are invalid_document.
func TestLinearize(t *testing.T) {
	out, err := run(t, "linearize-pdf", nil, corpusPDF(t, "pdflatex-4-pages.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["pages"] != 4 || out.Filename != "pdflatex-4-pages-linearized.pdf" {
		t.Errorf("meta %v, filename %q", out.Meta, out.Filename)
	}
	check, err := exec.Command("qpdf", "--check-linearization", out.Path).CombinedOutput()
	if err != nil || !strings.Contains(string(check), "no linearization errors") {
		t.Fatalf("qpdf --check-linearization: %v\n%s", err, check)
	}
	if got, want := text(t, out.Path), text(t, corpusPDF(t, "pdflatex-4-pages.pdf")); got != want {
		t.Errorf("text changed:\n%q\nwant\n%q", got, want)
	}

	_, err = run(t, "linearize-pdf", nil, toolstest.WriteTemp(t, "x.pdf", []byte("%PDF-1.4\nnot a pdf at all")))
	wantCode(t, err, docmill.CodeInvalidDocument)
	_, err = run(t, "linearize-pdf", nil, corpusPDF(t, "libreoffice-writer-password.pdf"))
	wantCode(t, err, docmill.CodeInvalidDocument)
}
