package chromium

import (
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// outline returns the PDF's bookmarks as qpdf reads them, each
// "depth title" (depth 1 at the top), in order.
func outline(t *testing.T, path string) []string {
	t.Helper()
	toolstest.Need(t, "qpdf")
	out, err := exec.Command("qpdf", "--json=2", "--json-key=outlines", path).Output()
	if err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	type item struct {
		Title string `json:"title"`
		Kids  []item `json:"kids"`
	}
	var doc struct {
		Outlines []item `json:"outlines"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	var got []string
	var walk func(items []item, depth int)
	walk = func(items []item, depth int) {
		for _, it := range items {
			got = append(got, fmt.Sprintf("%d %s", depth, it.Title))
			walk(it.Kids, depth+1)
		}
	}
	walk(doc.Outlines, 1)
	return got
}

// headings is a page of three levels of headings over two pages.
const headings = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Handbook</title></head><body>
<h1>Alpha chapter</h1><p>Text.</p><h2>Alpha section</h2><p>Text.</p><h3>Alpha detail</h3><p>Text.</p>
<h1 style="break-before: page">Beta chapter</h1><h2>Beta section</h2><p>Text.</p></body></html>`

// TestOutline: outline=true gives one bookmark per heading, nested by
// level, in the page's order; by default there is none.
func TestOutline(t *testing.T) {
	b := testBrowser(t)
	tl := tool(t, b, "html-to-pdf")
	want := []string{"1 Alpha chapter", "2 Alpha section", "3 Alpha detail", "1 Beta chapter", "2 Beta section"}
	out := mustRun(t, tl, "handbook.html", "text/html", []byte(headings), map[string]string{"outline": "true"})
	if got := outline(t, out.Path); !slices.Equal(got, want) {
		t.Errorf("outline %q, want %q", got, want)
	}
	out = mustRun(t, tl, "handbook.html", "text/html", []byte(headings), nil)
	if got := outline(t, out.Path); len(got) != 0 {
		t.Errorf("outline by default: %q, want none", got)
	}
	md := "# Alpha chapter\n\nText.\n\n## Alpha section\n\nText.\n\n### Alpha detail\n\n# Beta chapter\n\n## Beta section\n"
	out = mustRun(t, tool(t, b, "markdown-to-pdf"), "handbook.md", "text/markdown", []byte(md), map[string]string{"outline": "true"})
	if got := outline(t, out.Path); !slices.Equal(got, want) {
		t.Errorf("markdown outline %q, want %q", got, want)
	}
}

// TestSinglePage: a document of many A4 pages, forced breaks included,
// prints on one page taller than A4 at A4's width; landscape takes the
// long side as the width.
func TestSinglePage(t *testing.T) {
	b := testBrowser(t)
	tl := tool(t, b, "html-to-pdf")
	long := strings.Repeat("<p>A paragraph of the long document, to fill pages.</p>", 200)
	page := []byte(`<!DOCTYPE html><body>` + long + `<p style="break-before: page">The last words.</p></body>`)
	if n := pages(t, mustRun(t, tl, "long.html", "text/html", page, nil).Path); n < 4 {
		t.Fatalf("the document prints on %d pages, want several", n)
	}
	for _, landscape := range []string{"false", "true"} {
		out := mustRun(t, tl, "long.html", "text/html", page, map[string]string{"single_page": "true", "landscape": landscape})
		if n := pages(t, out.Path); n != 1 {
			t.Errorf("landscape=%s: %d pages, want 1", landscape, n)
		}
		w, h := pageSize(t, out.Path)
		wantW := 595.0
		if landscape == "true" {
			wantW = 842
		}
		if w < wantW-1 || w > wantW+1 || h < 4*842 {
			t.Errorf("landscape=%s: page %g x %g pts, want %g wide and much taller than A4", landscape, w, h, wantW)
		}
		if text := pdfText(t, out.Path); !strings.Contains(text, "The last words.") {
			t.Errorf("landscape=%s: the last words are missing", landscape)
		}
	}
}

// TestWaitForHTML: wait_for on html-to-pdf waits for what a script adds
// after the load, by time or by selector; a selector that never matches
// prints the page as it is once the wait is over, with
// meta.wait_timed_out.
func TestWaitForHTML(t *testing.T) {
	tl := tool(t, testBrowser(t), "html-to-pdf")
	page := []byte(`<!DOCTYPE html><body><p>Early text.</p><script>setTimeout(() => {
  const p = document.createElement("p"); p.id = "late"; p.textContent = "Late text."; document.body.append(p);
}, 700)</script></body>`)
	// Every wait outlasts the script's timeout (testBrowser waits 3 s
	// for a selector), so the late text is always there.
	for _, c := range []struct {
		wait     string
		timedOut bool
	}{
		{"3000", false},
		{"#late", false},
		{"#never", true},
	} {
		out := mustRun(t, tl, "late.html", "text/html", page, map[string]string{"wait_for": c.wait})
		if text := pdfText(t, out.Path); !strings.Contains(text, "Late text.") || !strings.Contains(text, "Early text.") {
			t.Errorf("wait_for=%q: text %q lacks the late text", c.wait, text)
		}
		if got := out.Meta["wait_timed_out"]; got != c.timedOut {
			t.Errorf("wait_for=%q: wait_timed_out %v, want %v", c.wait, got, c.timedOut)
		}
	}
}

// TestBadOutputOptions: values and combinations refused before a job,
// naming the param at fault.
func TestBadOutputOptions(t *testing.T) {
	for _, slug := range []string{"html-to-pdf", "markdown-to-pdf", "url-to-pdf"} {
		tl := tool(t, &Browser{}, slug)
		for _, c := range []struct {
			raw   map[string]string
			field string
		}{
			{map[string]string{"outline": "maybe"}, "outline"},
			{map[string]string{"single_page": "2"}, "single_page"},
			{map[string]string{"pdfa": "4b"}, "pdfa"},
			{map[string]string{"pdfa": "2u"}, "pdfa"},
			{map[string]string{"pdfua": "yes please"}, "pdfua"},
			{map[string]string{"wait_for": "30001"}, "wait_for"},
			{map[string]string{"wait_for": strings.Repeat("p", maxSelectorLength+1)}, "wait_for"},
			{map[string]string{"pdfa": "2b", "pdfua": "true"}, "pdfua"},
			{map[string]string{"pdfa": "1b", "tagged": "true"}, "tagged"},
			{map[string]string{"single_page": "true", "paper_height": "10in"}, "paper_height"},
			{map[string]string{"single_page": "true", "page_ranges": "1"}, "page_ranges"},
			{map[string]string{"single_page": "true", "prefer_css_page_size": "true"}, "prefer_css_page_size"},
		} {
			raw := c.raw
			if slug == "url-to-pdf" {
				raw["url"] = "https://example.com/"
			}
			_, err := tl.ParseParams(raw)
			var e *docmill.Error
			if !errors.As(err, &e) || e.Code != docmill.CodeInvalidParameter || len(e.Fields) != 1 || e.Fields[0].Field != c.field {
				t.Errorf("%s %v: got %v, want invalid_parameter naming %s", slug, c.raw, err, c.field)
			}
			delete(raw, "url")
		}
		for _, ok := range []map[string]string{{"pdfa": "none", "pdfua": "true"}, {"pdfa": "3b", "outline": "true", "single_page": "true"}} {
			if slug == "url-to-pdf" {
				ok["url"] = "https://example.com/"
			}
			if _, err := tl.ParseParams(ok); err != nil {
				t.Errorf("%s %v: %v", slug, ok, err)
			}
			delete(ok, "url")
		}
	}
}

// TestOutputUnavailable: pdfa and pdfua on a node without their steps
// are engine_unavailable, not a PDF without what was asked.
func TestOutputUnavailable(t *testing.T) {
	b := testBrowser(t)
	tl := tool(t, b, "html-to-pdf")
	for _, raw := range []map[string]string{{"pdfa": "2b"}, {"pdfua": "true"}} {
		_, err := run(t, tl, "page.html", "text/html", []byte(twoPages), raw)
		wantCode(t, err, docmill.CodeEngineUnavailable)
	}
}
