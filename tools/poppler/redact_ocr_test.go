package poppler

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// fakeTextLayer stands for ocr.TextLayerTool: it records what it was
// given and returns layer, a PDF that should have a page per image.
type fakeTextLayer struct {
	layer  []byte
	calls  int
	images int
	params docmill.Params
}

func (f *fakeTextLayer) run(_ context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f.calls++
	f.images, f.params = len(in.Files), in.Params
	path := filepath.Join(in.WorkDir, "fake-layer.pdf")
	if err := os.WriteFile(path, f.layer, 0o600); err != nil {
		return nil, err
	}
	return &docmill.RunOutput{Path: path, ContentType: pdfContentType}, nil
}

// TestRedactOCRStep: with ocr=true the painted images go to the OCR step
// at the dpi they were drawn at, in the language asked, and the text of
// the layer it returns becomes the text of the replaced page, where the
// layer has it; without ocr the step is not called.
func TestRedactOCRStep(t *testing.T) {
	step := &fakeTextLayer{layer: toolstest.TextPDF("Recognized words")}
	tool := stepsRedactTool(t, docmill.Limits{}, step.run)
	src := toolstest.WriteTemp(t, "doc.pdf", toolstest.TextPDF("Secret one", "Public two"))
	out := mustRunTool(t, tool, src, map[string]string{"terms": "secret", "ocr": "true", "lang": "rus"})
	if step.calls != 1 || step.images != 1 || step.params["dpi"] != "150" || step.params["lang"] != "rus" {
		t.Fatalf("step: %d calls, %d images, params %v", step.calls, step.images, step.params)
	}
	if out.Meta["ocr_pages"] != 1 {
		t.Fatalf("meta %v", out.Meta)
	}
	// The layer's words are on page 1 where the layer had them: the
	// layer's page is the page's size, so it is placed unscaled, its
	// line at 72, 720 from the bottom.
	bbox, err := exec.Command("pdftotext", "-bbox", "-f", "1", "-l", "1", out.Path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(bbox), `<word xMin="72.000000" yMin="104.768000"`) || !strings.Contains(string(bbox), ">Recognized</word>") {
		t.Fatalf("page 1:\n%s", bbox)
	}
	if text, _ := exec.Command("pdftotext", "-f", "2", "-l", "2", out.Path, "-").Output(); strings.TrimSpace(string(text)) != "Public two" {
		t.Fatalf("page 2: %q", text)
	}
	out = mustRunTool(t, tool, src, map[string]string{"terms": "secret"})
	if step.calls != 1 || out.Meta["ocr_pages"] != 0 {
		t.Fatalf("without ocr: %d calls, meta %v", step.calls, out.Meta)
	}
}

// TestRedactOCRBounds: ocr=true without an OCR step is engine_unavailable;
// more pages than maxRedactOCRPages, or a page near the render cap (a
// hostile document's 65-inch page, 96 megapixels at 150 dpi), are
// refused before any page is drawn or read by
// OCR; a text layer of the wrong page count is an internal error.
func TestRedactOCRBounds(t *testing.T) {
	_, err := runTool(t, stepsRedactTool(t, docmill.Limits{}, nil), toolstest.WriteTemp(t, "one.pdf", toolstest.TextPDF("Secret")),
		map[string]string{"terms": "secret", "ocr": "true"})
	toolstest.WantCode(t, err, docmill.CodeEngineUnavailable, "")

	step := &fakeTextLayer{layer: toolstest.TextPDF("x")}
	tool := stepsRedactTool(t, docmill.Limits{}, step.run)
	texts := make([]string, maxRedactOCRPages+1)
	for i := range texts {
		texts[i] = "Secret " + strconv.Itoa(i)
	}
	_, err = runTool(t, tool, toolstest.WriteTemp(t, "many.pdf", toolstest.TextPDF(texts...)), map[string]string{"terms": "secret", "ocr": "true"})
	if e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, ""); !strings.Contains(e.Message, "ocr=true") {
		t.Fatalf("message %q", e.Message)
	}

	big := toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 4700 4700] >>")
	boxes := `[{"page": 1, "x": 0, "y": 0, "width": 10, "height": 10}]`
	_, err = runTool(t, tool, toolstest.WriteTemp(t, "big.pdf", big), map[string]string{"boxes": boxes, "ocr": "true"})
	if e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, ""); !strings.Contains(e.Message, "OCR (ocr=true) reads at most") {
		t.Fatalf("message %q", e.Message)
	}
	if step.calls != 0 {
		t.Fatalf("the OCR step ran %d times", step.calls)
	}

	step.layer = toolstest.TextPDF("x", "y")
	_, err = runTool(t, tool, toolstest.WriteTemp(t, "one.pdf", toolstest.TextPDF("Secret")), map[string]string{"terms": "secret", "ocr": "true"})
	if err == nil || step.calls != 1 {
		t.Fatalf("a text layer of 2 pages for 1: %v", err)
	}
}
