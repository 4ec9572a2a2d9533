package chromium

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// shared is the browser the tests share, started on its first job and
// closed by TestMain.
var (
	sharedOnce sync.Once
	shared     *Browser
)

// TestMain runs the tests, or, started by toolstest.Helpers, serves
// MarkdownPageStep as a jailed helper, as `docmill engine markdown` does.
func TestMain(m *testing.M) {
	toolstest.MainWith(m, func() {
		if shared != nil {
			shared.Close()
		}
	}, MarkdownPageStep())
}

// markdownPage runs MarkdownPageStep in a jailed helper of this test
// binary, as cmd/docmill wires it.
func markdownPage(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	return toolstest.Helpers().Step(MarkdownPageStep())(ctx, in)
}

// testBrowser returns the shared browser, skipping the test when Chromium
// or poppler's tools (which check the PDFs) are missing.
func testBrowser(t testing.TB) *Browser {
	t.Helper()
	toolstest.NeedAt(t, "chromium", ExecPath())
	for _, p := range []string{"pdfinfo", "pdftotext"} {
		toolstest.Need(t, p)
	}
	// A wait_for selector is waited for 3 s, not 30 (TestWaitForHTML).
	sharedOnce.Do(func() { shared = New(Options{MaxTabs: 4, MarkdownPage: markdownPage, selectorWait: 3 * time.Second}) })
	if !shared.Available() {
		t.Fatal("chromium is installed but not found")
	}
	return shared
}

// ownBrowser starts a browser of the test's own with opts, when the
// shared one can run (testBrowser), closed when the test ends; it returns
// the browser and its html-to-pdf tool.
func ownBrowser(t *testing.T, opts Options) (*Browser, *docmill.Tool) {
	t.Helper()
	testBrowser(t)
	b := New(opts)
	t.Cleanup(b.Close)
	return b, tool(t, b, "html-to-pdf")
}

// tool returns b's tool with slug.
func tool(t testing.TB, b *Browser, slug string) *docmill.Tool {
	t.Helper()
	return toolstest.Find(t, b.Tools(), slug)
}

// run validates raw params as the API does and runs the tool on a file
// holding data, named name, of content type ct.
func run(t testing.TB, tl *docmill.Tool, name, ct string, data []byte, raw map[string]string) (*docmill.RunOutput, error) {
	t.Helper()
	params, err := tl.ParseParams(raw)
	if err != nil {
		t.Fatalf("params: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "input-0"+filepath.Ext(name))
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	in := &docmill.RunInput{
		Files:   []docmill.LocalFile{{Path: path, Filename: name, ContentType: ct, Size: int64(len(data))}},
		Params:  params,
		WorkDir: dir,
	}
	ctx, cancel := context.WithTimeout(context.Background(), tl.Timeout)
	defer cancel()
	return tl.Invoke(ctx, in)
}

// mustRun is run that fails the test on an error.
func mustRun(t testing.TB, tl *docmill.Tool, name, ct string, data []byte, raw map[string]string) *docmill.RunOutput {
	t.Helper()
	out, err := run(t, tl, name, ct, data, raw)
	if err != nil {
		t.Fatalf("%s: %v", tl.Slug, err)
	}
	return out
}

// pdfInfo returns pdfinfo's fields of the PDF at path.
func pdfInfo(t testing.TB, path string) map[string]string {
	t.Helper()
	out, err := exec.Command("pdfinfo", path).Output()
	if err != nil {
		t.Fatalf("pdfinfo: %v", err)
	}
	info := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			info[k] = strings.TrimSpace(v)
		}
	}
	return info
}

func pages(t testing.TB, path string) int {
	t.Helper()
	n, err := strconv.Atoi(pdfInfo(t, path)["Pages"])
	if err != nil {
		t.Fatalf("pages: %v", err)
	}
	return n
}

