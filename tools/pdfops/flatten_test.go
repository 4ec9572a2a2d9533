package pdfops_test

import (
	"context"
	"os/exec"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// flattenStep runs the PDF helper's flattening on path in this process.
func flattenStep(t *testing.T, path string) *docmill.RunOutput {
	t.Helper()
	out, err := pdfops.FlattenStep().Run(context.Background(), &docmill.RunInput{WorkDir: t.TempDir(),
		Files: []docmill.LocalFile{{Path: path, Filename: "in.pdf", ContentType: "application/pdf"}}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFlattenStepDraws: the step draws every appearance where a viewer
// shows it (the flattened page, its annotations hidden, renders as the
// annotated page does with them, which differs from the page without
// them), keeps the link alone and removes the form.
func TestFlattenStepDraws(t *testing.T) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		toolstest.Lacking(t, "no pdftoppm: %v", err)
	}
	in := toolstest.WriteTemp(t, "annotated.pdf", toolstest.AnnotatedPDF())
	out := flattenStep(t, in)
	if out.Meta["undrawn"] != nil || out.Meta["pages"] != 1 || out.Meta["links"] != 1 || out.Path == in {
		t.Fatalf("output %s, meta %v", out.Path, out.Meta)
	}
	doc := toolstest.QPDFObjects(t, out.Path)
	if form, ok := doc.Catalog()["/AcroForm"]; ok {
		t.Errorf("form left: %v", form)
	}
	annots := doc.Annotations(doc.Pages[0])
	if len(annots) != 1 || annots[0]["/Subtype"] != "/Link" {
		t.Fatalf("annotations left: %v", annots)
	}
	if act, _ := doc.Deref(annots[0]["/A"]).(map[string]any); act["/URI"] != "u:https://example.com/flat" {
		t.Errorf("link's action %v", act)
	}
	shown := toolstest.RenderPage(t, in, 1, 72)
	marks := toolstest.MeanDiff(shown, toolstest.RenderPage(t, in, 1, 72, "-hide-annotations"))
	flat := toolstest.MeanDiff(shown, toolstest.RenderPage(t, out.Path, 1, 72, "-hide-annotations"))
	t.Logf("the annotations make %.5f; the flattened page differs from the annotated one by %.5f", marks, flat)
	if marks < 0.01 || flat > 0.001 {
		t.Errorf("flattened page differs from the annotated one by %.5f; the annotations make %.5f", flat, marks)
	}
}

// TestFlattenStepDrawsLinkAppearance: a link with an appearance of its
// own (a red box) keeps working as a link, and its box is drawn into
// the page.
func TestFlattenStepDrawsLinkAppearance(t *testing.T) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		toolstest.Lacking(t, "no pdftoppm: %v", err)
	}
	in := toolstest.WriteTemp(t, "link.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [5 0 R] >>",
		"<< /Type /Annot /Subtype /Link /F 4 /Rect [20 20 180 60] /Border [0 0 0] /A << /S /URI /URI (https://example.com/box) >> /AP << /N 6 0 R >> >>",
		toolstest.FormXObject("[0 0 160 40]", "", "1 0 0 RG 4 w 2 2 156 36 re S"),
	))
	out := flattenStep(t, in)
	if out.Meta["undrawn"] != nil || out.Meta["links"] != 1 {
		t.Fatalf("output %s, meta %v", out.Path, out.Meta)
	}
	doc := toolstest.QPDFObjects(t, out.Path)
	if a := doc.Annotations(doc.Pages[0]); len(a) != 1 || a[0]["/Subtype"] != "/Link" || a[0]["/AP"] != nil {
		t.Errorf("annotations left: %v; want the link, without its appearance", a)
	}
	shown := toolstest.RenderPage(t, in, 1, 72)
	marks := toolstest.MeanDiff(shown, toolstest.RenderPage(t, in, 1, 72, "-hide-annotations"))
	flat := toolstest.MeanDiff(shown, toolstest.RenderPage(t, out.Path, 1, 72, "-hide-annotations"))
	if marks < 0.005 || flat > 0.001 {
		t.Errorf("flattened page differs from the linked one by %.5f; the link's box makes %.5f", flat, marks)
	}
}

