package ghostscript_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	docmill "github.com/docmill/docmill"
)

func TestPDFA(t *testing.T) {
	tests := []struct {
		file, conformance, part string
	}{
		{"pdflatex-4-pages.pdf", "", "2"},
		{"pdflatex-4-pages.pdf", "1b", "1"},
		{"google-doc-document.pdf", "2b", "2"},
		{"cmyk-image.pdf", "3b", "3"},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.conformance, func(t *testing.T) {
			t.Parallel()
			params := map[string]string{}
			if tt.conformance != "" {
				params["conformance"] = tt.conformance
			}
			out, err := run(t, "pdf-to-pdfa", params, corpusPDF(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			qpdfCheck(t, out.Path)
			qdf := filepath.Join(t.TempDir(), "qdf.pdf")
			if b, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", out.Path, qdf).CombinedOutput(); err != nil {
				t.Fatalf("qpdf --qdf: %v\n%s", err, b)
			}
			raw, err := os.ReadFile(qdf)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"pdfaid:part='" + tt.part + "'", "pdfaid:conformance='B'", "/OutputIntents", "/GTS_PDFA1"} {
				if !bytes.Contains(raw, []byte(want)) {
					t.Errorf("output lacks %s", want)
				}
			}
		})
	}
}

func TestPDFABadInput(t *testing.T) {
	_, err := run(t, "pdf-to-pdfa", nil, corpusPDF(t, "libreoffice-writer-password.pdf"))
	wantCode(t, err, docmill.CodeInvalidDocument)
}
