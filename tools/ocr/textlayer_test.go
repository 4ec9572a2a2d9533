package ocr_test

import (
	"context"
	"path/filepath"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ocr"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestTextLayer: two page images at 150 dpi become a text-only PDF of two
// pages of their size, each with its page's words and nothing to see;
// a resolution out of bounds is an internal error, not a run.
func TestTextLayer(t *testing.T) {
	opts := sandbox.Options{View: sandbox.View{ReadOnly: ocr.DataPaths}}
	tl := ocr.TextLayerStep(sandbox.Find("tesseract", []string{"--version"}, opts), "")
	if !tl.IsAvailable() {
		toolstest.Lacking(t, "tesseract with its language packs is not available here")
	}
	dir := t.TempDir()
	pdf := toolstest.WriteTemp(t, "two.pdf", toolstest.TextPDF("Quartz harbour lantern", "Violet meadow compass"))
	command(t, "pdftoppm", "-r", "150", "-png", pdf, filepath.Join(dir, "page"))
	files := []docmill.LocalFile{
		{Path: filepath.Join(dir, "page-1.png"), ContentType: "image/png"},
		{Path: filepath.Join(dir, "page-2.png"), ContentType: "image/png"},
	}
	out, err := tl.Run(context.Background(), &docmill.RunInput{WorkDir: dir, Files: files, Params: docmill.Params{"lang": "eng", "dpi": "150"}})
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["pages"] != 2 {
		t.Fatalf("meta %v", out.Meta)
	}
	wantWords(t, command(t, "pdftotext", "-f", "1", "-l", "1", out.Path, "-"), "Quartz", "harbour", "lantern")
	wantWords(t, command(t, "pdftotext", "-f", "2", "-l", "2", out.Path, "-"), "Violet", "meadow", "compass")
	// 1240 x 1755 pixels at 150 dpi (pdftoppm rounds 1754.2 up): 595.2 x
	// 842.4 points, which redact-pages stretches back to the page.
	wantWords(t, command(t, "pdfinfo", out.Path), "595.2 x 842.4 pts")
	img := toolstest.RenderPage(t, out.Path, 1, 20)
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			if r, g, b, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || b < 0xf000 {
				t.Fatalf("the text layer shows something at (%d, %d)", x, y)
			}
		}
	}

	_, err = tl.Run(context.Background(), &docmill.RunInput{WorkDir: dir, Files: files, Params: docmill.Params{"dpi": "5"}})
	toolstest.WantCode(t, err, docmill.CodeInternal, "")
}
