package ghostscript_test

import (
	"bytes"
	"context"
	"os"
	"slices"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ghostscript"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestFlattenQPDFDrawsAsGhostscript: flatten-pdf takes a route without
// Ghostscript (the PDF helper's Flatten step alone, or one qpdf run and
// then the RestoreLinks step) on a form whose fields all have
// appearances, and its pages then render as Ghostscript's route renders
// them (the tool without steps, which always takes it); on files neither
// would draw in full (comments without appearances) the tool takes
// Ghostscript's route and renders the same too.
func TestFlattenQPDFDrawsAsGhostscript(t *testing.T) {
	for _, tt := range []struct {
		name string
		qpdf bool // qpdf's route is taken
	}{
		{"pdflatex-forms.pdf", true},
		{"pdflatex-outline.pdf", true},
		{"annotated_pdf.pdf", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := corpusPDF(t, tt.name)
			got, pages := flattenWith(t, steps(), path)
			// Ghostscript names itself as the producer; qpdf keeps the input's.
			if byQPDF := !bytes.Contains(readFile(t, got), []byte("Ghostscript")); byQPDF != tt.qpdf {
				t.Errorf("flattened by qpdf alone: %v, want %v", byQPDF, tt.qpdf)
			}
			want, _ := flattenWith(t, ghostscript.Steps{}, path)
			for p := 1; p <= pages; p++ {
				d := toolstest.MeanDiff(toolstest.RenderPage(t, got, p, 100), toolstest.RenderPage(t, want, p, 100))
				if d > 0.002 {
					t.Errorf("page %d differs from Ghostscript's flattening by %.5f", p, d)
				}
				t.Logf("page %d: mean difference from Ghostscript's flattening %.5f", p, d)
			}
			if f := readForm(t, got); len(f.fields) != 0 || (len(f.annotations) != 0 && tt.name != "pdflatex-outline.pdf") {
				t.Errorf("left: fields %v, annotations %v", f.fields, f.annotations)
			}
		})
	}
}

// TestFlattenInHelperDrawsAsGhostscript: on a document whose
// annotations all carry their appearances, flatten-pdf with only the
// Flatten step (no qpdf route to take) flattens it in the jailed PDF
// helper, without Ghostscript, and its page renders as Ghostscript's
// route renders it; the link stays.
func TestFlattenInHelperDrawsAsGhostscript(t *testing.T) {
	path := toolstest.WriteTemp(t, "annotated.pdf", toolstest.AnnotatedPDF())
	got, _ := flattenWith(t, ghostscript.Steps{Flatten: toolstest.Helpers().Step(pdfops.FlattenStep())}, path)
	if bytes.Contains(readFile(t, got), []byte("Ghostscript")) {
		t.Error("flattened by Ghostscript")
	}
	want, _ := flattenWith(t, ghostscript.Steps{}, path)
	d := toolstest.MeanDiff(toolstest.RenderPage(t, got, 1, 100), toolstest.RenderPage(t, want, 1, 100))
	t.Logf("mean difference from Ghostscript's flattening %.5f", d)
	if d > 0.002 {
		t.Errorf("differs from Ghostscript's flattening by %.5f", d)
	}
	if links := qpdfLinks(t, got); !slices.Equal(links, []string{"page 1: https://example.com/flat"}) {
		t.Errorf("links %v", links)
	}
	if f := readForm(t, got); len(f.fields) != 0 || len(f.annotations) != 1 {
		t.Errorf("left: fields %v, annotations %v", f.fields, f.annotations)
	}
}

// flattenWith runs flatten-pdf built with steps on path and returns the
// output's path and its pages.
func flattenWith(t *testing.T, steps ghostscript.Steps, path string) (string, int) {
	t.Helper()
	tl := toolstest.Find(t, ghostscript.Tools(gsEngine, qpdfEngine, steps, gsSpares), "flatten-pdf")
	if !tl.IsAvailable() {
		toolstest.Lacking(t, "flatten-pdf: engines not installed, or no jail")
	}
	dir := t.TempDir()
	out, err := tl.Invoke(context.Background(), &docmill.RunInput{WorkDir: dir, Files: []docmill.LocalFile{inputFile(t, dir, path)}})
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := out.Meta["pages"].(int)
	if pages < 1 {
		t.Fatalf("meta %v", out.Meta)
	}
	return out.Path, pages
}

// readFile returns the contents of the file at path.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