// TestFlattenStepDeclines: a document with an annotation the step would
// not draw as qpdf's route does is handed back as it is, with "undrawn"
// in meta, for flatten-pdf to take that route.
func TestFlattenStepDeclines(t *testing.T) {
	square := "/Type /Annot /Subtype /Square /Rect [40 40 140 140] /AP << /N 6 0 R >>"
	widget := "/Type /Annot /Subtype /Widget /Rect [40 40 140 70] "
	for _, tt := range []struct {
		name, annot     string
		needAppearances bool
	}{
		{"a note without an appearance", "<< /Type /Annot /Subtype /Text /Rect [40 40 60 60] /Contents (A note) >>", false},
		{"hidden", "<< " + square + " /F 2 >>", false},
		{"no view", "<< " + square + " /F 32 >>", false},
		{"kept upright", "<< " + square + " /F 16 >>", false},
		{"optional content", "<< " + square + " /OC << /Type /OCG /Name (Layer) >> >>", false},
		{"states without one chosen", "<< " + widget + "/FT /Btn /T (B) /AP << /N << /Yes 6 0 R >> >> >>", false},
		{"a value to draw", "<< " + widget + "/FT /Tx /DA (/F1 12 Tf 0 g) /T (T) /V (Jane) >>", true},
		{"an appearance made anew", "<< " + widget + "/FT /Tx /DA (/F1 12 Tf 0 g) /T (T) /V (Jane) /AP << /N 6 0 R >> >>", true},
		{"a text field no route draws", "<< " + widget + "/FT /Tx /T (T) >>", false},
		{"an appearance that is not a stream", "<< /Type /Annot /Subtype /Square /Rect [40 40 140 140] /AP << /N << /Type /XObject >> >> >>", false},
		{"an empty rectangle", "<< /Type /Annot /Subtype /Square /Rect [40 40 40 140] /AP << /N 6 0 R >> >>", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			form := ""
			if tt.needAppearances {
				form = " /AcroForm << /Fields [5 0 R] /NeedAppearances true >>"
			}
			in := toolstest.WriteTemp(t, "in.pdf", toolstest.PDF(
				"<< /Type /Catalog /Pages 2 0 R"+form+" >>",
				"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
				"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
				"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [5 0 R] >>",
				tt.annot,
				toolstest.FormXObject("[0 0 100 100]", "", "0 g 0 0 100 100 re f"),
			))
			out := flattenStep(t, in)
			if n, _ := out.Meta["undrawn"].(int); n < 1 || out.Path != in {
				t.Errorf("output %s, meta %v; want the input back, undrawn", out.Path, out.Meta)
			}
		})
	}
}

// TestFlattenStepNothingToDraw: a button without an appearance and an
// empty text field of a form that asks for appearances show nothing in
// any route: the step flattens the document, leaving nothing on the page.
func TestFlattenStepNothingToDraw(t *testing.T) {
	in := toolstest.WriteTemp(t, "in.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R 6 0 R] /NeedAppearances true >> >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [5 0 R 6 0 R] >>",
		"<< /Length 0 >>\nstream\n\nendstream",
		"<< /Type /Annot /Subtype /Widget /FT /Tx /DA (/F1 12 Tf 0 g) /T (Name) /V () /Rect [20 20 180 40] >>",
		"<< /Type /Annot /Subtype /Widget /FT /Btn /Ff 65536 /T (Send) /Rect [20 60 80 80] >>",
	))
	out := flattenStep(t, in)
	if out.Meta["undrawn"] != nil || out.Path == in {
		t.Fatalf("output %s, meta %v", out.Path, out.Meta)
	}
	doc := toolstest.QPDFObjects(t, out.Path)
	if a := doc.Annotations(doc.Pages[0]); len(a) != 0 {
		t.Errorf("annotations left: %v", a)
	}
	if _, ok := doc.Catalog()["/AcroForm"]; ok {
		t.Error("form left")
	}
}
