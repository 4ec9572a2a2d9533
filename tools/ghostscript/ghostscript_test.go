package ghostscript_test

import (
	"bytes"
	"context"
	"os/exec"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ghostscript"
	"github.com/docmill/docmill/tools/toolstest"
)

// corpusPDF returns the path of a PDF of the corpus, skipping t
// when the corpus is absent (toolstest.Corpus).
func corpusPDF(t testing.TB, name string) string {
	t.Helper()
	return toolstest.Corpus(t, "pdf", name)
}

var (
	gsEngine   = sandbox.Find("gs", []string{"--version"}, sandbox.Options{View: sandbox.View{ReadOnly: ghostscript.DataPaths}})
	qpdfEngine = sandbox.Find("qpdf", []string{"--version"}, sandbox.Options{})
	// gsSpares are compress-pdf's spare runs, in the system's temporary
	// directory, as the server keeps them in its scratch one.
	gsSpares = ghostscript.NewSpares(gsEngine, qpdfEngine, "")
)

// tool returns the named tool, skipping the test when its engines are
// missing on this machine.
func tool(t testing.TB, slug string) *docmill.Tool {
	t.Helper()
	tl := toolstest.Find(t, ghostscript.Tools(gsEngine, qpdfEngine, steps(), gsSpares), slug)
	if !tl.IsAvailable() {
		toolstest.Lacking(t, "%s: engines not installed, or no jail", slug)
	}
	return tl
}

// run runs the named tool on path with params.
func run(t testing.TB, slug string, params map[string]string, path string) (*docmill.RunOutput, error) {
	t.Helper()
	tl := tool(t, slug)
	p, err := tl.ParseParams(params)
	if err != nil {
		t.Fatalf("ParseParams(%v): %v", params, err)
	}
	dir := t.TempDir()
	in := &docmill.RunInput{Params: p, WorkDir: dir, Files: []docmill.LocalFile{inputFile(t, dir, path)}}
	return tl.Invoke(context.Background(), in)
}

// inputFile places the PDF at path in workDir (toolstest.Input).
func inputFile(t testing.TB, workDir, path string) docmill.LocalFile {
	return toolstest.Input(t, workDir, path, "application/pdf")
}

// wantCode fails t unless err carries code.
func wantCode(t *testing.T, err error, code docmill.Code) {
	t.Helper()
	if got := docmill.ErrorCode(err); got != code {
		t.Fatalf("error = %v (code %q), want code %q", err, got, code)
	}
}

// qpdfCheck fails t unless qpdf --check accepts path (0 or 3: warnings).
func qpdfCheck(t *testing.T, path string) {
	t.Helper()
	out, err := exec.Command("qpdf", "--check", path).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 3) {
		t.Fatalf("qpdf --check: %v\n%s", err, out)
	}
}

// text returns the text pdftotext extracts from path.
func text(t *testing.T, path string) string {
	t.Helper()
	out, err := exec.Command("pdftotext", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(bytes.Join(bytes.Fields(out), []byte(" ")))
}

func TestUnavailable(t *testing.T) {
	missing := sandbox.Find("no-such-engine-docmill", nil, sandbox.Options{})
	healthy := toolstest.WriteTemp(t, "healthy.pdf", toolstest.TextPDF("Healthy"))
	// linearize-pdf runs qpdf alone.
	qpdfOnly := map[string]bool{"linearize-pdf": true}
	for _, tl := range ghostscript.Tools(missing, qpdfEngine, ghostscript.Steps{}, nil) {
		if tl.IsAvailable() != qpdfOnly[tl.Slug] {
			t.Errorf("%s available without gs: %v", tl.Slug, tl.IsAvailable())
		}
		dir := t.TempDir()
		in := &docmill.RunInput{Params: docmill.Params{}, WorkDir: dir}
		for range tl.MinFiles { // einvoice-pdf takes two
			in.Files = append(in.Files, inputFile(t, dir, healthy))
		}
		_, err := tl.Invoke(context.Background(), in)
		switch {
		case qpdfOnly[tl.Slug]:
			if err != nil {
				t.Errorf("%s without gs: %v", tl.Slug, err)
			}
		case tl.Slug == "repair-pdf" && err == nil:
			// repair-pdf succeeds on a healthy file with qpdf alone.
		default:
			wantCode(t, err, docmill.CodeEngineUnavailable)
		}
	}
}
