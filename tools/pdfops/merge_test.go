package pdfops_test

import (
	"slices"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		name  string
		files []string
	}{
		{"two", []string{"pdflatex-4-pages.pdf", "minimal-document.pdf"}},
		{"three with rotated pages and outline", []string{"habibi-rotated.pdf", "pdflatex-outline.pdf", "imagemagick-images.pdf"}},
		{"outline last", []string{"minimal-document.pdf", "pdflatex-outline.pdf"}},
		{"forms, attachment, annotations", []string{"pdflatex-forms.pdf", "with-attachment.pdf", "annotated_pdf.pdf"}},
		{"producers", []string{"002-trivial-libre-office-writer.pdf", "google-doc-document.pdf", "crazyones-pdfa.pdf", "cmyk-image.pdf"}},
		{"same file twice", []string{"pdflatex-4-pages.pdf", "pdflatex-4-pages.pdf"}},
		{"large", []string{"GeoTopo-komprimiert.pdf", "base64image.pdf"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var paths []string
			var want []int // effective rotation of every input page, in order
			for _, f := range tt.files {
				paths = append(paths, pdfCorpus(t)+f)
				want = append(want, rotations(t, readBack(t, pdfCorpus(t)+f))...)
			}
			out, err := run(t, "merge-pdf", nil, paths...)
			if err != nil {
				t.Fatal(err)
			}
			if out.Filename != "merged.pdf" || out.ContentType != "application/pdf" {
				t.Errorf("output = %q %q", out.Filename, out.ContentType)
			}
			doc := readBack(t, out.Path)
			if doc.PageCount != len(want) {
				t.Errorf("output has %d pages, want %d", doc.PageCount, len(want))
			}
			if out.Meta["pages"] != len(want) || out.Meta["files"] != len(tt.files) {
				t.Errorf("meta = %v, want pages %d, files %d", out.Meta, len(want), len(tt.files))
			}
			if got := rotations(t, doc); !slices.Equal(got, want) {
				t.Errorf("page rotations = %v, want the inputs' %v", got, want)
			}
		})
	}
}

func TestMergeBadInput(t *testing.T) {
	bad := badInputs(t)
	good := onePagePDF(t)
	tests := []struct {
		name     string
		files    []string
		code     docmill.Code
		contains []string
	}{
		{"text second", []string{good, bad["text"]}, docmill.CodeInvalidDocument, []string{"File 2", `"text.pdf"`, "damaged"}},
		{"truncated first", []string{bad["truncated"], good}, docmill.CodeInvalidDocument, []string{"File 1", "damaged"}},
		{"empty", []string{good, good, bad["empty"]}, docmill.CodeInvalidDocument, []string{"File 3"}},
		{"header only", []string{good, bad["header-only"]}, docmill.CodeInvalidDocument, []string{"File 2"}},
		{"encrypted", []string{good, bad["encrypted"]}, docmill.CodeInvalidDocument, []string{"File 2", "password-protected"}},
		{"one file too large", []string{good, sparseFile(t, pdfops.MaxInputBytes+1)}, docmill.CodeFileTooLarge, []string{"File 2", "513 MB", "512 MB"}},
		{"too large together", []string{sparseFile(t, pdfops.MaxInputBytes/2), sparseFile(t, pdfops.MaxInputBytes/2+1)}, docmill.CodeFileTooLarge, []string{"in total"}},
		{"too many pages together", []string{manyPagesPDF(t, pdfops.MaxPages/2+1), manyPagesPDF(t, pdfops.MaxPages/2)}, docmill.CodeInvalidDocument, []string{"10001 pages"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := run(t, "merge-pdf", nil, tt.files...)
			wantRefused(t, out, err, tt.code, tt.contains...)
		})
	}
}
