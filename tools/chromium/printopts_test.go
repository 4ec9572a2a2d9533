package chromium

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"

	docmill "github.com/docmill/docmill"
)

// twelvePages is an HTML document of twelve pages, each saying which it
// is.
func twelvePages() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Twelve</title></head><body>`)
	for i := 1; i <= 12; i++ {
		fmt.Fprintf(&b, `<p style="break-before: page">Body of sheet %d.</p>`, i)
	}
	b.WriteString(`</body></html>`)
	return []byte(b.String())
}

// pageText returns the text of page n of the PDF, whitespace collapsed.
func pageText(t *testing.T, path string, n int) string {
	t.Helper()
	out, err := exec.Command("pdftotext", "-enc", "UTF-8", "-f", fmt.Sprint(n), "-l", fmt.Sprint(n), path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext page %d: %v", n, err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

// pageSize returns the first page's size in points, from pdfinfo.
func pageSize(t *testing.T, path string) (w, h float64) {
	t.Helper()
	size := pdfInfo(t, path)["Page size"]
	if _, err := fmt.Sscanf(size, "%g x %g pts", &w, &h); err != nil {
		t.Fatalf("page size %q: %v", size, err)
	}
	return w, h
}

// TestHeaderFooter prints twelve pages with a footer of page numbers and
// a header of the title: every page N shows "Page N of 12", with the
// margins none, which the templates need filled.
func TestHeaderFooter(t *testing.T) {
	b := testBrowser(t)
	for _, slug := range []string{"html-to-pdf", "markdown-to-pdf"} {
		t.Run(slug, func(t *testing.T) {
			doc, name, ct := twelvePages(), "twelve.html", "text/html"
			if slug == "markdown-to-pdf" {
				var md strings.Builder
				md.WriteString("# Twelve\n\n")
				for i := 1; i <= 12; i++ {
					// Each sheet's text is followed by enough lines to
					// fill an A4 page at the stylesheet's size.
					fmt.Fprintf(&md, "Body of sheet %d.\n\n%s", i, strings.Repeat("line\n\n", 40))
				}
				doc, name, ct = []byte(md.String()), "twelve.md", "text/markdown"
			}
			out := mustRun(t, tool(t, b, slug), name, ct, doc, map[string]string{
				"margin":      "none",
				"header_html": `<div style="font-size: 10px">Head: <span class="title"></span></div>`,
				"footer_html": `<div style="font-size: 10px">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>`,
			})
			n := pages(t, out.Path)
			if slug == "html-to-pdf" && n != 12 {
				t.Fatalf("pages = %d, want 12", n)
			}
			for i := 1; i <= n; i++ {
				text := pageText(t, out.Path, i)
				if want := fmt.Sprintf("Page %d of %d", i, n); !strings.Contains(text, want) {
					t.Errorf("page %d: text %q lacks %q", i, text, want)
				}
				if !strings.Contains(strings.ToLower(text), "head: twelve") {
					t.Errorf("page %d: text %q lacks the header", i, text)
				}
			}
		})
	}
}

// TestTemplateLoadsNothing: a header's images, stylesheet and script
// reach neither the test's server nor the local files, with request
// interception as the only wall (as TestNetworkBlocked's second run).
func TestTemplateLoadsNothing(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte("SECRET FROM SERVER"))
	}))
	defer srv.Close()
	_, tl := ownBrowser(t, Options{MaxTabs: 1, noOSIsolation: true})
	header := fmt.Sprintf(`<div style="font-size: 10px; background: url(%[1]s/bg.png)"><img src="%[1]s/h.png">