// pdfText returns the PDF's text, whitespace collapsed.
func pdfText(t testing.TB, path string) string {
	t.Helper()
	out, err := exec.Command("pdftotext", "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

// wantCode fails t unless err is a docmill error with code.
func wantCode(t testing.TB, err error, code docmill.Code) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	if got := docmill.ErrorCode(err); got != code {
		t.Fatalf("got %s (%v), want %s", got, err, code)
	}
}

const twoPages = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head>
<body><h1>Quarterly report</h1><p>The first page says hello.</p>
<p style="break-before: page">The second page says goodbye.</p></body></html>`

func TestHTMLToPDF(t *testing.T) {
	b := testBrowser(t)
	out := mustRun(t, tool(t, b, "html-to-pdf"), "report.html", "text/html", []byte(twoPages), nil)
	if out.Filename != "report.pdf" || out.ContentType != "application/pdf" {
		t.Fatalf("output %+v", out)
	}
	if n := pages(t, out.Path); n != 2 {
		t.Fatalf("pages = %d, want 2", n)
	}
	text := pdfText(t, out.Path)
	for _, want := range []string{"Quarterly report", "The first page says hello.", "The second page says goodbye."} {
		if !strings.Contains(text, want) {
			t.Errorf("text %q lacks %q", text, want)
		}
	}
	if title := pdfInfo(t, out.Path)["Title"]; title != "t" {
		t.Errorf("Title %q, want the page's own, t", title)
	}
	untitled := mustRun(t, tool(t, b, "html-to-pdf"), "report.html", "text/html", []byte(`<!DOCTYPE html><p>No title.</p>`), nil)
	if title := pdfInfo(t, untitled.Path)["Title"]; title != "report" {
		t.Errorf("Title %q of an untitled page, want the file's name, report", title)
	}
	if info := pdfInfo(t, out.Path); !strings.HasPrefix(info["Page size"], "595") {
		t.Errorf("default page size %q, want A4 (595 x 842 pts)", info["Page size"])
	}
}

// TestTagged checks the tagged param: by default the PDF has no structure
// tree; tagged=true gives a tagged PDF (pdfinfo's "Tagged: yes") whose
// text is the same.
func TestTagged(t *testing.T) {
	b := testBrowser(t)
	tl := tool(t, b, "html-to-pdf")
	for _, tc := range []struct {
		raw  map[string]string
		want string
	}{
		{nil, "no"},
		{map[string]string{"tagged": "false"}, "no"},
		{map[string]string{"tagged": "true"}, "yes"},
	} {
		out := mustRun(t, tl, "report.html", "text/html", []byte(twoPages), tc.raw)
		if got := pdfInfo(t, out.Path)["Tagged"]; got != tc.want {
			t.Errorf("%v: Tagged %q, want %q", tc.raw, got, tc.want)
		}
		if text := pdfText(t, out.Path); !strings.Contains(text, "The second page says goodbye.") {
			t.Errorf("%v: text %q lacks the second page", tc.raw, text)
		}
	}
}

func TestPageSizeAndOrientation(t *testing.T) {
	b := testBrowser(t)
	tl := tool(t, b, "html-to-pdf")
	for _, tc := range []struct {
		params map[string]string
		want   *regexp.Regexp
	}{
		{map[string]string{"page_size": "letter"}, regexp.MustCompile(`^612 x 792 pts`)},
		{map[string]string{"page_size": "letter", "landscape": "true"}, regexp.MustCompile(`^792 x 612 pts`)},
		{map[string]string{"page_size": "a5", "margin": "none"}, regexp.MustCompile(`^42\d(\.\d+)? x 59\d(\.\d+)? pts \(A5\)`)},
		{map[string]string{"page_size": "a3", "landscape": "true", "margin": "small"}, regexp.MustCompile(`^119\d(\.\d+)? x 84\d(\.\d+)? pts \(A3\)`)},
		{map[string]string{"page_size": "legal", "print_background": "false"}, regexp.MustCompile(`^612 x 1008 pts`)},
	} {
		out := mustRun(t, tl, "p.html", "text/html", []byte(twoPages), tc.params)
		if got := pdfInfo(t, out.Path)["Page size"]; !tc.want.MatchString(got) {
			t.Errorf("%v: page size %q, want %v", tc.params, got, tc.want)
		}
	}
}

// pngBytes returns a small PNG.
func pngBytes(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 40, 20))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	img.Set(0, 0, color.RGBA{255, 0, 0, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// zipOf returns a zip of the named contents, in order.
func zipOf(t testing.TB, files ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < len(files); i += 2 {
		w, err := zw.Create(files[i])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[i+1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// siteIndex uses a stylesheet (its ::after content shows in the text) and
// an image (its onload handler writes a marker), both relative.
const siteIndex = `<!DOCTYPE html><html><head><meta charset="utf-8">
<link rel="stylesheet" href="css/style.css"></head><body>
<h1 class="styled">Site title</h1>
<img src="img/logo.png" onload="document.getElementById('m').textContent='IMAGE LOADED'"
     onerror="document.getElementById('m').textContent='IMAGE FAILED'">
<p id="m">image pending</p></body></html>`

func TestZipSite(t *testing.T) {
	b := testBrowser(t)
	tl := tool(t, b, "html-to-pdf")
	for _, prefix := range []string{"", "mysite/"} {
		data := zipOf(t,
			prefix+"index.html", siteIndex,
			prefix+"css/style.css", `.styled::after { content: " STYLED BY CSS"; } body { background: #eef; }`,
			prefix+"img/logo.png", string(pngBytes(t)),
		)
		out := mustRun(t, tl, "site.zip", "application/zip", data, nil)
		if out.Filename != "site.pdf" {
			t.Errorf("filename %q", out.Filename)
		}
		text := pdfText(t, out.Path)
		for _, want := range []string{"Site title STYLED BY CSS", "IMAGE LOADED"} {
			if !strings.Contains(text, want) {
				t.Errorf("prefix %q: text %q lacks %q", prefix, text, want)
			}
		}
	}
}

