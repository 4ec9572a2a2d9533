package pdfops_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

func TestRotate(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		params   map[string]string
		want     []int // effective rotation of each page after the run
		rotated  int
		filename string
	}{
		{"defaults", "minimal-document.pdf", nil, []int{90}, 1, "minimal-document-rotated.pdf"},
		{"all pages 180", "pdflatex-4-pages.pdf", map[string]string{"angle": "180"}, []int{180, 180, 180, 180}, 4, "pdflatex-4-pages-rotated.pdf"},
		{"explicit all", "pdflatex-4-pages.pdf", map[string]string{"angle": "270", "pages": "all"}, []int{270, 270, 270, 270}, 4, ""},
		{"range", "pdflatex-4-pages.pdf", map[string]string{"angle": "90", "pages": "2-3"}, []int{0, 90, 90, 0}, 2, ""},
		{"open ranges", "pdflatex-4-pages.pdf", map[string]string{"pages": "-1, 4-"}, []int{90, 0, 0, 90}, 2, ""},
		{"duplicates rotate once", "pdflatex-4-pages.pdf", map[string]string{"pages": "1,1-2,2"}, []int{90, 90, 0, 0}, 2, ""},
		// habibi-rotated.pdf's pages are at 90, 180, 270 and 360 (= 0).
		{"adds to existing rotation", "habibi-rotated.pdf", map[string]string{"angle": "90"}, []int{180, 270, 0, 90}, 4, "habibi-rotated-rotated.pdf"},
		{"adds to selected", "habibi-rotated.pdf", map[string]string{"angle": "270", "pages": "1,4"}, []int{0, 180, 270, 270}, 2, ""},
		{"many pages", "GeoTopo-komprimiert.pdf", map[string]string{"angle": "180", "pages": "117"}, nil, 1, ""},
		{"pdf/a", "crazyones-pdfa.pdf", nil, []int{90}, 1, ""},
		{"forms", "pdflatex-forms.pdf", map[string]string{"angle": "270"}, []int{270}, 1, ""},
		// cmyk-image.pdf's trailer /Info points at its page tree root.
		{"misplaced info", "cmyk-image.pdf", nil, []int{90}, 1, "cmyk-image-rotated.pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := readBack(t, pdfCorpus(t)+tt.file)
			out, err := run(t, "rotate-pdf", tt.params, pdfCorpus(t)+tt.file)
			if err != nil {
				t.Fatal(err)
			}
			doc := readBack(t, out.Path)
			if doc.PageCount != in.PageCount {
				t.Errorf("output has %d pages, input %d", doc.PageCount, in.PageCount)
			}
			if tt.want != nil {
				if got := rotations(t, doc); !slices.Equal(got, tt.want) {
					t.Errorf("page rotations = %v, want %v", got, tt.want)
				}
			}
			if out.Meta["pages"] != in.PageCount || out.Meta["rotated_pages"] != tt.rotated {
				t.Errorf("meta = %v, want pages %d, rotated_pages %d", out.Meta, in.PageCount, tt.rotated)
			}
			if tt.filename != "" && out.Filename != tt.filename {
				t.Errorf("filename = %q, want %q", out.Filename, tt.filename)
			}
			if out.ContentType != "application/pdf" || filepath.Dir(out.Path) == "" {
				t.Errorf("output = %+v", out)
			}
		})
	}
}

func TestRotateBadInput(t *testing.T) {
	bad := badInputs(t)
	tests := []struct {
		name     string
		file     string
		params   map[string]string
		code     docmill.Code
		contains []string
	}{
		{"text", bad["text"], nil, docmill.CodeInvalidDocument, []string{"The file", "not a PDF"}},
		{"empty", bad["empty"], nil, docmill.CodeInvalidDocument, []string{"The file"}},
		{"truncated", bad["truncated"], nil, docmill.CodeInvalidDocument, []string{"damaged"}},
		{"header only", bad["header-only"], nil, docmill.CodeInvalidDocument, nil},
		{"encrypted", bad["encrypted"], nil, docmill.CodeInvalidDocument, []string{"The file is password-protected"}},
		{"page past the end", fourPagesPDF(t), map[string]string{"pages": "2,5"}, docmill.CodeInvalidParameter, []string{"pages", "5", "4 page"}},
		{"open range past the end", fourPagesPDF(t), map[string]string{"pages": "9-"}, docmill.CodeInvalidParameter, []string{"4 page"}},
		{"too large", sparseFile(t, pdfops.MaxInputBytes+1), nil, docmill.CodeFileTooLarge, []string{"512 MB"}},
		{"too many pages", manyPagesPDF(t, pdfops.MaxPages+1), nil, docmill.CodeInvalidDocument, []string{"10001 pages", "10000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := run(t, "rotate-pdf", tt.params, tt.file)
			e := wantRefused(t, out, err, tt.code, tt.contains...)
			if tt.code == docmill.CodeInvalidParameter && (len(e.Fields) != 1 || e.Fields[0].Field != "pages") {
				t.Errorf("fields = %v, want pages", e.Fields)
			}
		})
	}
}

// TestRotateAtPageCap checks that a document of exactly MaxPages pages,
// whose page tree is valid, is accepted.
func TestRotateAtPageCap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,000-page PDF")
	}
	out, err := run(t, "rotate-pdf", map[string]string{"pages": "1"}, manyPagesPDF(t, pdfops.MaxPages))
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["pages"] != pdfops.MaxPages {
		t.Errorf("meta = %v", out.Meta)
	}
}

func TestRotateCanceled(t *testing.T) {
	_, err := invoke(canceledContext(), t, "rotate-pdf", nil, "application/pdf", fourPagesPDF(t))
	if err == nil || docmill.ErrorCode(err) != docmill.CodeInternal {
		t.Fatalf("err = %v, want the context's error", err)
	}
}

// FuzzRotate checks that no input makes rotate-pdf panic or fail with
// anything but success or invalid_document. Its seeds are corpus files
// and their truncations; run `go test -fuzz FuzzRotate` to explore.
func FuzzRotate(f *testing.F) {
	for _, b := range corpusPDFs(f, "minimal-document.pdf", "habibi-rotated.pdf", "annotated_pdf.pdf", "pdflatex-4-pages.pdf") {
		f.Add(b)
		f.Add(b[:len(b)*3/4])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := toolstest.WriteTemp(t, "in.pdf", b)
		_, err := run(t, "rotate-pdf", nil, p)
		if code := docmill.ErrorCode(err); code != "" && code != docmill.CodeInvalidDocument {
			t.Fatalf("error %v, want none or invalid_document", err)
		}
	})
}

func BenchmarkRotate(b *testing.B) {
	tl := tool(b, "rotate-pdf")
	p, err := tl.ParseParams(nil)
	if err != nil {
		b.Fatal(err)
	}
	in := &docmill.RunInput{
		Files:   []docmill.LocalFile{{Path: pdfCorpus(b) + "minimal-document.pdf", Filename: "minimal-document.pdf"}},
		Params:  p,
		WorkDir: b.TempDir(),
	}
	ctx := context.Background()
	for b.Loop() {
		if _, err := tl.Invoke(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}
