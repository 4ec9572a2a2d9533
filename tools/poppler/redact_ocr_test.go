package poppler

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ocr"
	"github.com/docmill/docmill/tools/toolstest"
)

// ocrStep is the OCR step the server gives redact-pdf (ocr.TextLayerStep
// over the jailed tesseract, as cmd/docmill's engines.go wires it),
// counting its calls and keeping the params of the last one: the test
// reads what redact-pdf asked of the real step, it does not answer for
// it.
type ocrStep struct {
	run    docmill.RunFunc
	calls  int
	images int
	params docmill.Params
}

func realOCRStep(t *testing.T) *ocrStep {
	t.Helper()
	tesseract := sandbox.Find("tesseract", []string{"--version"}, sandbox.Options{View: sandbox.View{ReadOnly: ocr.DataPaths}})
	tool := ocr.TextLayerStep(tesseract, t.TempDir())
	if !tool.IsAvailable() {
		if os.Getenv("CI") != "" {
			t.Fatal("tesseract with the eng and rus language packs is not installed (scripts/install-engines.sh installs it)")
		}
		t.Skip("SKIPPING: tesseract with the eng and rus language packs is not installed (run scripts/install-engines.sh)")
	}
	return &ocrStep{run: tool.Run}
}

func (s *ocrStep) Run(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	s.calls++
	s.images, s.params = len(in.Files), in.Params
	return s.run(ctx, in)
}

