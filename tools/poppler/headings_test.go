package poppler

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// headingLines are a document of three heading sizes over 11-point body
// text, with a page number set large (no letter: not a heading) and a
// heading on two lines.
func headingLines() []toolstest.HeadingLine {
	body := func(page int) []toolstest.HeadingLine {
		var out []toolstest.HeadingLine
		for range 6 {
			out = append(out, toolstest.HeadingLine{Page: page, Size: 11, Text: "Body text of the report, set in the size most characters have."})
		}
		return out
	}
	var lines []toolstest.HeadingLine
	lines = append(lines, toolstest.HeadingLine{Page: 1, Size: 24, Text: "Annual Report"}, toolstest.HeadingLine{Page: 1, Size: 16, Text: "Introduction"})
	lines = append(lines, body(1)...)
	lines = append(lines, toolstest.HeadingLine{Page: 2, Size: 16, Text: "Methods"}, toolstest.HeadingLine{Page: 2, Size: 13.5, Text: "Data sources"})
	lines = append(lines, body(2)...)
	lines = append(lines, toolstest.HeadingLine{Page: 3, Size: 24, Text: "Appendix"}, toolstest.HeadingLine{Page: 3, Size: 24, Text: "and tables"})
	lines = append(lines, body(3)...)
	return append(lines, toolstest.HeadingLine{Page: 3, Size: 24, Text: "3"})
}

// flatOutline writes bookmarks as "title@page" lines, children indented.
func flatOutline(list []docmill.Bookmark, indent string) []string {
	var out []string
	for _, b := range list {
		out = append(out, indent+b.Title+"@"+string(rune('0'+b.Page)))
		out = append(out, flatOutline(b.Children, indent+"  ")...)
	}
	return out
}

// TestFindHeadings finds the headings in pdftotext's real layout of a
// generated document.
func TestFindHeadings(t *testing.T) {
	_, pdftotext, _ := testEngines(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "input-0.pdf")
	if err := os.WriteFile(src, toolstest.HeadingsPDF(headingLines()), 0o600); err != nil {
		t.Fatal(err)
	}
	in := &docmill.RunInput{WorkDir: dir, Files: []docmill.LocalFile{{Path: src, Filename: "headings.pdf", ContentType: pdfContentType}}}
	headings, err := documentHeadings(context.Background(), pdftotext, docmill.DefaultLimits().LayoutBytes, in)
	if err != nil {
		t.Fatal(err)
	}
	got := flatOutline(outlineOf(headings), "")
	want := []string{"Annual Report@1", "  Introduction@1", "  Methods@2", "    Data sources@2", "Appendix and tables@3"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("outline %q, want %q", got, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left in the work directory: %v", entries)
	}
}

// TestFindHeadingsOneSize finds none in text all of one size.
func TestFindHeadingsOneSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "layout.xhtml")
	line := `<line xMin="1" yMin="10" xMax="50" yMax="21"><word xMin="1" yMin="10" xMax="50" yMax="21">Same &amp; size</word></line>`
	doc := `<!DOCTYPE html><html><body><doc><page width="595" height="842"><flow><block>` + strings.Repeat(line, 5) + `</block></flow></page></doc></body></html>`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	headings, err := findHeadings(path)
	if err != nil || len(headings) != 0 {
		t.Fatalf("headings %+v, %v", headings, err)
	}
}

// TestFindHeadingsRunningHead leaves out a large title repeated at the
// top of every page.
func TestFindHeadingsRunningHead(t *testing.T) {
	_, pdftotext, _ := testEngines(t)
	var lines []toolstest.HeadingLine
	for page := 1; page <= 4; page++ {
		lines = append(lines, toolstest.HeadingLine{Page: page, Size: 18, Text: "Quarterly Review"})
		if page == 2 {
			lines = append(lines, toolstest.HeadingLine{Page: page, Size: 14, Text: "Findings"})
		}
		for range 5 {
			lines = append(lines, toolstest.HeadingLine{Page: page, Size: 10, Text: "Body text in the size that holds most of the characters."})
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "input-0.pdf")
	if err := os.WriteFile(src, toolstest.HeadingsPDF(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	in := &docmill.RunInput{WorkDir: dir, Files: []docmill.LocalFile{{Path: src, Filename: "review.pdf", ContentType: pdfContentType}}}
	headings, err := documentHeadings(context.Background(), pdftotext, docmill.DefaultLimits().LayoutBytes, in)
	if err != nil {
		t.Fatal(err)
	}
	if got := flatOutline(outlineOf(headings), ""); !reflect.DeepEqual(got, []string{"Findings@2"}) {
		t.Fatalf("outline %q, want only Findings", got)
	}
}

func TestBookmarkSource(t *testing.T) {
	tool := editBookmarksTool(nil, nil, docmill.DefaultLimits().LayoutBytes)
	for _, tc := range []struct {
		raw   map[string]string
		field string
	}{
		{map[string]string{"bookmarks": `[{"title": "A", "page": 1}]`}, ""},
		{map[string]string{"from_headings": "true"}, ""},
		{map[string]string{}, "bookmarks"},
		{map[string]string{"bookmarks": `[]`, "from_headings": "true"}, "from_headings"},
		{map[string]string{"bookmarks": `[{"title": "A", "page": 0}]`}, "bookmarks"},
		{map[string]string{"bookmarks": `not json`}, "bookmarks"},
	} {
		_, err := tool.ParseParams(tc.raw)
		if tc.field == "" {
			if err != nil {
				t.Errorf("%v: %v", tc.raw, err)
			}
			continue
		}
		toolstest.WantCode(t, err, docmill.CodeInvalidParameter, tc.field)
	}
}
