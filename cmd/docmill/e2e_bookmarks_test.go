package main

import (
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
}
