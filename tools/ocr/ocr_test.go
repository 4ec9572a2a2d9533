package ocr_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ocr"
	"github.com/docmill/docmill/tools/toolstest"
)

// textPDF returns a generated born-digital PDF of four pages whose first
// page reads "Hello, this printed text has information".
func textPDF(t testing.TB) string {
	t.Helper()
	return toolstest.WriteTemp(t, "text.pdf", toolstest.TextPDF("Hello, this printed text has information", "Page two", "Page three", "Page four"))
}

// ocrTool builds ocr-pdf on the real engines once; tests that need them
// skip when ocrmypdf or tesseract is not installed.
var ocrTool = sync.OnceValue(func() *docmill.Tool {
	opts := sandbox.Options{View: sandbox.View{ReadOnly: ocr.DataPaths}}
	return ocr.Tools(
		sandbox.Find("ocrmypdf", []string{"--version"}, opts),
		sandbox.Find("tesseract", []string{"--version"}, opts),
		ocr.Steps{Pages: selectPages(), PrepareImage: prepareImage()}, "",
	)[0]
})

func realTool(t *testing.T) *docmill.Tool {
	t.Helper()
	return available(t, ocrTool())
}

// available returns tl, skipping t when tl cannot run here.
func available(t *testing.T, tl *docmill.Tool) *docmill.Tool {
	t.Helper()
	if !tl.IsAvailable() {
		toolstest.Lacking(t, "ocr-pdf is not available here: %+v", tl.Engines())
	}
	return tl
}

// run validates params the way the API does and runs tl on path.
func run(t *testing.T, tl *docmill.Tool, params map[string]string, path, contentType string) (*docmill.RunOutput, error) {
	t.Helper()
	return runLimited(t, tl, docmill.Limits{}, params, path, contentType)
}

// runLimited is run with the run's limits l.
func runLimited(t *testing.T, tl *docmill.Tool, l docmill.Limits, params map[string]string, path, contentType string) (*docmill.RunOutput, error) {
	t.Helper()
	p, err := tl.ParseParams(params)
	if err != nil {
		t.Fatalf("ParseParams(%v): %v", params, err)
	}
	dir := t.TempDir()
	in := &docmill.RunInput{Params: p, WorkDir: dir, Limits: l, Files: []docmill.LocalFile{inputFile(t, dir, path, contentType)}}
	return tl.Invoke(context.Background(), in)
}

// inputFile places the file at path in workDir (toolstest.Input).
func inputFile(t *testing.T, workDir, path, contentType string) docmill.LocalFile {
	return toolstest.Input(t, workDir, path, contentType)
}

// command runs a fixture or checking program; tests skip without it.
func command(t *testing.T, name string, args ...string) string {
	t.Helper()
	toolstest.Need(t, name)
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

func pdfText(t *testing.T, path string) string {
	t.Helper()
	return command(t, "pdftotext", "-enc", "UTF-8", path, "-")
}

// scannedPage renders page 1 of textPDF to a 200 dpi PNG, as a scanner
// would see it.
func scannedPage(t *testing.T) string {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "scan")
	command(t, "pdftoppm", "-r", "200", "-png", "-f", "1", "-l", "1", "-singlefile", textPDF(t), prefix)
	return prefix + ".png"
}

func wantWords(t *testing.T, text string, words ...string) {
	t.Helper()
	for _, w := range words {
		if !strings.Contains(text, w) {
			t.Errorf("recognized text lacks %q:\n%s", w, text)
		}
	}
}

func wantCode(t *testing.T, err error, code docmill.Code) *docmill.Error {
	t.Helper()
	var e *docmill.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error = %v, want code %s", err, code)
	}
	if strings.Contains(e.Message, "/") || strings.Contains(e.Message, "ocrmypdf") {
		t.Errorf("public message leaks internals: %q", e.Message)
	}
	return e
}

