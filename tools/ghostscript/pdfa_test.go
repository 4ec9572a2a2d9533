package ghostscript_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ghostscript"
	"github.com/docmill/docmill/tools/toolstest"
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
			checkPDFA(t, out.Path, tt.part)
		})
	}
}

// checkPDFA checks that the PDF at path is well formed (qpdf --check) and
// declares PDF/A part part, level B, with its output intent.
func checkPDFA(t *testing.T, path, part string) {
	t.Helper()
	qpdfCheck(t, path)
	qdf := filepath.Join(t.TempDir(), "qdf.pdf")
	if b, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", path, qdf).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --qdf: %v\n%s", err, b)
	}
	raw, err := os.ReadFile(qdf)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pdfaid:part='" + part + "'", "pdfaid:conformance='B'", "/OutputIntents", "/GTS_PDFA1"} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("output lacks %s", want)
		}
	}
}

// TestPDFAOneAfterAnother: documents converted one after another, the
// later ones on a Ghostscript started ahead (a spare, given the output
// intent's prefix on its standard input), are PDF/A with their own pages
// and text, each the document it was given.
func TestPDFAOneAfterAnother(t *testing.T) {
	for i, texts := range [][]string{{"First archive"}, {"Second archive", "page two"}, {"Third archive", "b", "c"}} {
		in := toolstest.WriteTemp(t, "doc.pdf", toolstest.TextPDF(texts...))
		out, err := run(t, "pdf-to-pdfa", map[string]string{"conformance": "2b"}, in)
		if err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		checkPDFA(t, out.Path, "2")
		if out.Meta["pages"] != len(texts) {
			t.Errorf("document %d: meta %v, want %d pages", i+1, out.Meta, len(texts))
		}
		if got := text(t, out.Path); !strings.Contains(got, texts[0]) {
			t.Errorf("document %d reads %q", i+1, got)
		}
	}
}

// TestPDFABadInput: a file that needs a password, asked about once
// Ghostscript has failed on it, says so; a PDF without pages and a file
// that is not a PDF are invalid_document too.
func TestPDFABadInput(t *testing.T) {
	plain := toolstest.WriteTemp(t, "plain.pdf", toolstest.TextPDF("Secret"))
	for name, tt := range map[string]struct {
		path, message string
	}{
		"needs a password": {toolstest.WriteTemp(t, "enc.pdf", toolstest.Encrypt(t, plain)), "password"},
		"no pages":         {toolstest.WriteTemp(t, "empty.pdf", []byte("%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n%%EOF\n")), ""},
		"not a pdf":        {toolstest.WriteTemp(t, "a.pdf", []byte("just some text\n")), ""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := run(t, "pdf-to-pdfa", nil, tt.path)
			wantCode(t, err, docmill.CodeInvalidDocument)
			if msg := docmill.AsError(err).Message; !strings.Contains(msg, tt.message) || (tt.message == "" && strings.Contains(msg, "password")) {
				t.Errorf("message %q, want one about %q", msg, tt.message)
			}
		})
	}
}

// TestPDFAStep: the conversion as the print tools take it writes the
// conformance asked for, text kept; a conformance pdf-to-pdfa does not
// offer is the calling tool's fault.
func TestPDFAStep(t *testing.T) {
	step := ghostscript.PDFAStep(gsEngine, qpdfEngine)
	if !step.IsAvailable() {
		toolstest.Lacking(t, "pdfa step: engines not installed, or no jail")
	}
	src := toolstest.WriteTemp(t, "printed.pdf", toolstest.TextPDF("Printed by a browser"))
	convert := func(conformance string) (*docmill.RunOutput, error) {
		dir := t.TempDir()
		in := &docmill.RunInput{Params: docmill.Params{"conformance": conformance}, WorkDir: dir, Files: []docmill.LocalFile{inputFile(t, dir, src)}}
		return step.Invoke(context.Background(), in)
	}
	out, err := convert("3b")
	if err != nil {
		t.Fatal(err)
	}
	meta, err := exec.Command("pdfinfo", "-meta", out.Path).Output()
	if err != nil || !bytes.Contains(meta, []byte("pdfaid:part='3'")) {
		t.Errorf("pdfinfo -meta: %v: no PDF/A-3 claim in %.300q", err, meta)
	}
	if got := text(t, out.Path); !bytes.Contains([]byte(got), []byte("Printed by a browser")) {
		t.Errorf("text %q", got)
	}
	if _, err := convert("2u"); docmill.ErrorCode(err) != docmill.CodeInternal {
		t.Errorf("conformance 2u: %v, want internal", err)
	}
}
