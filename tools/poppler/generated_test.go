package poppler

import (
	"bytes"
	"image"
	"os"
	"strings"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// TestGeneratedInputs: pdf-to-text, extract-images, pdf-to-word and
// pdf-to-odt on generated PDFs, the checks of TestText, TestExtractImages
// and TestPDFToWord without the corpus.
func TestGeneratedInputs(t *testing.T) {
	t.Run("pdf-to-text", func(t *testing.T) {
		path := generatedPDF(t)
		out := mustRunTool(t, testTool(t, "pdf-to-text"), path, nil)
		b, err := os.ReadFile(out.Path)
		if err != nil {
			t.Fatal(err)
		}
		if want := pdftotextDirect(t, path); !bytes.Equal(b, want) || !strings.Contains(string(b), "Three") || out.Filename != "generated.txt" {
			t.Errorf("%s: %q, want pdftotext's %q", out.Filename, b, want)
		}
	})
	t.Run("extract-images", func(t *testing.T) {
		tool := moreTool(t, "extract-images")
		path := toolstest.WriteTemp(t, "pictures.pdf", toolstest.ImagePDF(
			[]image.Image{toolstest.Picture(600, 600, 1)},
			[]image.Image{toolstest.Picture(300, 200, 2), toolstest.Picture(8, 8, 3)}))
		// The 8x8 picture is under the default min_size.
		out := mustRunTool(t, tool, path, nil)
		names := zipNames(t, out.Path)
		if len(names) != 2 || listedPictures(t, path) != 3 || out.Meta["images"] != 2 || out.Meta["skipped_small"] != 1 ||
			names[0] != "pictures-p1-0.jpg" || names[1] != "pictures-p2-1.jpg" {
			t.Errorf("entries %v, meta %v", names, out.Meta)
		}
		if n := len(zipNames(t, mustRunTool(t, tool, path, map[string]string{"pages": "2", "min_size": "0"}).Path)); n != 2 {
			t.Errorf("page 2 with min_size 0: %d entries, want 2", n)
		}
	})
	for _, slug := range []string{"pdf-to-word", "pdf-to-odt"} {
		t.Run(slug, func(t *testing.T) {
			inOrder, framed, flowing, out, _ := wordQuality(t, wordTestTool(t, slug), generatedPDF(t))
			if inOrder < 0.95 || framed != 0 || flowing == 0 || out.Meta["pages"] == 0 {
				t.Errorf("%.3f of the words in order, %d characters framed, %d flowing, meta %v", inOrder, framed, flowing, out.Meta)
			}
		})
	}
}
