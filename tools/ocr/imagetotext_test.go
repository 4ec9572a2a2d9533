package ocr_test

import (
	"os"
	"strings"
	"sync"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ocr"
	"github.com/docmill/docmill/tools/toolstest"
)

// textTool builds image-to-text on the real engines once.
var textTool = sync.OnceValue(func() *docmill.Tool {
	opts := sandbox.Options{View: sandbox.View{ReadOnly: ocr.DataPaths}}
	return ocr.TextTool(
		sandbox.Find("tesseract", []string{"--version"}, opts),
		sandbox.Find("pdftoppm", []string{"-v"}, opts),
		docmill.Limits{}, ocr.Steps{PrepareImage: prepareImage()}, "",
	)
})

// TestTextOfPDFPages reads a multi-page PDF: one document with a page
// separator between pages, each page's words in it.
func TestTextOfPDFPages(t *testing.T) {
	tl := available(t, textTool())
	pdf := toolstest.WriteTemp(t, "two.pdf", toolstest.TextPDF("Quartz harbour lantern", "Violet meadow compass"))
	out, err := run(t, tl, map[string]string{"lang": "eng"}, pdf, "application/pdf")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["pages"] != 2 || strings.Count(string(b), "\f") != 1 {
		t.Fatalf("meta %v, %d form feeds", out.Meta, strings.Count(string(b), "\f"))
	}
	first, second, _ := strings.Cut(string(b), "\f")
	wantWords(t, first, "Quartz", "harbour", "lantern")
	wantWords(t, second, "Violet", "meadow", "compass")
}

// TestTextOfDamagedPDF: a PDF cut short is the client's fault, and the
// message names no path.
func TestTextOfDamagedPDF(t *testing.T) {
	tl := available(t, textTool())
	b, err := os.ReadFile(textPDF(t))
	if err != nil {
		t.Fatal(err)
	}
	cut := t.TempDir() + "/cut.pdf"
	if err := os.WriteFile(cut, b[:200], 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = run(t, tl, nil, cut, "application/pdf")
	wantCode(t, err, docmill.CodeInvalidDocument)
}

// TestTextPagesLimit: image-to-text holds a PDF to its run's
// Limits.ImageToTextPages: with 1, two pages are refused as a processing
// limit before any is read by OCR.
func TestTextPagesLimit(t *testing.T) {
	tl := available(t, textTool())
	pdf := toolstest.WriteTemp(t, "two.pdf", toolstest.TextPDF("Quartz harbour lantern", "Violet meadow compass"))
	_, err := runLimited(t, tl, docmill.Limits{ImageToTextPages: 1}, map[string]string{"lang": "eng"}, pdf, "application/pdf")
	if e := wantCode(t, err, docmill.CodeInvalidDocument); !strings.Contains(e.Message, "more than 1 pages") {
		t.Errorf("message = %q", e.Message)
	}
}
