package poppler

import (
	"bytes"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

func TestRemoveBlankPages(t *testing.T) {
	tool := moreTool(t, "remove-blank-pages")
	src := toolstest.WriteTemp(t, "doc.pdf", toolstest.TextPDF("One", "", "Three", "", "", "Six"))
	out := mustRunTool(t, tool, src, nil)
	if out.Meta["removed"] != 3 || !reflect.DeepEqual(out.Meta["removed_pages"], []int{2, 4, 5}) ||
		out.Meta["pages"] != 3 || out.Meta["input_pages"] != 6 || out.Filename != "doc-no-blank.pdf" {
		t.Fatalf("meta %v, filename %q", out.Meta, out.Filename)
	}
	text, err := exec.Command("pdftotext", out.Path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(string(text)), " "); got != "One Three Six" {
		t.Fatalf("text %q", got)
	}

	// No blank page: the input as it was.
	full := toolstest.WriteTemp(t, "full.pdf", toolstest.TextPDF("One", "Two"))
	out = mustRunTool(t, tool, full, nil)
	got, _ := os.ReadFile(out.Path)
	want, _ := os.ReadFile(full)
	if !bytes.Equal(got, want) || out.Meta["removed"] != 0 || !reflect.DeepEqual(out.Meta["removed_pages"], []int{}) {
		t.Fatalf("no blank page: %d bytes of %d, meta %v", len(got), len(want), out.Meta)
	}

	// Every page blank: nothing to return.
	_, err = runTool(t, tool, toolstest.WriteTemp(t, "blank.pdf", toolstest.TextPDF("", "")), nil)
	toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
	_, err = runTool(t, tool, full, map[string]string{"threshold": "10"})
	toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "")

	_, err = runTool(t, tool, toolstest.WriteTemp(t, "x.pdf", []byte("%PDF-1.4\nnot a pdf at all")), nil)
	toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
}

// TestRemoveBlankThreshold: a page with only a 12-point page number (5
// ink pixels) is blank at threshold 0.05 and not at the default; a
// page with a word of 24-point text (about 35) is blank at neither.
func TestRemoveBlankThreshold(t *testing.T) {
	tool := moreTool(t, "remove-blank-pages")
	small := toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		"<< /Length 36 >>\nstream\nBT /F1 24 Tf 72 720 Td (Body) Tj ET\nendstream",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 7 0 R >>",
		"<< /Length 34 >>\nstream\nBT /F1 12 Tf 290 30 Td (12) Tj ET\nendstream",
	)
	src := toolstest.WriteTemp(t, "small.pdf", small)
	if out := mustRunTool(t, tool, src, nil); out.Meta["removed"] != 0 {
		t.Fatalf("default threshold: meta %v", out.Meta)
	}
	if out := mustRunTool(t, tool, src, map[string]string{"threshold": "0.05"}); !reflect.DeepEqual(out.Meta["removed_pages"], []int{2}) {
		t.Fatalf("threshold 0.05: meta %v", out.Meta)
	}
}

func TestGraymapPixels(t *testing.T) {
	good := append([]byte("P5\n3 2\n255\n"), 0, 1, 2, 3, 4, 5)
	if pix, err := graymapPixels(good); err != nil || len(pix) != 6 {
		t.Fatalf("good: %v %v", pix, err)
	}
	for name, b := range map[string][]byte{
		"P6":        append([]byte("P6\n3 2\n255\n"), 0, 1, 2, 3, 4, 5),
		"short":     append([]byte("P5\n3 2\n255\n"), 0, 1),
		"long":      append([]byte("P5\n3 2\n255\n"), 0, 1, 2, 3, 4, 5, 6),
		"maxval":    append([]byte("P5\n3 2\n65535\n"), 0, 1, 2, 3, 4, 5),
		"no header": []byte("P5\n3"),
		"negative":  []byte("P5\n-3 2\n255\n"),
	} {
		if _, err := graymapPixels(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