func TestDeclaration(t *testing.T) {
	tl := ocrTool()
	if tl.Slug != "ocr-pdf" || !tl.Long || tl.Engine != "tesseract" || tl.MaxFiles != 1 {
		t.Errorf("declaration = %+v", tl)
	}
	for _, ct := range []string{"application/pdf", "image/jpeg", "image/png", "image/tiff"} {
		if !tl.AcceptsType(ct) {
			t.Errorf("does not accept %s", ct)
		}
	}
	p, err := tl.ParseParams(nil)
	if err != nil || p.String("lang") != "eng+rus" {
		t.Errorf("default lang = %q, %v", p.String("lang"), err)
	}
	if p, err := tl.ParseParams(map[string]string{"lang": "ENG+RUS"}); err != nil || p.String("lang") != "eng+rus" {
		t.Errorf("lang ENG+RUS = %q, %v", p.String("lang"), err)
	}
	if _, err := tl.ParseParams(map[string]string{"lang": "deu"}); docmill.ErrorCode(err) != docmill.CodeInvalidParameter {
		t.Errorf("lang deu: %v", err)
	}
}

func TestImageEnglish(t *testing.T) {
	tl := realTool(t)
	out, err := run(t, tl, nil, scannedPage(t), "image/png")
	if err != nil {
		t.Fatal(err)
	}
	if out.Filename != "scan-ocr.pdf" || out.ContentType != "application/pdf" {
		t.Errorf("output = %+v", out)
	}
	if out.Meta["pages"] != 1 || out.Meta["lang"] != "eng+rus" {
		t.Errorf("meta = %v", out.Meta)
	}
	wantWords(t, pdfText(t, out.Path), "Hello", "printed", "information")
}

func TestImageOnlyPDF(t *testing.T) {
	tl := realTool(t)
	in := filepath.Join(t.TempDir(), "scanned.pdf")
	command(t, "gs", "-q", "-dSAFER", "-sDEVICE=pdfimage24", "-r150", "-dFirstPage=1", "-dLastPage=1", "-o", in, textPDF(t))
	if text := strings.TrimSpace(pdfText(t, in)); text != "" {
		t.Fatalf("fixture already has text: %q", text)
	}
	out, err := run(t, tl, map[string]string{"lang": "eng"}, in, "application/pdf")
	if err != nil {
		t.Fatal(err)
	}
	if out.Filename != "scanned-ocr.pdf" || out.Meta["lang"] != "eng" {
		t.Errorf("output = %+v", out)
	}
	wantWords(t, pdfText(t, out.Path), "Hello", "printed", "information")
}

// russianLines are set in Go Regular, which has Cyrillic glyphs.
var russianLines = []string{
	"Съешь же ещё этих мягких",
	"французских булок, да выпей",
	"же чаю. Привет, мир!",
}

// russianPage draws russianLines in black on white at 48 px, roughly 12 pt
// text scanned at 300 dpi.
func russianPage(t *testing.T) string {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 48, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	defer face.Close()
	img := image.NewRGBA(image.Rect(0, 0, 1200, 400))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	d := &font.Drawer{Dst: img, Src: image.Black, Face: face}
	for i, line := range russianLines {
		d.Dot = fixed.P(60, 100+i*90)
		d.DrawString(line)
	}
	path := filepath.Join(t.TempDir(), "russian.png")
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := png.Encode(w, img); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestImageRussian(t *testing.T) {
	tl := realTool(t)
	out, err := run(t, tl, map[string]string{"lang": "rus"}, russianPage(t), "image/png")
	if err != nil {
		t.Fatal(err)
	}
	wantWords(t, pdfText(t, out.Path), "мягких", "французских", "булок", "выпей", "Привет")
}

// TestTextPagesKept checks --skip-text: a born-digital PDF keeps its text
// exactly, and no page is OCRed (which is why it is quick).
func TestTextPagesKept(t *testing.T) {
	tl := realTool(t)
	out, err := run(t, tl, nil, textPDF(t), "application/pdf")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := pdfText(t, out.Path), pdfText(t, textPDF(t)); got != want {
		t.Errorf("text changed:\n got %q\nwant %q", got, want)
	}
	if out.Meta["pages"] != 4 {
		t.Errorf("meta = %v", out.Meta)
	}
}

func TestDamagedInput(t *testing.T) {
	tl := realTool(t)
	src := toolstest.TextPDF("Hello")
	dir := t.TempDir()
	cases := []struct{ name, contentType string }{
		{"truncated.pdf", "application/pdf"},
		{"notapng.png", "image/png"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, src[:len(src)/3], 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := run(t, tl, nil, path, c.contentType)
			wantCode(t, err, docmill.CodeInvalidDocument)
		})
	}
}

