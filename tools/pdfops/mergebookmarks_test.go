package pdfops_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// titledPDF writes the one-page PDF under name with title as its
// document title.
func titledPDF(t *testing.T, name, title string) string {
	t.Helper()
	out, err := runValidated(t, "edit-metadata", map[string]string{"title": title}, onePagePDF(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	return toolstest.WriteTemp(t, name, b)
}

// TestMergeBookmarks checks the merged outline of each mode, read back by
// pdf-bookmarks: one bookmark per file at its first page, the file's own
// outline under it with its pages moved, or the outlines as they were.
func TestMergeBookmarks(t *testing.T) {
	marked := bookmarkedPDF(t, []docmill.Bookmark{
		{Title: "Intro", Page: 1, Children: []docmill.Bookmark{{Title: "Detail", Page: 2}}},
		{Title: "End", Page: 4},
	})
	dir := t.TempDir()
	named := filepath.Join(dir, "Annual report.PDF")
	if err := os.Rename(marked, named); err != nil {
		t.Fatal(err)
	}
	titled := titledPDF(t, "scan-0001.pdf", "Invoice 42")
	untitled := onePagePDF(t)
	files := []string{named, titled, untitled}
	tests := []struct {
		mode string
		want []string
	}{
		{"none", []string{"Intro@1", "  Detail@2", "End@4"}},
		{"file_names", []string{"Annual report@1", "  Intro@1", "    Detail@2", "  End@4", "scan-0001@5", "one-page@6"}},
		{"titles", []string{"Annual report@1", "  Intro@1", "    Detail@2", "  End@4", "Invoice 42@5", "one-page@6"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			out, err := runValidated(t, "merge-pdf", map[string]string{"bookmarks": tt.mode}, files...)
			if err != nil {
				t.Fatal(err)
			}
			if got := flat(listBookmarks(t, out.Path), ""); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("outline %q, want %q", got, tt.want)
			}
			if out.Meta["pages"] != 6 {
				t.Errorf("meta %v", out.Meta)
			}
		})
	}
	out, err := runValidated(t, "merge-pdf", map[string]string{"bookmarks": "chapters"}, files...)
	wantRefused(t, out, err, docmill.CodeInvalidParameter, "none, file_names, titles")
}

// TestMergeHostileOutline merges a file whose outline loops (/Next back
// to the first item) in every mode: the merge ends, and with a bookmark
// per file the looping items are listed once.
func TestMergeHostileOutline(t *testing.T) {
	hostile := toolstest.WriteTemp(t, "hostile.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
		"<< /Type /Outlines /First 5 0 R /Last 6 0 R /Count 2 >>",
		"<< /Title (A) /Parent 4 0 R /Next 6 0 R /Dest [3 0 R /Fit] >>",
		"<< /Title (B) /Parent 4 0 R /Next 5 0 R /Prev 5 0 R /Dest [3 0 R /Fit] >>"))
	for _, mode := range []string{"none", "file_names"} {
		out, err := runValidated(t, "merge-pdf", map[string]string{"bookmarks": mode}, onePagePDF(t), hostile)
		if err != nil {
			toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
			continue
		}
		got := flat(listBookmarks(t, out.Path), "")
		t.Logf("%s: %q", mode, got)
		if mode == "file_names" && !reflect.DeepEqual(got, []string{"one-page@1", "hostile@2", "  A@2", "  B@2"}) {
			t.Errorf("%s: outline %q", mode, got)
		}
	}
}
