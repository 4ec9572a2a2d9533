package chromium

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/internal/testsite"
)

// runLimited validates raw as the API does and runs tl with limits l, on
// a file holding data named name of type ct ("" for a tool that takes
// none).
func runLimited(t *testing.T, tl *docmill.Tool, l docmill.Limits, name, ct string, data []byte, raw map[string]string) (*docmill.RunOutput, error) {
	t.Helper()
	params, err := tl.ParseParams(raw)
	if err != nil {
		t.Fatalf("params: %v", err)
	}
	dir := t.TempDir()
	in := &docmill.RunInput{Params: params, WorkDir: dir, Limits: l}
	if name != "" {
		path := filepath.Join(dir, "input-0"+filepath.Ext(name))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		in.Files = []docmill.LocalFile{{Path: path, Filename: name, ContentType: ct, Size: int64(len(data))}}
	}
	ctx, cancel := context.WithTimeout(t.Context(), tl.Timeout)
	defer cancel()
	return tl.Invoke(ctx, in)
}

// TestJobLimits: each tool holds a job to the limits of its RunInput,
// not to defaults of its own: a printed PDF over PrintedPDFBytes and a
// Markdown file over MarkdownBytes are file_too_large (the Markdown step
// in the helper checks too), and a page whose document is over
// FetchResponseBytes, or that takes more than FetchRequests requests to
// reach (a redirect chain), fails as fetch_failed. The same jobs pass
// within the defaults.
func TestJobLimits(t *testing.T) {
	b := testBrowser(t)
	page := []byte("<h1>" + strings.Repeat("A page of some length. ", 200) + "</h1>")
	html := tool(t, b, "html-to-pdf")
	_, err := runLimited(t, html, docmill.Limits{PrintedPDFBytes: 1000}, "p.html", "text/html", page, nil)
	wantCode(t, err, docmill.CodeFileTooLarge)
	if _, err := runLimited(t, html, docmill.Limits{}, "p.html", "text/html", page, nil); err != nil {
		t.Fatalf("within the defaults: %v", err)
	}

	md := []byte("# Title\n\nSome text.\n")
	_, err = runLimited(t, tool(t, b, "markdown-to-pdf"), docmill.Limits{MarkdownBytes: 10}, "a.md", "text/markdown", md, nil)
	wantCode(t, err, docmill.CodeFileTooLarge)
	dir := t.TempDir()
	path := filepath.Join(dir, "input-0.md")
	if err := os.WriteFile(path, md, 0o600); err != nil {
		t.Fatal(err)
	}
	// The step is given no Size, so its own read is what refuses.
	_, err = markdownPage(t.Context(), &docmill.RunInput{Files: []docmill.LocalFile{{Path: path, Filename: "a.md", ContentType: "text/markdown"}},
		WorkDir: dir, Limits: docmill.Limits{MarkdownBytes: 10}})
	wantCode(t, err, docmill.CodeFileTooLarge)

	site := testsite.New(t)
	pages, _ := ownBrowser(t, Options{MaxTabs: 2, Pages: pagesClient(true)})
	_, err = runLimited(t, tool(t, pages, "url-to-pdf"), docmill.Limits{FetchResponseBytes: 100}, "", "", nil, map[string]string{"url": site.URL + "/page"})
	wantCode(t, err, docmill.CodeFetchFailed)
	// "/" redirects twice before the page: a third request is one too many.
	_, err = runLimited(t, tool(t, pages, "url-to-image"), docmill.Limits{FetchRequests: 2}, "", "", nil, map[string]string{"url": site.URL + "/"})
	wantCode(t, err, docmill.CodeFetchFailed)
	if _, err := runLimited(t, tool(t, pages, "url-to-image"), docmill.Limits{}, "", "", nil, map[string]string{"url": site.URL + "/"}); err != nil {
		t.Fatalf("within the defaults: %v", err)
	}
}