func TestEncryptedPDF(t *testing.T) {
	tl := realTool(t)
	// A generated PDF that qpdf encrypts with a user password.
	_, err := run(t, tl, nil, toolstest.WriteTemp(t, "locked.pdf", toolstest.Encrypt(t, textPDF(t))), "application/pdf")
	if e := wantCode(t, err, docmill.CodeInvalidDocument); !strings.Contains(e.Message, "password-protected") {
		t.Errorf("message = %q", e.Message)
	}
}

func TestMissingEngine(t *testing.T) {
	missing := sandbox.Find("docmill-no-such-ocrmypdf", nil, sandbox.Options{})
	tl := ocr.Tools(missing, sandbox.Find("tesseract", []string{"--version"}, sandbox.Options{View: sandbox.View{ReadOnly: ocr.DataPaths}}), ocr.Steps{}, "")[0]
	if tl.IsAvailable() {
		t.Fatal("available without ocrmypdf")
	}
	if st := tl.Engines(); len(st) != 2 || st[0].Available || st[0].Name != "docmill-no-such-ocrmypdf" {
		t.Errorf("engines = %+v", st)
	}
	_, err := run(t, tl, nil, toolstest.WriteTemp(t, "generated.pdf", toolstest.TextPDF("Hello")), "application/pdf")
	wantCode(t, err, docmill.CodeEngineUnavailable)
}

// TestImageWithAlpha OCRs a real screenshot with an alpha channel, which
// OCRmyPDF alone refuses.
func TestImageWithAlpha(t *testing.T) {
	tl := realTool(t)
	out, err := run(t, tl, map[string]string{"lang": "eng"}, toolstest.Corpus(t, "image", "scan.png"), "image/png")
	if err != nil {
		t.Fatal(err)
	}
	wantWords(t, pdfText(t, out.Path), "ticket", "assign")
}

// TestImagePixelsLimit runs ocr-pdf with a lowered pixel cap in its
// RunInput, which its image step gets whole: an image over it is refused
// as invalid_document before OCRmyPDF runs (images within the default
// cap pass: TestImageWithAlpha).
func TestImagePixelsLimit(t *testing.T) {
	tl := realTool(t)
	// 781 x 627, 0.49 MP, with alpha, as the corpus's scan.png.
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, 781, 627))); err != nil {
		t.Fatal(err)
	}
	_, err := runLimited(t, tl, docmill.Limits{ImagePixels: 100_000}, nil, toolstest.WriteTemp(t, "scan.png", b.Bytes()), "image/png")
	if e := wantCode(t, err, docmill.CodeInvalidDocument); !strings.Contains(e.Message, "at most 0.1 megapixels") {
		t.Errorf("message = %q", e.Message)
	}
}

// TestPageCountLimits: the page-count step gets the run's limits whole:
// with PDFPages 1 it refuses the 4-page result, which is still returned,
// without the count (best effort); within the defaults the count is 4.
func TestPageCountLimits(t *testing.T) {
	tl := realTool(t)
	out, err := runLimited(t, tl, docmill.Limits{PDFPages: 1}, nil, textPDF(t), "application/pdf")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := out.Meta["pages"]; ok {
		t.Errorf("meta %v: the step counted pages past its PDFPages limit", out.Meta)
	}
	out, err = run(t, tl, nil, textPDF(t), "application/pdf")
	if err != nil || out.Meta["pages"] != 4 {
		t.Fatalf("within the defaults: meta %v, %v", out.Meta, err)
	}
}
