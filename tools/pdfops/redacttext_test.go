package pdfops

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// redactTextStream is a content stream that shows a word in /F1.
var redactTextStream = "<< /Length 35 >>\nstream\nBT /F1 12 Tf 72 720 Td (Word) Tj ET\nendstream"

// redactTextRun runs RedactPagesStep in this process on a one-page text
// PDF, its page replaced by a white image, with layer as its text layer.
func redactTextRun(t *testing.T, layer []byte) (*docmill.RunOutput, error) {
	t.Helper()
	dir := t.TempDir()
	src := toolstest.WriteTemp(t, "doc.pdf", toolstest.TextPDF("Secret words"))
	img := filepath.Join(dir, "page.png")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, image.NewGray(image.Rect(0, 0, 124, 175))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	lp := toolstest.WriteTemp(t, "layer.pdf", layer)
	return RedactPagesStep().Run(context.Background(), &docmill.RunInput{WorkDir: dir,
		Params: docmill.Params{"pages": "1", "texts": `["secret"]`, "text_layer": "true"},
		Files: []docmill.LocalFile{{Path: src, Filename: "doc.pdf", ContentType: pdfContentType},
			{Path: img, Filename: "page.png", ContentType: "image/png"}, {Path: lp, Filename: "layer.pdf", ContentType: pdfContentType}}})
}

// TestRedactTextLayer: the layer's text becomes the replaced page's, and
// the old text is gone; a layer whose resources loop back on themselves
// is copied once; one of more than maxTextLayerObjects objects, or of
// the wrong page count, is refused.
func TestRedactTextLayer(t *testing.T) {
	out, err := redactTextRun(t, toolstest.TextPDF("Recognized words"))
	if err != nil {
		t.Fatal(err)
	}
	text, err := exec.Command("pdftotext", out.Path, "-").Output()
	if err != nil || strings.TrimSpace(string(text)) != "Recognized words" {
		t.Fatalf("text %q, %v", text, err)
	}

	// A layer page whose resources hold an object that refers to itself.
	loop := toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Self 4 0 R >>", redactTextStream)
	if _, err := redactTextRun(t, loop); err != nil {
		t.Fatalf("a looping layer: %v", err)
	}

	// Resources of 100 objects, in a chain and side by side.
	for _, shape := range []struct{ font, object, refused string }{
		{"/Next 6 0 R", "<< /Next %d 0 R >>", "deep"},
		{"/Many [" + redactTextRefs(6, 106) + "]", "<< /N %d >>", "objects"},
	} {
		objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
			redactTextStream, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica " + shape.font + " >>"}
		for i := 6; i < 106; i++ {
			objects = append(objects, fmt.Sprintf(shape.object, i+1))
		}
		objects = append(objects, "<< >>")
		if _, err := redactTextRun(t, toolstest.PDF(objects...)); err == nil || !strings.Contains(err.Error(), shape.refused) {
			t.Fatalf("a layer of 100 objects: %v, want it refused as %s", err, shape.refused)
		}
	}
	if _, err := redactTextRun(t, toolstest.TextPDF("a", "b")); err == nil {
		t.Fatal("a layer of 2 pages for 1 image was taken")
	}
}

// redactTextRefs lists the references to objects from to to-1.
func redactTextRefs(from, to int) string {
	refs := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		refs = append(refs, fmt.Sprintf("%d 0 R", i))
	}
	return strings.Join(refs, " ")
}
