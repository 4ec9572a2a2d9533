package poppler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// corpusPDF returns the path of a PDF of the corpus, skipping t
// when the corpus is absent (toolstest.Corpus).
func corpusPDF(t testing.TB, name string) string {
	t.Helper()
	return toolstest.Corpus(t, "pdf", name)
}

// generatedPDF writes a valid 4-page A4 PDF for tests that need some
// document, not a real-world one.
func generatedPDF(t testing.TB) string {
	t.Helper()
	return toolstest.WriteTemp(t, "generated.pdf", toolstest.TextPDF("One", "Two", "Three", "Four"))
}

// testEngines finds the real engines once per test, skipping the test when
// one is missing.
func testEngines(t testing.TB) (pdftoppm, pdftotext, pdfinfo *sandbox.Engine) {
	t.Helper()
	pdftoppm = sandbox.Find("pdftoppm", []string{"-v"}, sandbox.Options{View: sandbox.View{ReadOnly: DataPaths}})
	pdftotext = sandbox.Find("pdftotext", []string{"-v"}, sandbox.Options{View: sandbox.View{ReadOnly: DataPaths}})
	pdfinfo = sandbox.Find("pdfinfo", []string{"-v"}, sandbox.Options{View: sandbox.View{ReadOnly: DataPaths}})
	for _, e := range []*sandbox.Engine{pdftoppm, pdftotext, pdfinfo} {
		if !e.Available() {
			toolstest.Lacking(t, "%s is not available (not installed, or the jail cannot run)", e.Name)
		}
	}
	return pdftoppm, pdftotext, pdfinfo
}

// testTool returns the tool with slug, built on the real engines with the
// default limits.
func testTool(t testing.TB, slug string) *docmill.Tool {
	t.Helper()
	return limitedTool(t, slug, docmill.Limits{})
}

// limitedTool returns the tool with slug, built on the real engines with
// limits.
func limitedTool(t testing.TB, slug string, limits docmill.Limits) *docmill.Tool {
	t.Helper()
	pdftoppm, pdftotext, pdfinfo := testEngines(t)
	return toolstest.Find(t, pageTools(pdftoppm, pdftotext, pdfinfo, limits), slug)
}

// runTool validates raw params as the API does and runs tool on path
// (toolstest.Run).
func runTool(t testing.TB, tool *docmill.Tool, path string, raw map[string]string) (*docmill.RunOutput, error) {
	t.Helper()
	return toolstest.Run(t, tool, path, pdfContentType, raw)
}

// mustRunTool is runTool that fails t on an error.
func mustRunTool(t testing.TB, tool *docmill.Tool, path string, raw map[string]string) *docmill.RunOutput {
	t.Helper()
	return toolstest.MustRun(t, tool, path, pdfContentType, raw)
}

// badInputs writes damaged inputs and returns them by name, with the
// encrypted file of the corpus.
func badInputs(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	whole := toolstest.ReadCorpus(t, "pdf", "pdflatex-4-pages.pdf")
	files := map[string][]byte{
		"zero-byte.pdf": nil,
		"truncated.pdf": whole[:len(whole)/3],
		"not-a-pdf.pdf": []byte("hello, this is not a PDF\n"),
	}
	out := map[string]string{"encrypted": corpusPDF(t, "libreoffice-writer-password.pdf")}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		out[name] = p
	}
	return out
}

func TestInvalidDocuments(t *testing.T) {
	for _, slug := range []string{"pdf-to-jpg", "pdf-to-png", "pdf-to-text"} {
		tool := testTool(t, slug)
		for name, path := range badInputs(t) {
			t.Run(slug+"/"+name, func(t *testing.T) {
				_, err := runTool(t, tool, path, nil)
				e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
				if name == "encrypted" && e.Message != "The file is password-protected; unlock it first." {
					t.Errorf("message = %q", e.Message)
				}
				if e.Err == nil {
					t.Error("the engine's error is not kept for the logs")
				}
			})
		}
	}
}

func TestMissingEngine(t *testing.T) {
	missing := sandbox.Find("no-such-program", nil, sandbox.Options{})
	for _, tool := range pageTools(missing, missing, missing, docmill.Limits{}) {
		t.Run(tool.Slug, func(t *testing.T) {
			if tool.IsAvailable() {
				t.Error("available with its engine missing")
			}
			for _, st := range tool.Engines() {
				if st.Available {
					t.Errorf("engine %s reported available", st.Name)
				}
			}
			_, err := runTool(t, tool, generatedPDF(t), nil)
			toolstest.WantCode(t, err, docmill.CodeEngineUnavailable, "")
		})
	}
}

func TestDeclarations(t *testing.T) {
	pdftoppm, pdftotext, pdfinfo := testEngines(t)
	for _, tool := range pageTools(pdftoppm, pdftotext, pdfinfo, docmill.Limits{}) {
		if !tool.IsAvailable() || tool.Engine != engineName || tool.Long || tool.Timeout <= 0 ||
			tool.MinFiles != 1 || tool.MaxFiles != 1 || !tool.AcceptsType(pdfContentType) {
			t.Errorf("%s: unexpected declaration %+v", tool.Slug, tool)
		}
		_, hasQuality := tool.Param("quality")
		if hasQuality != (tool.Slug == "pdf-to-jpg") {
			t.Errorf("%s: quality param = %v", tool.Slug, hasQuality)
		}
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, slug := range []string{"pdf-to-jpg", "pdf-to-text"} {
		_, err := toolstest.RunContext(ctx, t, testTool(t, slug), generatedPDF(t), pdfContentType, nil)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error = %v, want context.Canceled", slug, err)
		}
	}
}

func TestOutputName(t *testing.T) {
	for in, want := range map[string]string{
		"report.pdf": "report-1.jpg", "a/b\\Report.PDF": "Report-1.jpg", ".pdf": "document-1.jpg", "x": "x-1.jpg",
	} {
		if got := docmill.ResultName(in, ".pdf", "-1.jpg"); got != want {
			t.Errorf("ResultName(%q) = %q, want %q", in, got, want)
		}
	}
}