// placedWord is where pdftotext -bbox places the first word of page n of
// path that is word, case ignored: its left and top edges in points.
func placedWord(t *testing.T, path string, n int, word string) (x, y float64, ok bool) {
	t.Helper()
	p := strconv.Itoa(n)
	bbox, err := exec.Command("pdftotext", "-bbox", "-f", p, "-l", p, path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?i)<word xMin="([0-9.]+)" yMin="([0-9.]+)"[^>]*>` + regexp.QuoteMeta(word) + `</word>`)
	m := re.FindStringSubmatch(string(bbox))
	if m == nil {
		return 0, 0, false
	}
	x, _ = strconv.ParseFloat(m[1], 64)
	y, _ = strconv.ParseFloat(m[2], 64)
	return x, y, true
}

// pageWords are the lower-cased words of page n of path.
func pageWords(t *testing.T, path string, n int) map[string]bool {
	t.Helper()
	p := strconv.Itoa(n)
	text, err := exec.Command("pdftotext", "-f", p, "-l", p, path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	words := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(string(text))) {
		words[strings.Trim(w, ".,;:!?\"'")] = true
	}
	return words
}

// TestRedactOCRStep: with ocr=true the painted images go to the real OCR
// step at the dpi they were drawn at, in the language asked, and the
// words tesseract reads there become the replaced page's text, where
// they were on the page; the blacked-out term is not among them. The
// result's first page is then a scanned page (an image under an OCR
// layer): redacting it again finds a term in that layer and blacks it
// out too. Without ocr the step is not called.
func TestRedactOCRStep(t *testing.T) {
	step := realOCRStep(t)
	tool := stepsRedactTool(t, docmill.Limits{}, step.Run)
	src := toolstest.WriteTemp(t, "doc.pdf", toolstest.TextPDF("Contract signed by Boris Morozov", "Public two"))
	out := mustRunTool(t, tool, src, map[string]string{"terms": "morozov", "ocr": "true", "lang": "eng"})
	if step.calls != 1 || step.images != 1 || step.params["dpi"] != "150" || step.params["lang"] != "eng" {
		t.Fatalf("step: %d calls, %d images, params %v", step.calls, step.images, step.params)
	}
	if out.Meta["ocr_pages"] != 1 {
		t.Fatalf("meta %v", out.Meta)
	}
	words := pageWords(t, out.Path, 1)
	if !words["contract"] || !words["signed"] || words["morozov"] {
		t.Fatalf("page 1 read by OCR: %v, want contract and signed, not the blacked-out morozov", words)
	}
	// The layer's page is the page's size, placed unscaled: a word is
	// where the original drew it, within half the 24 pt line (OCR's box
	// is the ink's, pdftotext's the font's: they differ by a few points;
	// a misplaced or scaled layer is off by far more).
	wantX, wantY, _ := placedWord(t, src, 1, "signed")
	if x, y, ok := placedWord(t, out.Path, 1, "signed"); !ok || math.Abs(x-wantX) > 12 || math.Abs(y-wantY) > 12 {
		t.Errorf("OCR placed signed at %.1f, %.1f (found %v); the page has it at %.1f, %.1f", x, y, ok, wantX, wantY)
	}
	if text, _ := exec.Command("pdftotext", "-f", "2", "-l", "2", out.Path, "-").Output(); strings.TrimSpace(string(text)) != "Public two" {
		t.Fatalf("page 2: %q", text)
	}

	again := mustRunTool(t, tool, out.Path, map[string]string{"terms": "contract", "ocr": "true"})
	if again.Meta["redactions"] != 1 || step.calls != 2 {
		t.Fatalf("the scanned page redacted again: meta %v, %d OCR calls; want contract found in the OCR layer", again.Meta, step.calls)
	}
	if words := pageWords(t, again.Path, 1); words["contract"] || words["morozov"] || !words["signed"] {
		t.Fatalf("page 1 after the second redaction: %v, want signed only", words)
	}

	out = mustRunTool(t, tool, src, map[string]string{"terms": "morozov"})
	if step.calls != 2 || out.Meta["ocr_pages"] != 0 {
		t.Fatalf("without ocr: %d calls, meta %v", step.calls, out.Meta)
	}
}

// wrongLayer is an OCR step that misbehaves on purpose, the boundary
// this test must control: it returns a text layer of two pages whatever
// it is given, which the real step never does.
func wrongLayer(_ context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	path := filepath.Join(in.WorkDir, "wrong-layer.pdf")
	if err := os.WriteFile(path, toolstest.TextPDF("x", "y"), 0o600); err != nil {
		return nil, err
	}
	return &docmill.RunOutput{Path: path, ContentType: pdfContentType}, nil
}

// TestRedactOCRBounds: ocr=true without an OCR step is engine_unavailable;
// more pages than Limits.RedactOCRPages, or a page near the render cap (a
// hostile document's 65-inch page, 96 megapixels at 150 dpi), are
// refused before any page is drawn or read by
// OCR; a text layer of the wrong page count is an internal error.
func TestRedactOCRBounds(t *testing.T) {
	_, err := runTool(t, stepsRedactTool(t, docmill.Limits{}, nil), toolstest.WriteTemp(t, "one.pdf", toolstest.TextPDF("Secret")),
		map[string]string{"terms": "secret", "ocr": "true"})
	toolstest.WantCode(t, err, docmill.CodeEngineUnavailable, "")

	step := realOCRStep(t)
	tool := stepsRedactTool(t, docmill.Limits{}, step.Run)
	texts := make([]string, docmill.DefaultLimits().RedactOCRPages+1)
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

	_, err = runTool(t, stepsRedactTool(t, docmill.Limits{}, wrongLayer), toolstest.WriteTemp(t, "one.pdf", toolstest.TextPDF("Secret")),
		map[string]string{"terms": "secret", "ocr": "true"})
	toolstest.WantCode(t, err, docmill.CodeInternal, "")
}

// TestRedactOCRLimits: the OCR bounds are the tool's limits, not
// constants: with RedactOCRPages 1, two pages to redact are refused;
// with RedactOCRPixels of one megapixel, one A4 page at 150 dpi (2.2
// megapixels) is. Both before any page is read by OCR.
func TestRedactOCRLimits(t *testing.T) {
	step := realOCRStep(t)
	two := toolstest.WriteTemp(t, "two.pdf", toolstest.TextPDF("Secret one", "Secret two"))
	_, err := runTool(t, stepsRedactTool(t, docmill.Limits{RedactOCRPages: 1}, step.Run), two, map[string]string{"terms": "secret", "ocr": "true"})
	if e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, ""); !strings.Contains(e.Message, "at most 1 pages can be redacted with ocr=true") {
		t.Fatalf("message %q", e.Message)
	}
	one := toolstest.WriteTemp(t, "one.pdf", toolstest.TextPDF("Secret"))
	_, err = runTool(t, stepsRedactTool(t, docmill.Limits{RedactOCRPixels: 1_000_000}, step.Run), one, map[string]string{"terms": "secret", "ocr": "true"})
	if e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, ""); !strings.Contains(e.Message, "OCR (ocr=true) reads at most") {
		t.Fatalf("message %q", e.Message)
	}
	if step.calls != 0 {
		t.Fatalf("the OCR step ran %d times", step.calls)
	}
}
