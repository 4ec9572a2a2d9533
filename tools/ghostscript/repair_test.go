package ghostscript_test

import (
	"bytes"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

func TestRepair(t *testing.T) {
	gdoc := toolstest.ReadCorpus(t, "pdf", "google-doc-document.pdf")
	writer := toolstest.ReadCorpus(t, "pdf", "002-trivial-libre-office-writer.pdf")
	// A wrong startxref offset: qpdf reconstructs the table (exit 3).
	badXref := bytes.Replace(writer, []byte("startxref\n"), []byte("startxref\n9"), 1)
	tests := []struct {
		name, path, engine string
		pages              int
	}{
		{"healthy", corpusPDF(t, "pdflatex-4-pages.pdf"), "qpdf", 4},
		{"broken startxref", toolstest.WriteTemp(t, "xref.pdf", badXref), "qpdf", 1},
		// Cut at 70%: the trailer is gone and qpdf gives up; Ghostscript
		// finds the page objects by scanning.
		{"truncated", toolstest.WriteTemp(t, "cut.pdf", gdoc[:len(gdoc)*7/10]), "ghostscript", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(t, "repair-pdf", nil, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if out.Meta["engine"] != tt.engine || out.Meta["pages"] != tt.pages {
				t.Errorf("meta = %v, want engine %s, %d pages", out.Meta, tt.engine, tt.pages)
			}
			if !strings.HasSuffix(out.Filename, "-repaired.pdf") {
				t.Errorf("filename = %q", out.Filename)
			}
			qpdfCheck(t, out.Path)
			if text(t, out.Path) == "" {
				t.Error("repaired file has no text")
			}
		})
	}
}

func TestRepairBadInput(t *testing.T) {
	latex := toolstest.ReadCorpus(t, "pdf", "pdflatex-4-pages.pdf")
	tests := []struct{ name, path string }{
		{"not a pdf", toolstest.WriteTemp(t, "a.pdf", []byte("just some text\n"))},
		// pdflatex keeps its catalog and pages in an object stream near
		// the end: cut at 70%, no engine can rebuild a page.
		{"truncated object streams", toolstest.WriteTemp(t, "cut.pdf", latex[:len(latex)*7/10])},
		{"encrypted", corpusPDF(t, "libreoffice-writer-password.pdf")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, "repair-pdf", nil, tt.path)
			wantCode(t, err, docmill.CodeInvalidDocument)
		})
	}
}
