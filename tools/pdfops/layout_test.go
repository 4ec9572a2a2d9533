package pdfops_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// This file holds what the tests of the layout tools (resize-pdf, nup-pdf,
// booklet-pdf, insert-pages) share: they read the results with poppler,
// not with pdfcpu, which wrote them.

var layoutSizeRE = regexp.MustCompile(`(?m)^Page\s+(\d+)\s+size:\s+([\d.]+) x ([\d.]+) pts`)

// layoutSizes returns the size in points of every page of path, as
// pdfinfo reads it (rounded to the point).
func layoutSizes(t testing.TB, path string) [][2]int {
	t.Helper()
	selPoppler(t)
	n := selPageCount(t, path)
	var out [][2]int
	for _, m := range layoutSizeRE.FindAllStringSubmatch(selExec(t, "pdfinfo", "-f", "1", "-l", strconv.Itoa(n), path), -1) {
		w, _ := strconv.ParseFloat(m[2], 64)
		h, _ := strconv.ParseFloat(m[3], 64)
		out = append(out, [2]int{int(w + 0.5), int(h + 0.5)})
	}
	if len(out) != n {
		t.Fatalf("pdfinfo gives %d page sizes for %d pages", len(out), n)
	}
	return out
}

// layoutTexts returns the text of every page of path as pdftotext reads
// it, spaces collapsed.
func layoutTexts(t testing.TB, path string) []string {
	t.Helper()
	selPoppler(t)
	pages := strings.Split(selExec(t, "pdftotext", "-layout", path, "-"), "\f")
	pages = pages[:len(pages)-1] // after the last form feed
	for i, p := range pages {
		pages[i] = strings.Join(strings.Fields(p), " ")
	}
	return pages
}

// layoutPDF writes a text PDF of one page per text (toolstest.TextPDF).
func layoutPDF(t testing.TB, texts ...string) string {
	t.Helper()
	return toolstest.WriteTemp(t, "layout.pdf", toolstest.TextPDF(texts...))
}

// numberedPDF writes a PDF of n pages showing "Page 1" to "Page n".
func numberedPDF(t testing.TB, n int) string {
	t.Helper()
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("Page %d", i+1)
	}
	return layoutPDF(t, texts...)
}

// sharedContentPDF writes a PDF of pages pages that all draw one content
// stream of size bytes: small on disk, large once each page's content
// is copied.
func sharedContentPDF(t testing.TB, pages, size int) string {
	t.Helper()
	content := strings.Repeat("% padding line of a shared content stream\n", size/42+1)
	kids := make([]string, pages)
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)}
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", len(objects)+1)
		objects = append(objects, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 3 0 R >>")
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages)
	return toolstest.WriteTemp(t, "shared.pdf", toolstest.PDF(objects...))
}

// runLimited runs tool slug on paths (PDFs) with limits.
func runLimited(t testing.TB, slug string, params map[string]string, limits docmill.Limits, paths ...string) (*docmill.RunOutput, error) {
	t.Helper()
	return runWithin(t, tool(t, slug), params, limits, func(int) string { return "application/pdf" }, paths...)
}

// wantCopyLimit checks that slug refuses a document whose pages share one
// large content stream as past the limit on copied content.
func wantCopyLimit(t *testing.T, slug string, params map[string]string) {
	t.Helper()
	limits := docmill.DefaultLimits()
	limits.JobDecodedBytes = 4 << 20
	_, err := runLimited(t, slug, params, limits, sharedContentPDF(t, 40, 256<<10))
	e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
	if !strings.Contains(e.Message, "limit") {
		t.Fatalf("message %q does not name the limit", e.Message)
	}
}
