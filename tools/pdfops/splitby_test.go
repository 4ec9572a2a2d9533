package pdfops_test

import (
	"image"
	"os"
	"strconv"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// bookmarkedPDF writes the four-page PDF with list as its outline.
func bookmarkedPDF(t *testing.T, list []docmill.Bookmark) string {
	t.Helper()
	out, err := writeBookmarks(t, fourPagesPDF(t), docmill.MarshalBookmarks(list))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	return toolstest.WriteTemp(t, "four-pages.pdf", b)
}

func TestSplitByBookmarks(t *testing.T) {
	selPoppler(t)
	tests := []struct {
		name  string
		list  []docmill.Bookmark
		parts []selPart
	}{
		{"pages before the first bookmark", []docmill.Bookmark{
			{Title: "Intro", Page: 2, Children: []docmill.Bookmark{{Title: "nested, not a part", Page: 3}}},
			{Title: "Same page, one part", Page: 2},
			{Title: "Chapter 2: a/b\\c", Page: 4},
		}, []selPart{
			{"four-pages-00-start.pdf", []int{1}},
			{"four-pages-01-Intro.pdf", []int{2, 3}},
			{"four-pages-02-Chapter 2_ a_b_c.pdf", []int{4}},
		}},
		{"out of page order, from page 1", []docmill.Bookmark{
			{Title: "Глава 2", Page: 3},
			{Title: "Глава 1", Page: 1},
		}, []selPart{
			{"four-pages-01-Глава 1.pdf", []int{1, 2}},
			{"four-pages-02-Глава 2.pdf", []int{3, 4}},
		}},
		{"one bookmark is the document", []docmill.Bookmark{{Title: "..", Page: 1}}, []selPart{
			{"four-pages-01-_..pdf", []int{1, 2, 3, 4}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := bookmarkedPDF(t, tt.list)
			out, err := runValidated(t, "split-pdf", map[string]string{"by_bookmarks": "true"}, in)
			if err != nil {
				t.Fatal(err)
			}
			selWantSplit(t, out, in, tt.parts)
		})
	}
}

func TestSplitByBookmarksRefused(t *testing.T) {
	for name, in := range map[string]string{
		"no outline":           fourPagesPDF(t),
		"no bookmark to pages": bookmarkedPDF(t, nil),
	} {
		out, err := runValidated(t, "split-pdf", map[string]string{"by_bookmarks": "true"}, in)
		e := wantRefused(t, out, err, docmill.CodeInvalidParameter, "no top-level bookmark")
		if len(e.Fields) != 1 || e.Fields[0].Field != "by_bookmarks" {
			t.Errorf("%s: fields = %v", name, e.Fields)
		}
	}
}

// sizedPagesPDF writes a PDF whose pages differ in size: each draws one
// picture of the side given, so pages of larger pictures weigh more.
func sizedPagesPDF(t *testing.T, sides ...int) string {
	t.Helper()
	pages := make([][]image.Image, len(sides))
	for i, s := range sides {
		pages[i] = []image.Image{toolstest.Picture(s, s, i)}
	}
	return toolstest.WriteTemp(t, "sized.pdf", toolstest.ImagePDF(pages...))
}

// TestSplitBySize checks that every part is at most the size asked, that
// the parts hold every page in order, and that each part but the last is
// as long as it can be: with the next page it would be too large.
func TestSplitBySize(t *testing.T) {
	selPoppler(t)
	in := sizedPagesPDF(t, 150, 150, 300, 150, 250, 150, 150, 150)
	limit := 0.1
	out, err := runValidated(t, "split-pdf", map[string]string{"max_size_mb": strconv.FormatFloat(limit, 'f', -1, 64)}, in)
	if err != nil {
		t.Fatal(err)
	}
	names, paths := selUnzip(t, out.Path)
	if out.Meta["files"] != len(names) || len(names) < 2 {
		t.Fatalf("meta %v, %d entries: want several parts", out.Meta, len(names))
	}
	next := 1
	for _, name := range names {
		fi, err := os.Stat(paths[name])
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > int64(limit*(1<<20)) {
			t.Errorf("%s: %d bytes, over %v MB", name, fi.Size(), limit)
		}
		n := selPageCount(t, paths[name])
		selWantPages(t, paths[name], in, selSeq(next, next+n-1))
		t.Logf("%s: pages %d-%d, %d bytes", name, next, next+n-1, fi.Size())
		if last := next + n - 1; last < 8 {
			longer, err := runValidated(t, "split-pdf", map[string]string{"ranges": strconv.Itoa(next) + "-" + strconv.Itoa(last+1)}, in)
			if err != nil {
				t.Fatal(err)
			}
			if fi, _ := os.Stat(longer.Path); fi.Size() <= int64(limit*(1<<20)) {
				t.Errorf("%s could take page %d too: %d bytes", name, last+1, fi.Size())
			}
		}
		next += n
	}
	if next != 9 {
		t.Errorf("the parts hold pages 1-%d of 8", next-1)
	}
}

func TestSplitBySizeRefused(t *testing.T) {
	in := sizedPagesPDF(t, 150, 600, 150)
	tests := []struct {
		name     string
		params   map[string]string
		field    string
		contains []string
	}{
		{"a page alone is larger", map[string]string{"max_size_mb": "0.2"}, "max_size_mb", []string{"page 2 alone"}},
		{"below the least size", map[string]string{"max_size_mb": "0.01"}, "max_size_mb", []string{"between"}},
		{"with ranges", map[string]string{"ranges": "1", "max_size_mb": "1"}, "max_size_mb", []string{"ranges", "one way"}},
		{"with every", map[string]string{"every": "1", "by_bookmarks": "true"}, "by_bookmarks", []string{"every", "one way"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := runValidated(t, "split-pdf", tt.params, in)
			e := wantRefused(t, out, err, docmill.CodeInvalidParameter, tt.contains...)
			if len(e.Fields) != 1 || e.Fields[0].Field != tt.field {
				t.Errorf("fields = %v, want %s", e.Fields, tt.field)
			}
		})
	}
	// by_bookmarks=false is no way of cutting: ranges alone applies.
	out, err := runValidated(t, "split-pdf", map[string]string{"ranges": "1-2", "by_bookmarks": "false"}, in)
	if err != nil || out.Meta["files"] != 1 {
		t.Fatalf("ranges with by_bookmarks=false: %v %v", err, out)
	}
}