func TestMarkdownToPDF(t *testing.T) {
	b := testBrowser(t)
	md := "# Отчёт о работе\n\nПривет, мир! Это *тест* с ~~зачёркнутым~~ текстом.\n\n" +
		"| Город | Население |\n|---|---:|\n| Москва | 13000000 |\n| Berlin | 3700000 |\n\n" +
		"- [x] done task\n- [ ] open task\n\n<script>document.write('RAW HTML RAN')</script>\n\nhttps://example.com autolinked\n"
	out := mustRun(t, tool(t, b, "markdown-to-pdf"), "notes.md", "text/plain", []byte(md), map[string]string{"page_size": "letter"})
	if out.Filename != "notes.pdf" {
		t.Errorf("filename %q", out.Filename)
	}
	text := pdfText(t, out.Path)
	for _, want := range []string{"Отчёт о работе", "Привет, мир!", "Город", "Население", "Москва", "13000000", "done task", "https://example.com"} {
		if !strings.Contains(text, want) {
			t.Errorf("text %q lacks %q", text, want)
		}
	}
	if strings.Contains(text, "RAW HTML RAN") {
		t.Error("raw HTML in the Markdown ran")
	}
	if n := pages(t, out.Path); n != 1 {
		t.Errorf("pages = %d, want 1", n)
	}
}

func TestMarkdownNotUTF8(t *testing.T) {
	b := testBrowser(t)
	_, err := run(t, tool(t, b, "markdown-to-pdf"), "x.md", "text/plain", []byte("\xcf\xf0\xe8\xe2\xe5\xf2 cp1251"), nil)
	wantCode(t, err, docmill.CodeInvalidDocument)
}

