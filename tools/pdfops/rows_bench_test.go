package pdfops_test

import (
	"context"
	"testing"

	docmill "github.com/docmill/docmill"
)

// BenchmarkRows runs protect-pdf, merge-pdf, rotate-pdf and split-pdf of
// issue 35's rows in this process, as the PDF helper runs them, for a CPU profile
// (-cpuprofile) of pdfcpu's part; cmd/docmill's BenchmarkPDFRows times
// them with the helper and over HTTP beside their qpdf floors.
func BenchmarkRows(b *testing.B) {
	dir := pdfCorpus(b)
	for _, row := range []struct {
		tool   string
		files  []string
		params map[string]string
	}{
		{"protect-pdf", []string{"pdflatex-4-pages.pdf"}, map[string]string{"password": "s3cret"}},
		{"merge-pdf", []string{"pdflatex-4-pages.pdf", "minimal-document.pdf"}, nil},
		{"rotate-pdf", []string{"pdflatex-4-pages.pdf"}, map[string]string{"angle": "90"}},
		{"split-pdf", []string{"pdflatex-4-pages.pdf"}, nil},
	} {
		b.Run(row.tool, func(b *testing.B) {
			tl := tool(b, row.tool)
			p, err := tl.ParseParams(row.params)
			if err != nil {
				b.Fatal(err)
			}
			in := &docmill.RunInput{Params: p, WorkDir: b.TempDir(), Limits: docmill.DefaultLimits()}
			for _, f := range row.files {
				in.Files = append(in.Files, docmill.LocalFile{Path: dir + f, Filename: f, ContentType: "application/pdf"})
			}
			for b.Loop() {
				if _, err := tl.Invoke(context.Background(), in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
