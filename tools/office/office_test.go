package office_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/office"
	"github.com/docmill/docmill/tools/toolstest"
)

// corpusFile returns the path of an Office document of the corpus,
// skipping t when the corpus is absent (toolstest.Corpus).
func corpusFile(t testing.TB, name string) string {
	t.Helper()
	return toolstest.Corpus(t, "office", name)
}

// newPool starts a pool of real LibreOffice workers, closed when the test
// ends, or skips the test when LibreOffice or python3-uno is missing.
func newPool(t testing.TB, opts office.Options) *office.Pool {
	t.Helper()
	p, err := startPool(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return available(t, p)
}

// sharedPool is one pool of two workers with the default options, for
// the tests that only convert documents: a LibreOffice start was most of
// each one's CPU. Tests that crash, hang, limit or watch their workers
// start their own (newPool). TestMain closes it (closeShared).
func sharedPool(t testing.TB) *office.Pool {
	t.Helper()
	p, err := shared()
	if err != nil {
		t.Fatal(err)
	}
	return available(t, p)
}

var shared = sync.OnceValues(func() (*office.Pool, error) {
	p, err := startPool(office.Options{Workers: 2})
	if err == nil {
		closeShared = p.Close
	}
	return p, err
})

// closeShared stops sharedPool's workers, if it started: a jailed soffice
// is not ended by the test binary's exit alone.
var closeShared = func() {}

func startPool(opts office.Options) (*office.Pool, error) {
	if opts.SelectPages == nil {
		opts.SelectPages = selectPages()
	}
	return office.New(sandbox.Find("soffice", []string{"--version"}, sandbox.Options{View: sandbox.View{ReadOnly: office.DataPaths}}), sandbox.Find("python3", nil, sandbox.Options{View: sandbox.View{ReadOnly: office.DataPaths}}), opts)
}

// available returns p, or skips t when LibreOffice or python3-uno is
// missing (failing it under CI).
func available(t testing.TB, p *office.Pool) *office.Pool {
	t.Helper()
	if !p.Available() {
		toolstest.Lacking(t, "LibreOffice or python3-uno not installed, or no jail")
	}
	return p
}

func toolOf(t testing.TB, p *office.Pool, slug string) *docmill.Tool {
	t.Helper()
	return toolstest.Find(t, p.Tools(), slug)
}

// run runs the tool on a copy of src in a fresh work dir.
func run(t testing.TB, tl *docmill.Tool, src string, params docmill.Params) (*docmill.RunOutput, error) {
	t.Helper()
	dir := t.TempDir()
	if params == nil {
		params = docmill.Params{}
	}
	return tl.Invoke(context.Background(), &docmill.RunInput{
		Files:   []docmill.LocalFile{toolstest.Input(t, dir, src, "")},
		Params:  params,
		WorkDir: dir,
	})
}

func pdftotext(t testing.TB, path string) string {
	t.Helper()
	toolstest.Need(t, "pdftotext")
	bin, err := sandbox.LookPath("pdftotext")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return string(out)
}

// TestConvertCorpus: documents of each family become PDFs with the
// expected page count and text, through one warm pool that never starts a
// soffice per conversion.
func TestConvertCorpus(t *testing.T) {
	p := newPool(t, office.Options{Workers: 2})
	for _, c := range []struct {
		slug, file string
		pages      int
		text       string
	}{
		{"word-to-pdf", "test.docx", 1, "python-docx was here!"},
		{"word-to-pdf", "hdr-header-footer.docx", 2, "Header for section-1"},
		{"word-to-pdf", "libreoffice-writer.odt", 1, "Lorem ipsum dolor sit amet"},
		{"word-to-pdf", "libreoffice-form.odt", 1, "Example for a Form"},
		{"excel-to-pdf", "embedded.xlsx", 1, "1\n2\n3"},
		{"powerpoint-to-pdf", "dml-fill.pptx", 2, "autoshape with"},
		{"powerpoint-to-pdf", "ph-populated-placeholders.pptx", 9, "Title Text"},
	} {
		out, err := run(t, toolOf(t, p, c.slug), corpusFile(t, c.file), nil)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if got := out.Meta["pages"]; got != c.pages {
			t.Errorf("%s: %v pages, want %d", c.file, got, c.pages)
		}
		if txt := pdftotext(t, out.Path); !strings.Contains(txt, c.text) {
			t.Errorf("%s: text %q lacks %q", c.file, txt, c.text)
		}
		if out.ContentType != "application/pdf" || !strings.HasSuffix(out.Filename, ".pdf") {
			t.Errorf("%s: output %s %s", c.file, out.Filename, out.ContentType)
		}
	}
	if n := p.Starts(); n != 2 {
		t.Errorf("%d soffice starts for 7 conversions on 2 workers, want 2", n)
	}
}

// TestLazyPool: a lazy pool starts no LibreOffice until a conversion needs
// one, then converts as usual.
func TestLazyPool(t *testing.T) {
	p := newPool(t, office.Options{Workers: 1, Lazy: true})
	if n := p.Starts(); n != 0 {
		t.Fatalf("%d starts before any conversion", n)
	}
	if _, err := run(t, toolOf(t, p, "word-to-pdf"), writeDocx(t, "Lazy."), nil); err != nil {
		t.Fatal(err)
	}
	if n := p.Starts(); n != 1 {
		t.Fatalf("%d starts after one conversion", n)
	}
}

// TestCanceledDuringStart: a job canceled while its worker starts returns
// at once; the start goes on, and the next job gets that worker, warm.
func TestCanceledDuringStart(t *testing.T) {
	p := newPool(t, office.Options{Workers: 1, Lazy: true})
	word := toolOf(t, p, "word-to-pdf")
	doc := writeDocx(t, "Canceled, then converted.")
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := word.Invoke(ctx, &docmill.RunInput{Files: []docmill.LocalFile{toolstest.Input(t, dir, doc, "")}, Params: docmill.Params{}, WorkDir: dir})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled job: %v", err)
	}
	t.Logf("the canceled job returned %s after it started", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	if _, err := run(t, word, doc, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("the next job took %s (the start included)", time.Since(start).Round(time.Millisecond))
	if n := p.Starts(); n != 1 {
		t.Errorf("%d starts, want 1: the worker started for the canceled job serves the next", n)
	}
}