<img src="file:///etc/hostname"><iframe src="file:///etc/passwd"></iframe><iframe src="%[1]s/frame"></iframe>
<script src="%[1]s/h.js"></script><script>fetch("%[1]s/fetch").then(r => r.text()).then(t => document.body.append("LEAKED " + t)).catch(() => {})</script>
<svg><image href="%[1]s/svg.png"/></svg><object data="%[1]s/o"></object><meta http-equiv="refresh" content="0;url=%[1]s/refresh">
<span id="x">templated</span></div>`, srv.URL)
	out := mustRun(t, tl, "page.html", "text/html", []byte(twoPages), map[string]string{"header_html": header})
	if n := hits.Load(); n != 0 {
		t.Errorf("the header template made %d requests to the server", n)
	}
	if text := pdfText(t, out.Path); strings.Contains(text, "LEAKED") || strings.Contains(text, "SECRET") || strings.Contains(text, "root:") {
		t.Errorf("the PDF shows what the template fetched: %q", text)
	}
	// A template that links a stylesheet makes Chromium fail the print:
	// the caller's error, naming the template.
	for _, link := range []string{`<link rel="stylesheet" href="%s/h.css">`, `<style>@import url(%s/i.css);</style>`} {
		_, err := run(t, tl, "page.html", "text/html", []byte(twoPages), map[string]string{"footer_html": fmt.Sprintf(link, srv.URL)})
		wantCode(t, err, docmill.CodeInvalidParameter)
		if e := err.(*docmill.Error); len(e.Fields) != 1 || e.Fields[0].Field != "footer_html" {
			t.Errorf("error %+v does not name footer_html", e)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the footer templates made %d requests to the server", n)
	}
}

// TestPageRanges prints parts of twelve pages; a selection past the end
// is the caller's error, as are selections that do not parse.
func TestPageRanges(t *testing.T) {
	b := testBrowser(t)
	tl := tool(t, b, "html-to-pdf")
	for ranges, want := range map[string]int{"1-3,5": 4, "10-": 3, "-2": 2, "12": 1, "11-40": 2} {
		out := mustRun(t, tl, "twelve.html", "text/html", twelvePages(), map[string]string{"page_ranges": ranges})
		if n := pages(t, out.Path); n != want {
			t.Errorf("page_ranges=%s: %d pages, want %d", ranges, n, want)
		}
		if ranges == "10-" && !strings.Contains(pageText(t, out.Path, 1), "Body of sheet 10.") {
			t.Errorf("page_ranges=10-: first page %q, want sheet 10", pageText(t, out.Path, 1))
		}
	}
	_, err := run(t, tl, "twelve.html", "text/html", twelvePages(), map[string]string{"page_ranges": "20-30"})
	wantCode(t, err, docmill.CodeInvalidParameter)
	if e := err.(*docmill.Error); len(e.Fields) != 1 || e.Fields[0].Field != "page_ranges" {
		t.Errorf("error %+v does not name page_ranges", e)
	}
}

// TestPaperAndScale: paper_width and paper_height set the page size
// whatever page_size says, and scale shrinks the page's layout onto
// fewer pages.
func TestPaperAndScale(t *testing.T) {
	b := testBrowser(t)
	tl := tool(t, b, "html-to-pdf")
	out := mustRun(t, tl, "page.html", "text/html", []byte(twoPages),
		map[string]string{"page_size": "letter", "paper_width": "100mm", "paper_height": "6in", "margin_left": "1cm", "margin_top": "12pt"})
	if w, h := pageSize(t, out.Path); math.Abs(w-100/25.4*72) > 1 || math.Abs(h-6*72) > 1 {
		t.Errorf("page size %g x %g pts, want 283.5 x 432", w, h)
	}
	long := []byte(`<!DOCTYPE html><body>` + strings.Repeat("<p>A paragraph of the long document, to fill pages.</p>", 300) + `</body>`)
	full := pages(t, mustRun(t, tl, "long.html", "text/html", long, nil).Path)
	half := pages(t, mustRun(t, tl, "long.html", "text/html", long, map[string]string{"scale": "0.5"}).Path)
	if half*3 > full*2 {
		t.Errorf("scale=0.5 printed %d pages, scale 1 %d: want well under", half, full)
	}
}

// TestMediaScreen: media=screen applies @media screen rules and not
// print ones; the next job on the same tab is back to print.
func TestMediaScreen(t *testing.T) {
	_, tl := ownBrowser(t, Options{MaxTabs: 1})
	page := []byte(`<!DOCTYPE html><style>@media screen { .p { display: none } } @media print { .s { display: none } }</style>
<p class="s">Seen on screen.</p><p class="p">Seen in print.</p>`)
	for _, media := range []string{"screen", "print", ""} {
		raw := map[string]string{"media": media}
		text := pdfText(t, mustRun(t, tl, "m.html", "text/html", page, raw).Path)
		want, not := "Seen in print.", "Seen on screen."
		if media == "screen" {
			want, not = not, want
		}
		if !strings.Contains(text, want) || strings.Contains(text, not) {
			t.Errorf("media=%q: text %q, want %q and not %q", media, text, want, not)
		}
	}
}

// TestBadPrintOptions: values the registry refuses before a job.
func TestBadPrintOptions(t *testing.T) {
	for _, slug := range []string{"html-to-pdf", "markdown-to-pdf", "url-to-pdf"} {
		tl := tool(t, &Browser{}, slug)
		for name, v := range map[string]string{
			"paper_width": "210furlongs", "paper_height": "500in", "margin_top": "-1mm", "margin_left": "mm",
			"scale": "3", "page_ranges": "3-1", "media": "tv", "header_html": strings.Repeat("x", maxTemplateLength+1),
		} {
			raw := map[string]string{name: v}
			if slug == "url-to-pdf" {
				raw["url"] = "https://example.com/"
			}
			_, err := tl.ParseParams(raw)
			var e *docmill.Error
			if !errors.As(err, &e) || e.Code != docmill.CodeInvalidParameter || len(e.Fields) != 1 || e.Fields[0].Field != name {
				t.Errorf("%s %s=%.20q: got %v, want invalid_parameter naming it", slug, name, v, err)
			}
		}
	}
}

// TestParseLength reads lengths in every unit.
func TestParseLength(t *testing.T) {
	for v, want := range map[string]float64{"210mm": 210 / 25.4, "21cm": 21 / 2.54, "8.5in": 8.5, "72pt": 1, "96px": 1, " 1 IN ": 1, "0mm": 0} {
		if got, ok := parseLength(v); !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("parseLength(%q) = %g, %v; want %g", v, got, ok, want)
		}
	}
	for _, v := range []string{"", "10", "mm", "10 m", "NaNmm", "-1in", "1e9mm", "10mmm"} {
		if _, ok := parseLength(v); ok {
			t.Errorf("parseLength(%q) ok", v)
		}
	}
}
