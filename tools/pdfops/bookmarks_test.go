package pdfops_test

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// listedBookmark is one entry of pdf-bookmarks' output.
type listedBookmark struct {
	Title    string           `json:"title"`
	Page     *int             `json:"page"`
	Children []listedBookmark `json:"children"`
}

func listBookmarks(t *testing.T, path string) []listedBookmark {
	t.Helper()
	var got struct {
		Bookmarks []listedBookmark `json:"bookmarks"`
	}
	if _, data := listing(t, "pdf-bookmarks", path, &got); got.Bookmarks == nil {
		t.Fatalf("no bookmarks listed\n%s", data)
	}
	return got.Bookmarks
}

// flat writes a listing as "title@page" lines, children indented.
func flat(list []listedBookmark, indent string) []string {
	var out []string
	for _, b := range list {
		page := "nil"
		if b.Page != nil {
			page = fmt.Sprint(*b.Page)
		}
		out = append(out, indent+b.Title+"@"+page)
		out = append(out, flat(b.Children, indent+"  ")...)
	}
	return out
}

func TestBookmarksCorpus(t *testing.T) {
	got := flat(listBookmarks(t, pdfCorpus(t)+"pdflatex-outline.pdf"), "")
	// As qpdf --json reads the file's outline.
	want := []string{"Foo@2", "Bar@2", "Baz@2", "Foo@2", "Bar@3", "Baz@3", "Foo@3", "Bar@4", "Baz@4"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("bookmarks %q, want %q", got, want)
	}
}

func TestBookmarksNone(t *testing.T) {
	if got := listBookmarks(t, fourPagesPDF(t)); len(got) != 0 {
		t.Fatalf("bookmarks %+v", got)
	}
}

// TestBookmarksHostileOutline reads outlines whose item lists loop: a
// /Next back to the first item, and a /First that points at the item's
// own parent. The listing must end, each item once.
func TestBookmarksHostileOutline(t *testing.T) {
	page := "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>"
	for name, items := range map[string][]string{
		"next-cycle": {
			"<< /Title (A) /Parent 4 0 R /Next 6 0 R /Dest [3 0 R /Fit] >>",
			"<< /Title (B) /Parent 4 0 R /Next 5 0 R /Prev 5 0 R /Dest [3 0 R /Fit] >>",
		},
		"first-up": {
			"<< /Title (A) /Parent 4 0 R /First 5 0 R /Last 5 0 R /Count 1 /Dest [3 0 R /Fit] >>",
			"<< /Title (B) /Parent 5 0 R /First 5 0 R /Dest [3 0 R /Fit] >>",
		},
	} {
		t.Run(name, func(t *testing.T) {
			objs := []string{"<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page,
				"<< /Type /Outlines /First 5 0 R /Last 6 0 R /Count 2 >>"}
			p := toolstest.WriteTemp(t, "hostile.pdf", toolstest.PDF(append(objs, items...)...))
			out, err := run(t, "pdf-bookmarks", nil, p)
			if err != nil {
				toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
				return
			}
			b, _ := os.ReadFile(out.Path)
			if n, ok := out.Meta["bookmarks"].(int); !ok || n > 2 {
				t.Fatalf("meta %v\n%s", out.Meta, b)
			}
		})
	}
}

// writeBookmarks runs the step edit-bookmarks injects, as the PDF helper
// runs it (without ParseParams).
func writeBookmarks(t *testing.T, path, bookmarks string) (*docmill.RunOutput, error) {
	t.Helper()
	in := &docmill.RunInput{Params: docmill.Params{"bookmarks": bookmarks}, WorkDir: t.TempDir(),
		Files: []docmill.LocalFile{{Path: path, Filename: "doc.pdf", ContentType: "application/pdf"}}}
	return pdfops.WriteBookmarksStep().Invoke(context.Background(), in)
}

func TestWriteBookmarksRoundTrip(t *testing.T) {
	in := pdfCorpus(t) + "pdflatex-outline.pdf" // its own outline is replaced
	list := []docmill.Bookmark{
		{Title: "Глава 1. Введение", Page: 1, Children: []docmill.Bookmark{
			{Title: "1.1 Цели", Page: 2, Children: []docmill.Bookmark{{Title: "Deep", Page: 2}}},
			{Title: "1.2 Scope", Page: 3},
		}},
		{Title: "Appendix", Page: 4},
		{Title: "Back to start", Page: 1}, // out of page order: kept as given
	}
	out, err := writeBookmarks(t, in, docmill.MarshalBookmarks(list))
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["bookmarks"] != 6 || out.Filename != "doc-bookmarks.pdf" {
		t.Fatalf("%s meta %v", out.Filename, out.Meta)
	}
	got := flat(listBookmarks(t, out.Path), "")
	want := []string{"Глава 1. Введение@1", "  1.1 Цели@2", "    Deep@2", "  1.2 Scope@3", "Appendix@4", "Back to start@1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %q, want %q", got, want)
	}

	out, err = writeBookmarks(t, out.Path, "[]")
	if err != nil {
		t.Fatal(err)
	}
	if got := listBookmarks(t, out.Path); len(got) != 0 {
		t.Fatalf("after [] the outline is %+v", got)
	}
}

func TestWriteBookmarksPastLastPage(t *testing.T) {
	_, err := writeBookmarks(t, fourPagesPDF(t), `[{"title": "Five", "page": 5}]`)
	toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "bookmarks")
}

// TestBookmarksNamedDestinations resolves bookmarks that go to named
// destinations, of the name tree and of the catalog's /Dests, and lists
// a web link's bookmark without a page.
func TestBookmarksNamedDestinations(t *testing.T) {
	p := toolstest.WriteTemp(t, "named.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R /Outlines 5 0 R /Names << /Dests << /Names [(intro) [4 0 R /Fit]] >> >> /Dests << /old [3 0 R /XYZ 0 0 0] >> >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
		"<< /Type /Outlines /First 6 0 R /Last 8 0 R /Count 3 >>",
		"<< /Title (Intro) /Parent 5 0 R /Next 7 0 R /Dest (intro) >>",
		"<< /Title (Old) /Parent 5 0 R /Prev 6 0 R /Next 8 0 R /A << /S /GoTo /D /old >> >>",
		"<< /Title (Web) /Parent 5 0 R /Prev 7 0 R /A << /S /URI /URI (https://example.org/) >> >>",
	))
	got := flat(listBookmarks(t, p), "")
	want := []string{"Intro@2", "Old@1", "Web@nil"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("bookmarks %q, want %q", got, want)
	}
}
