package ghostscript_test

import (
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestGrayscale renders the output of colour inputs with pdftoppm and
// checks that no pixel keeps colour, where the input's rendering has
// some; the text is kept.
func TestGrayscale(t *testing.T) {
	for _, name := range []string{"pdflatex-image.pdf", "cmyk-image.pdf"} {
		t.Run(name, func(t *testing.T) {
			src := corpusPDF(t, name)
			if c := maxChroma(t, src); c < 40 {
				t.Fatalf("the input has no colour to remove (chroma %d)", c)
			}
			out, err := run(t, "grayscale-pdf", nil, src)
			if err != nil {
				t.Fatal(err)
			}
			if c := maxChroma(t, out.Path); c > 3 {
				t.Errorf("a pixel of the output has chroma %d", c)
			}
			if got, want := text(t, out.Path), text(t, src); got != want {
				t.Errorf("text changed:\n%q\nwant\n%q", got, want)
			}
			if out.Meta["pages"] != 1 {
				t.Errorf("meta %v", out.Meta)
			}
		})
	}
	_, err := run(t, "grayscale-pdf", nil, toolstest.WriteTemp(t, "x.pdf", []byte("%PDF-1.4\nnot a pdf at all")))
	wantCode(t, err, docmill.CodeInvalidDocument)
	_, err = run(t, "grayscale-pdf", nil, toolstest.WriteTemp(t, "ps.pdf", []byte("%!PS\n(hello) print\n")))
	wantCode(t, err, docmill.CodeInvalidDocument)
}

// maxChroma renders the first page of the PDF at path in RGB with
// pdftoppm and returns the largest difference between two channels of
// any pixel: 0 for pure grey.
func maxChroma(t *testing.T, path string) int {
	t.Helper()
	return toolstest.MaxChroma(toolstest.RenderPage(t, path, 1, 40))
}
