// Package toolstest holds what the tool packages' tests share: inputs
// placed in a job's directory as the job worker places them (the only
// directory a jailed engine sees), and the PDF helper served by the test
// binary itself, as docmill's own binary serves it in the server.
package toolstest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/rawpdf"
)

// Input copies the file at path into workDir as input-0 with path's
// extension, as the job worker does, and describes it with path's name as
// the client's and contentType.
func Input(t testing.TB, workDir, path, contentType string) docmill.LocalFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(workDir, "input-0"+filepath.Ext(path))
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return docmill.LocalFile{Path: dst, Filename: filepath.Base(path), ContentType: contentType, Size: int64(len(b))}
}

// Find returns the tool with slug among tools, failing t when there is
// none.
func Find(t testing.TB, tools []*docmill.Tool, slug string) *docmill.Tool {
	t.Helper()
	for _, tl := range tools {
		if tl.Slug == slug {
			return tl
		}
	}
	t.Fatalf("no tool %s", slug)
	return nil
}

// Run validates raw params as the API does and runs tool on a copy of
// the file at path, of contentType, placed in a new work directory
// (Input). A params error is returned as the API would answer it.
func Run(t testing.TB, tool *docmill.Tool, path, contentType string, raw map[string]string) (*docmill.RunOutput, error) {
	t.Helper()
	return RunContext(context.Background(), t, tool, path, contentType, raw)
}

// MustRun is Run that fails t on an error.
func MustRun(t testing.TB, tool *docmill.Tool, path, contentType string, raw map[string]string) *docmill.RunOutput {
	t.Helper()
	out, err := Run(t, tool, path, contentType, raw)
	if err != nil {
		t.Fatalf("%s: %v", tool.Slug, err)
	}
	return out
}

// RunContext is Run with the job's context ctx.
func RunContext(ctx context.Context, t testing.TB, tool *docmill.Tool, path, contentType string, raw map[string]string) (*docmill.RunOutput, error) {
	t.Helper()
	params, err := tool.ParseParams(raw)
	if err != nil {
		return nil, err
	}
	dir := t.TempDir()
	in := &docmill.RunInput{
		Files:   []docmill.LocalFile{Input(t, dir, path, contentType)},
		Params:  params,
		WorkDir: dir,
	}
	return tool.Run(ctx, in)
}

// MustRunStep runs step on a copy of the file at path, of contentType,
// placed in a new work directory (Input), with params as its tool would
// give them; it fails t on an error.
func MustRunStep(t testing.TB, step *docmill.EngineStep, path, contentType string, params docmill.Params) *docmill.RunOutput {
	t.Helper()
	dir := t.TempDir()
	out, err := step.Invoke(context.Background(), &docmill.RunInput{Files: []docmill.LocalFile{Input(t, dir, path, contentType)}, Params: params, WorkDir: dir})
	if err != nil {
		t.Fatalf("%s: %v", step.Name, err)
	}
	return out
}

// WantCode fails t unless err is a *docmill.Error with code and, when
// field is not "", whose first field error names field; it returns the
// error.
func WantCode(t testing.TB, err error, code docmill.Code, field string) *docmill.Error {
	t.Helper()
	var e *docmill.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error = %v, want code %s", err, code)
	}
	if field != "" && (len(e.Fields) == 0 || e.Fields[0].Field != field) {
		t.Fatalf("error fields = %v, want %s", e.Fields, field)
	}
	return e
}

// helperArgs start the test binary as a helper.
var helperArgs = []string{"engine", "pdf"}

// Main is a test package's TestMain: run with helperArgs (by Helpers),
// the test binary serves steps as a helper; otherwise it runs the tests.
func Main(m *testing.M, steps ...*docmill.EngineStep) {
	MainWith(m, nil, steps...)
}

// MainWith is Main that calls cleanup, if not nil, once the tests ran.
func MainWith(m *testing.M, cleanup func(), steps ...*docmill.EngineStep) {
	if len(os.Args) > 2 && os.Args[1] == helperArgs[0] && os.Args[2] == helperArgs[1] {
		if err := sandbox.ServeHelper(context.Background(), os.Stdin, os.Stdout, docmill.NewRegistry(), steps...); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	code := m.Run()
	if cleanup != nil {
		cleanup()
	}
	if started != nil {
		started.Close() // its processes and its directory
	}
	os.Exit(code)
}

// started is the pool Helpers made, if any.
var started *sandbox.Helpers

// Helpers is a pool of jailed helpers of this test binary, serving the
// tools given to Main; it lives as long as the tests (Main closes it).
var Helpers = sync.OnceValue(func() *sandbox.Helpers {
	h, err := sandbox.NewHelpers(sandbox.SelfEngine("docmill-pdf", sandbox.Options{}), helperArgs, sandbox.HelperOptions{})
	if err != nil {
		panic(err)
	}
	started = h
	return h
})

// PDF returns a PDF made of objects (object i+1 is objects[i]; object 1
// must be the catalog) with a correct cross-reference table, for tests
// that need a document of a precise shape: a hostile one, a large one.
func PDF(objects ...string) []byte {
	return rawpdf.Write(objects...)
}

// TextPDF returns a well-formed PDF of A4 pages, one per element of
// texts, each showing its text in Helvetica (ASCII without parentheses or
// backslashes, as no escaping is done): a generated stand-in for tests
// that need some valid PDF, not a real-world one from the corpus.
func TextPDF(texts ...string) []byte {
	kids := make([]string, len(texts))
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	for i, text := range texts {
		page := len(objects) + 1
		kids[i] = fmt.Sprintf("%d 0 R", page)
		content := fmt.Sprintf("BT /F1 24 Tf 72 720 Td (%s) Tj ET", text)
		objects = append(objects,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", page+1),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(texts))
	return PDF(objects...)
}

// Noise returns n bytes that do not compress (a fixed xorshift sequence,
// the same on every call), for archives and streams that must not shrink.
func Noise(n int) []byte {
	b := make([]byte, n)
	x := uint32(2463534242)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// WriteTemp writes b to a file named name in a new temporary directory of
// t and returns its path.
func WriteTemp(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