func TestZipUnsafe(t *testing.T) {
	b := testBrowser(t)
	tl := tool(t, b, "html-to-pdf")
	for name, data := range map[string][]byte{
		"traversal":   zipOf(t, "index.html", "<p>x</p>", "../evil.html", "evil"),
		"deep climb":  zipOf(t, "a/../../evil", "evil", "index.html", "<p>x</p>"),
		"absolute":    zipOf(t, "/etc/evil", "evil", "index.html", "<p>x</p>"),
		"no index":    zipOf(t, "page.html", "<p>x</p>"),
		"two folders": zipOf(t, "a/index.html", "<p>x</p>", "b/x.css", ""),
		"not a zip":   []byte("PK\x03\x04 but nothing more"),
	} {
		_, err := run(t, tl, "site.zip", "application/zip", data, nil)
		if docmill.ErrorCode(err) != docmill.CodeInvalidDocument {
			t.Errorf("%s: got %v, want invalid_document", name, err)
		}
	}
}

func TestUnavailable(t *testing.T) {
	b := New(Options{ExecPath: "/nonexistent/chromium"})
	defer b.Close()
	tl := tool(t, b, "html-to-pdf")
	if tl.IsAvailable() || b.Status().Available {
		t.Fatal("a missing binary is available")
	}
	_, err := run(t, tl, "a.html", "text/html", []byte(twoPages), nil)
	wantCode(t, err, docmill.CodeEngineUnavailable)
}

func TestStatus(t *testing.T) {
	b := testBrowser(t)
	st := b.Status()
	if !st.Available || st.Path == "" || !strings.Contains(st.Version, "Chromium") {
		t.Fatalf("status %+v", st)
	}
	t.Logf("engine: %+v", st)
}

// TestCrashRestart kills the browser's process group, as the OOM killer
// would, and checks that the next job gets a new browser and succeeds.
func TestCrashRestart(t *testing.T) {
	b, tl := ownBrowser(t, Options{MaxTabs: 2})
	mustRun(t, tl, "a.html", "text/html", []byte(twoPages), nil)
	pid := b.killForTest()
	if pid == 0 {
		t.Fatal("no browser running")
	}
	out := mustRun(t, tl, "b.html", "text/html", []byte(twoPages), nil)
	if n := pages(t, out.Path); n != 2 {
		t.Fatalf("pages = %d after restart", n)
	}
	b.mu.Lock()
	newPid := b.cur.pid
	b.mu.Unlock()
	if newPid == pid {
		t.Fatal("the dead browser was reused")
	}
}

// TestRestartAfter checks that a browser is replaced after RestartAfter
// jobs.
func TestRestartAfter(t *testing.T) {
	b, tl := ownBrowser(t, Options{MaxTabs: 1, RestartAfter: 2})
	pids := map[int]bool{}
	for range 3 {
		mustRun(t, tl, "a.html", "text/html", []byte(twoPages), nil)
		b.mu.Lock()
		pids[b.cur.pid] = true
		b.mu.Unlock()
	}
	if len(pids) != 2 {
		t.Fatalf("3 jobs with RestartAfter 2 ran on %d browsers, want 2", len(pids))
	}
}

func TestCanceled(t *testing.T) {
	b := testBrowser(t)
	tl := tool(t, b, "html-to-pdf")
	params, _ := tl.ParseParams(nil)
	dir := t.TempDir()
	path := filepath.Join(dir, "input-0.html")
	os.WriteFile(path, []byte(`<script>for(;;){}</script>`), 0o600)
	ctx, cancel := context.WithTimeout(context.Background(), 2e9)
	defer cancel()
	_, err := tl.Invoke(ctx, &docmill.RunInput{Files: []docmill.LocalFile{{Path: path, Filename: "a.html", ContentType: "text/html"}}, Params: params, WorkDir: dir})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a page that never loads: got %v, want the deadline", err)
	}
	// The browser still serves the next job.
	mustRun(t, tl, "a.html", "text/html", []byte(twoPages), nil)
}
