package pdfops_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// pdfCorpus returns the folder of real PDFs of the corpus, with a
// trailing slash, skipping t when the corpus is absent (toolstest.Corpus).
func pdfCorpus(t testing.TB) string {
	t.Helper()
	return toolstest.Corpus(t, "pdf") + "/"
}

// imageCorpus returns the folder of real images of the corpus, as
// pdfCorpus does.
func imageCorpus(t testing.TB) string {
	t.Helper()
	return toolstest.Corpus(t, "image") + "/"
}

// fourPagesPDF writes a generated PDF of four pages, each with its own
// text, as four-pages.pdf: the document the page tools' tables work on,
// without the corpus.
func fourPagesPDF(t testing.TB) string {
	return toolstest.WriteTemp(t, "four-pages.pdf", toolstest.TextPDF("Page one", "Page two", "Page three", "Page four"))
}

// onePagePDF writes a generated one-page PDF as one-page.pdf.
func onePagePDF(t testing.TB) string {
	return toolstest.WriteTemp(t, "one-page.pdf", toolstest.TextPDF("A generated page"))
}

// optionalPDF returns the path of a PDF of the corpus, or "" when
// DOCMILL_CORPUS names none: a table's rows that read it are then
// skipped (skipWithoutCorpus), and its generated rows still run.
func optionalPDF(name string) string {
	p, _ := toolstest.CorpusIfPresent("pdf", name)
	return p
}

// skipWithoutCorpus skips a table row whose file is optionalPDF's "".
func skipWithoutCorpus(t *testing.T, file string) {
	t.Helper()
	if file == "" {
		t.Skip(toolstest.CorpusEnv + " is not set: this row reads a real-world file")
	}
}

// encryptedPDF returns the corpus's encrypted PDF, whose user password is
// "openpassword" and owner password "permissionpassword".
func encryptedPDF(t testing.TB) string {
	t.Helper()
	return pdfCorpus(t) + "libreoffice-writer-password.pdf"
}

// TestMain disables pdfcpu's configuration directory (through Tools)
// before any test reads a PDF with pdfcpu directly.
func TestMain(m *testing.M) {
	pdfops.Tools()
	code := m.Run()
	pdfops.RemoveFonts() // the stamp font's directory, as the server does
	os.Exit(code)
}

func tool(t testing.TB, slug string) *docmill.Tool {
	t.Helper()
	return toolstest.Find(t, pdfops.Tools(), slug)
}

// run validates params the way the API does, failing t if they are
// refused, and runs the tool on paths, sent as PDFs.
func run(t testing.TB, slug string, params map[string]string, paths ...string) (*docmill.RunOutput, error) {
	t.Helper()
	if _, err := tool(t, slug).ParseParams(params); err != nil {
		t.Fatalf("ParseParams(%v): %v", params, err)
	}
	return invoke(context.Background(), t, slug, params, "application/pdf", paths...)
}

// listing runs the listing tool slug on path, wants a JSON output and
// decodes it into v, failing t if any of that fails; it returns the
// output and its JSON.
func listing(t *testing.T, slug, path string, v any) (*docmill.RunOutput, []byte) {
	t.Helper()
	out, err := run(t, slug, nil, path)
	if err != nil {
		t.Fatal(err)
	}
	if out.ContentType != "application/json" {
		t.Fatalf("content type %q", out.ContentType)
	}
	data, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return out, data
}

// runValidated is run for tests of validation: a refusal of params is its
// error, as the API's answer would be.
func runValidated(t testing.TB, slug string, params map[string]string, paths ...string) (*docmill.RunOutput, error) {
	t.Helper()
	return invoke(context.Background(), t, slug, params, "application/pdf", paths...)
}

