package pdfops_test

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
)

// selUnzip extracts the archive at path into a directory and returns its
// entries' names, in archive order, and paths.
func selUnzip(t *testing.T, path string) ([]string, map[string]string) {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatalf("output is not a zip archive: %v", err)
	}
	defer zr.Close()
	dir := t.TempDir()
	var names []string
	paths := map[string]string{}
	for _, f := range zr.File {
		if strings.ContainsAny(f.Name, `/\`) {
			t.Fatalf("entry %q has a directory", f.Name)
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, f.Name)
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("entry %s: %v", f.Name, err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		names = append(names, f.Name)
		paths[f.Name] = p
	}
	return names, paths
}

// selPart is one file a split must make: its name and the input pages it
// must hold.
type selPart struct {
	name  string
	pages []int
}

func TestSplit(t *testing.T) {
	selPoppler(t)
	four := fourPagesPDF(t)
	flat := selFlatPDF(t)
	// A single part means the output is that PDF, not an archive.
	tests := []struct {
		name   string
		file   string
		params map[string]string
		parts  []selPart
	}{
		{"each page by default", four, nil, []selPart{
			{"four-pages-1.pdf", []int{1}}, {"four-pages-2.pdf", []int{2}},
			{"four-pages-3.pdf", []int{3}}, {"four-pages-4.pdf", []int{4}}}},
		{"every 2", four, map[string]string{"every": "2"}, []selPart{
			{"four-pages-1-2.pdf", []int{1, 2}}, {"four-pages-3-4.pdf", []int{3, 4}}}},
		{"every 3 leaves a short last part", four, map[string]string{"every": "3"}, []selPart{
			{"four-pages-1-3.pdf", []int{1, 2, 3}}, {"four-pages-4.pdf", []int{4}}}},
		{"every covers the document", four, map[string]string{"every": "4"}, []selPart{
			{"four-pages-1-4.pdf", []int{1, 2, 3, 4}}}},
		{"every past the end", four, map[string]string{"every": "50"}, []selPart{
			{"four-pages-1-4.pdf", []int{1, 2, 3, 4}}}},
		{"ranges", optionalPDF("GeoTopo-komprimiert.pdf"), map[string]string{"ranges": "1-3,5,8-"}, []selPart{
			{"GeoTopo-komprimiert-1-3.pdf", []int{1, 2, 3}}, {"GeoTopo-komprimiert-5.pdf", []int{5}},
			{"GeoTopo-komprimiert-8-117.pdf", selSeq(8, 117)}}},
		{"ranges in their order", four, map[string]string{"ranges": "3-4, 1"}, []selPart{
			{"four-pages-3-4.pdf", []int{3, 4}}, {"four-pages-1.pdf", []int{1}}}},
		{"open ranges", four, map[string]string{"ranges": "-2,3-"}, []selPart{
			{"four-pages-1-2.pdf", []int{1, 2}}, {"four-pages-3-4.pdf", []int{3, 4}}}},
		{"overlapping ranges", four, map[string]string{"ranges": "1-3,2-4"}, []selPart{
			{"four-pages-1-3.pdf", []int{1, 2, 3}}, {"four-pages-2-4.pdf", []int{2, 3, 4}}}},
		{"rotated pages", optionalPDF("habibi-rotated.pdf"), map[string]string{"ranges": "4,1-2"}, []selPart{
			{"habibi-rotated-4.pdf", []int{4}}, {"habibi-rotated-1-2.pdf", []int{1, 2}}}},
		{"flat page tree", flat, map[string]string{"ranges": "150-,1-2,70"}, []selPart{
			{"flat-150-200.pdf", selSeq(150, 200)}, {"flat-1-2.pdf", []int{1, 2}}, {"flat-70.pdf", []int{70}}}},
		{"single range", four, map[string]string{"ranges": "2-3"}, []selPart{
			{"four-pages-2-3.pdf", []int{2, 3}}}},
		{"single open range", four, map[string]string{"ranges": "3-"}, []selPart{
			{"four-pages-3-4.pdf", []int{3, 4}}}},
		{"all", four, map[string]string{"ranges": "all"}, []selPart{
			{"four-pages-1-4.pdf", []int{1, 2, 3, 4}}}},
		{"one-page document", optionalPDF("minimal-document.pdf"), nil, []selPart{
			{"minimal-document-1.pdf", []int{1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skipWithoutCorpus(t, tt.file)
			t.Parallel()
			out, err := runValidated(t, "split-pdf", tt.params, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			selWantSplit(t, out, tt.file, tt.parts)
		})
	}
}

// selWantSplit checks that out, the output of splitting file, is parts: a
// PDF for one part, otherwise a zip archive of them in that order.
func selWantSplit(t *testing.T, out *docmill.RunOutput, file string, parts []selPart) {
	t.Helper()
	inPages := selPageCount(t, file)
	if out.Meta["pages"] != inPages || out.Meta["files"] != len(parts) {
		t.Errorf("meta = %v, want pages %d, files %d", out.Meta, inPages, len(parts))
	}
	if len(parts) == 1 {
		if out.Filename != parts[0].name || out.ContentType != "application/pdf" {
			t.Errorf("output %q %q, want the PDF %q", out.Filename, out.ContentType, parts[0].name)
		}
		selWantPages(t, out.Path, file, parts[0].pages)
		return
	}
	base := strings.TrimSuffix(filepath.Base(file), ".pdf")
	if out.Filename != base+"-split.zip" || out.ContentType != "application/zip" {
		t.Errorf("output %q %q, want %s-split.zip application/zip", out.Filename, out.ContentType, base)
	}
	names, paths := selUnzip(t, out.Path)
	var want []string
	for _, p := range parts {
		want = append(want, p.name)
	}
	if !slices.Equal(names, want) {
		t.Fatalf("entries = %v, want %v", names, want)
	}
	for _, p := range parts {
		selWantPages(t, paths[p.name], file, p.pages)
	}
}

// TestSplitKeepsLinks checks that each part keeps the annotations of its
// pages and the named destinations (link targets) that point at them, and
// no others: pdfcpu rewrites the source's destinations while copying, so
// a careless second part would get the first part's leftovers.
func TestSplitKeepsLinks(t *testing.T) {
	geo := pdfCorpus(t) + "GeoTopo-komprimiert.pdf"
	out, err := runValidated(t, "split-pdf", map[string]string{"ranges": "1-10,11-20,50"}, geo)
	if err != nil {
		t.Fatal(err)
	}
	_, paths := selUnzip(t, out.Path)
	inAnnots, _ := selAnnots(t, geo)
	parts := map[string][]int{
		"GeoTopo-komprimiert-1-10.pdf":  inAnnots[0:10],
		"GeoTopo-komprimiert-11-20.pdf": inAnnots[10:20],
		"GeoTopo-komprimiert-50.pdf":    inAnnots[49:50],
	}
	for name, want := range parts {
		if got, _ := selAnnots(t, paths[name]); !slices.Equal(got, want) {
			t.Errorf("%s: annotations per page = %v, want %v", name, got, want)
		}
		total, dangling := selDests(t, paths[name])
		if total == 0 || dangling > 0 {
			t.Errorf("%s: %d named destinations, %d pointing outside it", name, total, dangling)
		}
	}
}

func TestSplitBadParams(t *testing.T) {
	four := fourPagesPDF(t)
	many := manyPagesPDF(t, 4000)
	tests := []struct {
		name     string
		file     string
		params   map[string]string
		field    string
		contains []string
	}{
		{"page past the end", four, map[string]string{"ranges": "1-2,5"}, "ranges", []string{`"ranges"`, "page 5", "4 page"}},
		{"open range past the end", four, map[string]string{"ranges": "9-"}, "ranges", []string{"page 9", "4 page"}},
		{"both", four, map[string]string{"ranges": "1-2", "every": "2"}, "every", []string{"ranges", "one way"}},
		{"every 0", four, map[string]string{"every": "0"}, "every", []string{"between 1 and 10000"}},
		{"every not a number", four, map[string]string{"every": "two"}, "every", []string{"integer"}},
		{"backwards range", four, map[string]string{"ranges": "3-1"}, "ranges", []string{"backwards"}},
		{"same range twice", four, map[string]string{"ranges": "1-2,1-2"}, "ranges", []string{"1-2 twice"}},
		{"same pages twice", four, map[string]string{"ranges": "3-,3-4"}, "ranges", []string{"3-4 twice"}},
		{"too many files", many, nil, "every", []string{"4000 files", "1000"}},
		{"too many ranges", many, map[string]string{"ranges": strings.Repeat("1,", 1000) + "2"}, "ranges", []string{"1001 ranges", "1000"}},
		{"too many pages", many, map[string]string{"ranges": "1-,2-,3-"}, "ranges", []string{"11997 pages", "10000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := runValidated(t, "split-pdf", tt.params, tt.file)
			e := wantRefused(t, out, err, docmill.CodeInvalidParameter, tt.contains...)
			if len(e.Fields) != 1 || e.Fields[0].Field != tt.field {
				t.Errorf("fields = %v, want %s", e.Fields, tt.field)
			}
		})
	}
	// A larger every splits the same document.
	out, err := runValidated(t, "split-pdf", map[string]string{"every": "4"}, many)
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["files"] != 1000 {
		t.Errorf("meta = %v, want 1000 files", out.Meta)
	}
}
