package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

const outlinePDF = "pdflatex-outline.pdf"

// qpdfOutline returns a PDF's outline as qpdf, another program than the
// one that wrote or read it, reads it: a line "title@page" per item in
// order, children indented by two spaces.
func qpdfOutline(t *testing.T, path string) []string {
	t.Helper()
	out, err := exec.Command("qpdf", "--json", "--json-key=outlines", "--json-key=pages", path).Output()
	if err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	type item struct {
		Title string          `json:"title"`
		Dest  json.RawMessage `json:"dest"`
		Page  *int            `json:"destpageposfrom1"`
		Kids  []item          `json:"kids"`
	}
	var doc struct {
		Outlines []item `json:"outlines"`
		Pages    []struct {
			Object string `json:"object"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	// destPage resolves an explicit destination, or a GoTo action's /D,
	// whose first element is a page object ("59 0 R").
	destPage := func(raw json.RawMessage) string {
		var arr []any
		if json.Unmarshal(raw, &arr) != nil {
			var action map[string][]any
			if json.Unmarshal(raw, &action) != nil {
				return "?"
			}
			arr = action["/D"]
		}
		if len(arr) == 0 {
			return "?"
		}
		i := slices.IndexFunc(doc.Pages, func(p struct {
			Object string `json:"object"`
		}) bool {
			return p.Object == arr[0]
		})
		return fmt.Sprint(i + 1)
	}
	var lines []string
	var walk func(items []item, indent string)
	walk = func(items []item, indent string) {
		for _, it := range items {
			page := destPage(it.Dest)
			if it.Page != nil {
				page = fmt.Sprint(*it.Page)
			}
			lines = append(lines, indent+it.Title+"@"+page)
			walk(it.Kids, indent+"  ")
		}
	}
	walk(doc.Outlines, "")
	return lines
}

// listedOutline is pdf-bookmarks' result as qpdfOutline writes it.
func listedOutline(t *testing.T, data []byte) []string {
	t.Helper()
	type entry struct {
		Title    string  `json:"title"`
		Page     *int    `json:"page"`
		Children []entry `json:"children"`
	}
	var got struct {
		Bookmarks []entry `json:"bookmarks"`
	}
	if err := json.Unmarshal(data, &got); err != nil || got.Bookmarks == nil {
		t.Fatalf("%v\n%s", err, data)
	}
	var lines []string
	var walk func(list []entry, indent string)
	walk = func(list []entry, indent string) {
		for _, e := range list {
			page := "null"
			if e.Page != nil {
				page = fmt.Sprint(*e.Page)
			}
			lines = append(lines, indent+e.Title+"@"+page)
			walk(e.Children, indent+"  ")
		}
	}
	walk(got.Bookmarks, "")
	return lines
}

func TestBookmarksE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)

	t.Run("pdf-bookmarks", func(t *testing.T) {
		j, data := runTool(t, c, "pdf-bookmarks", []client.File{file(t, "pdf", outlinePDF)}, nil)
		if j.Result.Filename != "pdflatex-outline-bookmarks.json" || !strings.HasPrefix(j.Result.ContentType, "application/json") {
			t.Fatalf("result %+v", j.Result)
		}
		got := listedOutline(t, data)
		want := qpdfOutline(t, toolstest.Corpus(t, "pdf")+"/"+outlinePDF)
		if len(want) == 0 || !equalStrings(got, want) {
			t.Fatalf("bookmarks %q, qpdf reads %q", got, want)
		}
	})
	t.Run("pdf-bookmarks-none", func(t *testing.T) {
		_, data := runTool(t, c, "pdf-bookmarks", []client.File{file(t, "pdf", fourPages)}, nil)
		if got := listedOutline(t, data); len(got) != 0 {
			t.Fatalf("bookmarks %q of a PDF without outline", got)
		}
	})

	t.Run("edit-bookmarks", func(t *testing.T) {
		list := `[{"title": "Глава 1. Введение", "page": 1, "children": [{"title": "1.1 Цели", "page": 2}]}, {"title": "Appendix", "page": 4}]`
		j, data := runTool(t, c, "edit-bookmarks", []client.File{file(t, "pdf", fourPages)}, map[string]string{"bookmarks": list})
		if j.Result.Filename != "pdflatex-4-pages-bookmarks.pdf" || j.Result.ContentType != "application/pdf" {
			t.Fatalf("result %+v", j.Result)
		}
		got := qpdfOutline(t, toolstest.WriteTemp(t, "bookmarked.pdf", data))
		want := []string{"Глава 1. Введение@1", "  1.1 Цели@2", "Appendix@4"}
		if !equalStrings(got, want) {
			t.Fatalf("qpdf reads the outline %q, want %q", got, want)
		}
		// A page past the last is refused once the document is read;
		// a malformed list before any job is made.
		for _, bad := range []string{`[{"title": "Five", "page": 5}]`, `[{"title": "No page"}]`} {
			_, _, err := c.Process(context.Background(), "edit-bookmarks", []client.File{file(t, "pdf", fourPages)},
				client.ProcessOptions{Params: map[string]string{"bookmarks": bad}, Prefer: "wait=60"})
			if e := apiError(t, err, 400, "invalid_parameter"); len(e.Fields) == 0 || e.Fields[0].Field != "bookmarks" {
				t.Fatalf("%s: %+v", bad, e)
			}
		}
	})
	t.Run("edit-bookmarks-from-headings", func(t *testing.T) {
		body := toolstest.HeadingLine{Size: 10, Text: "Body text of the report in the size that most characters have."}
		var lines []toolstest.HeadingLine
		for _, l := range []toolstest.HeadingLine{{Page: 1, Size: 22, Text: "Part One"}, {Page: 1, Size: 15, Text: "Scope"}, body, body, body,
			{Page: 2, Size: 15, Text: "Method"}, body, body, body, {Page: 3, Size: 22, Text: "Part Two"}, body, body} {
			if l.Page == 0 {
				l.Page = lines[len(lines)-1].Page
			}
			lines = append(lines, l)
		}
		j, data := runTool(t, c, "edit-bookmarks", []client.File{{Name: "headings.pdf", Body: bytes.NewReader(toolstest.HeadingsPDF(lines))}},
			map[string]string{"from_headings": "true"})
		got := qpdfOutline(t, toolstest.WriteTemp(t, "headings-bookmarks.pdf", data))
		want := []string{"Part One@1", "  Scope@1", "  Method@2", "Part Two@3"}
		if !equalStrings(got, want) {
			t.Fatalf("qpdf reads the outline %q, want %q (meta %v)", got, want, j.Meta)
		}
		// pdflatex's section headings are the outline hyperref wrote:
		// the same titles (after their numbers) on the same pages.
		_, data = runTool(t, c, "edit-bookmarks", []client.File{file(t, "pdf", outlinePDF)}, map[string]string{"from_headings": "true"})
		got = nil
		for _, line := range qpdfOutline(t, toolstest.WriteTemp(t, "sections.pdf", data)) {
			if _, title, ok := strings.Cut(line, " "); ok && !strings.HasPrefix(line, " ") {
				got = append(got, title)
			} else if line != "Contents@1" {
				got = append(got, "unexpected "+line)
			}
		}
		if want := qpdfOutline(t, toolstest.Corpus(t, "pdf")+"/"+outlinePDF); !equalStrings(got, want) {
			t.Fatalf("headings %q, the file's own outline %q", got, want)
		}
		// Text all in one size has no headings.
		_, _, err := c.Process(context.Background(), "edit-bookmarks", []client.File{{Name: "flat.pdf", Body: bytes.NewReader(toolstest.TextPDF("One", "Two"))}},
			client.ProcessOptions{Params: map[string]string{"from_headings": "true"}, Prefer: "wait=60"})
		apiErrorDetail(t, err, 400, "invalid_document", "No headings")
	})
}