// invoke validates params the way the API does (bad params never reach
// Invoke: their refusal is the error) and runs tool slug under ctx on
// paths, each sent with contentType and its size.
func invoke(ctx context.Context, t testing.TB, slug string, params map[string]string, contentType string, paths ...string) (*docmill.RunOutput, error) {
	t.Helper()
	tl := tool(t, slug)
	p, err := tl.ParseParams(params)
	if err != nil {
		return nil, err
	}
	in := &docmill.RunInput{Params: p, WorkDir: t.TempDir()}
	for _, path := range paths {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		in.Files = append(in.Files, docmill.LocalFile{
			Path: path, Filename: filepath.Base(path), ContentType: contentType, Size: st.Size(),
		})
	}
	return tl.Invoke(ctx, in)
}

// corpusPDFs returns the contents of the corpus PDFs named, as fuzz seeds.
func corpusPDFs(f *testing.F, names ...string) [][]byte {
	f.Helper()
	seeds := make([][]byte, len(names))
	for i, name := range names {
		b, err := os.ReadFile(pdfCorpus(f) + name)
		if err != nil {
			f.Fatal(err)
		}
		seeds[i] = b
	}
	return seeds
}

// canceledContext returns a context that is already canceled.
func canceledContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// readBack parses and validates a tool's output.
func readBack(t *testing.T, path string) *model.Context {
	t.Helper()
	doc, err := api.ReadContextFile(path)
	if err != nil {
		t.Fatalf("output does not read back as a PDF: %v", err)
	}
	return doc
}

// rotations returns the effective rotation of each page, 0 to 270.
func rotations(t *testing.T, doc *model.Context) []int {
	t.Helper()
	out := make([]int, doc.PageCount)
	for i := range out {
		_, _, inh, err := doc.PageDict(i+1, false)
		if err != nil {
			t.Fatalf("page %d: %v", i+1, err)
		}
		out[i] = (inh.Rotate%360 + 360) % 360
	}
	return out
}

// badInputs writes damaged inputs into a temporary directory and returns
// them by name, with the corpus's encrypted file.
func badInputs(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	good, err := os.ReadFile(fourPagesPDF(t))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"text.pdf":        []byte("This is a plain text file, not a PDF.\n"),
		"empty.pdf":       nil,
		"truncated.pdf":   good[:len(good)/2],
		"header-only.pdf": []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"),
	}
	out := map[string]string{"encrypted": encryptedPDF(t)}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(name, ".pdf")] = p
	}
	return out
}

// wantBadInputsRefused runs slug with params on each of badInputs, in a
// subtest of its name, as the first file and followed by others, and
// wants each refused as invalid_document.
func wantBadInputsRefused(t *testing.T, slug string, params map[string]string, others ...string) {
	t.Helper()
	for name, path := range badInputs(t) {
		t.Run(name, func(t *testing.T) {
			out, err := run(t, slug, params, append([]string{path}, others...)...)
			wantRefused(t, out, err, docmill.CodeInvalidDocument)
		})
	}
}

// wantRefused checks that a run made no output but err, as wantCode
// checks it, and returns the error.
func wantRefused(t *testing.T, out *docmill.RunOutput, err error, code docmill.Code, contains ...string) *docmill.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("made %v, want error", out)
	}
	return wantCode(t, err, code, contains...)
}

// wantCode checks that err is a *docmill.Error with code and a public
// message that mentions each of contains and leaks nothing internal.
func wantCode(t *testing.T, err error, code docmill.Code, contains ...string) *docmill.Error {
	t.Helper()
	var e *docmill.Error
	if !errors.As(err, &e) {
		t.Fatalf("error = %v (%T), want *docmill.Error %s", err, err, code)
	}
	if e.Code != code {
		t.Fatalf("code = %s (%v), want %s", e.Code, err, code)
	}
	for _, s := range contains {
		if !strings.Contains(e.Message, s) {
			t.Errorf("message %q does not mention %q", e.Message, s)
		}
	}
	for _, leak := range []string{"pdfcpu", "xref", "/tmp", os.TempDir(), "../"} {
		if strings.Contains(e.Message, leak) {
			t.Errorf("message %q leaks %q", e.Message, leak)
		}
	}
	return e
}

// sparseFile makes a file of size bytes that takes no disk space.
func sparseFile(t *testing.T, size int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), fmt.Sprintf("big-%d.pdf", size))
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("%PDF-1.7\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return p
}

// manyPagesPDF writes a well-formed PDF of n empty pages.
func manyPagesPDF(t *testing.T, n int) string {
	t.Helper()
	return treePDF(t, n, "/MediaBox [0 0 100 100]")
}

// wantPDFTool fails t unless tl takes minFiles to maxFiles PDFs (and
// nothing else) and is a complete, available pdfcpu tool.
func wantPDFTool(t *testing.T, tl *docmill.Tool, minFiles, maxFiles int) {
	t.Helper()
	if tl.MinFiles != minFiles || tl.MaxFiles != maxFiles {
		t.Errorf("files = %d..%d, want %d..%d", tl.MinFiles, tl.MaxFiles, minFiles, maxFiles)
	}
	if !tl.AcceptsType("application/pdf") || len(tl.Accepts) != 1 {
		t.Errorf("Accepts = %v", tl.Accepts)
	}
	if tl.Engine != "pdfcpu" || tl.Timeout <= 0 || tl.Run == nil || tl.Title == "" || tl.Description == "" {
		t.Errorf("incomplete declaration: %+v", tl)
	}
	if !tl.IsAvailable() {
		t.Error("in-process tool reports unavailable")
	}
}

func TestToolsDeclarations(t *testing.T) {
	tests := []struct {
		slug               string
		minFiles, maxFiles int
		params             []string
	}{
		{"merge-pdf", 2, 50, []string{"bookmarks"}},
		{"split-pdf", 1, 1, []string{"ranges", "every", "by_bookmarks", "max_size_mb"}},
		{"rotate-pdf", 1, 1, []string{"angle", "pages"}},
		{"extract-pages", 1, 1, []string{"pages"}},
		{"remove-pages", 1, 1, []string{"pages"}},
		{"organize-pdf", 1, 1, []string{"order"}},
		{"watermark-pdf", 1, 1, []string{"text", "opacity", "rotation", "font_size", "color", "position", "layer", "pages"}},
		{"page-numbers", 1, 1, []string{"position", "start", "format", "font_size", "pages"}},
		{"protect-pdf", 1, 1, []string{"password", "owner_password", "permissions"}},
		{"unlock-pdf", 1, 1, []string{"password"}},
	}
	for _, tt := range tests {
		t.Run(tt.slug, func(t *testing.T) {
			tl := tool(t, tt.slug)
			wantPDFTool(t, tl, tt.minFiles, tt.maxFiles)
			var names []string
			for _, p := range tl.Params {
				names = append(names, p.Name)
			}
			if fmt.Sprint(names) != fmt.Sprint(tt.params) {
				t.Errorf("params = %v, want %v", names, tt.params)
			}
		})
	}
	_ = docmill.NewRegistry(pdfops.Tools()...) // no duplicate slugs
}

// TestNoConfigDirWritten checks that running the tools, installing the
// stamp font included, writes nothing under $HOME.
func TestNoConfigDirWritten(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	pdf := toolstest.WriteTemp(t, "generated.pdf", toolstest.TextPDF("Hello"))
	for _, r := range []struct {
		slug   string
		params map[string]string
	}{{"rotate-pdf", nil}, {"watermark-pdf", map[string]string{"text": "x"}}, {"page-numbers", nil}} {
		if _, err := runValidated(t, r.slug, r.params, pdf); err != nil {
			t.Fatalf("%s: %v", r.slug, err)
		}
	}
	entries, err := os.ReadDir(home)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) > 0 {
		t.Errorf("the tools wrote under $HOME: %v", entries)
	}
}
