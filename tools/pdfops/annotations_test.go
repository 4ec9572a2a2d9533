package pdfops_test

import (
	"slices"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// annotSubtypes returns the subtypes of each page's annotations in a PDF.
func annotSubtypes(t *testing.T, path string) [][]string {
	t.Helper()
	doc := readBack(t, path)
	out := make([][]string, doc.PageCount)
	for p := 1; p <= doc.PageCount; p++ {
		page, _, _, err := doc.PageDict(p, false)
		if err != nil {
			t.Fatal(err)
		}
		annots, err := doc.DereferenceArray(page["Annots"])
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range annots {
			d, err := doc.DereferenceDict(a)
			if err != nil || d == nil {
				t.Fatalf("page %d: annotation %v: %v", p, a, err)
			}
			out[p-1] = append(out[p-1], *d.NameEntry("Subtype"))
		}
	}
	return out
}

func TestRemoveAnnotations(t *testing.T) {
	in := toolstest.WriteTemp(t, "active.pdf", toolstest.ActivePDF())
	if got := annotSubtypes(t, in); len(got[0]) != 4 || len(got[1]) != 5 {
		t.Fatalf("sample annotations %v", got)
	}
	for _, tc := range []struct {
		params        map[string]string
		want          [][]string
		removed, kept int
		formRemoved   bool
	}{
		{nil, [][]string{{"Widget"}, nil}, 8, 1, false},
		{map[string]string{"keep_links": "true"}, [][]string{{"Link", "Widget"}, {"Link", "Link", "Link", "Link"}}, 3, 6, false},
		{map[string]string{"keep_forms": "false"}, [][]string{nil, nil}, 9, 0, true},
		{map[string]string{"pages": "2"}, [][]string{{"Text", "Link", "Widget", "Highlight"}, nil}, 5, 0, false},
	} {
		out, err := run(t, "remove-annotations", tc.params, in)
		if err != nil {
			t.Fatalf("%v: %v", tc.params, err)
		}
		got := annotSubtypes(t, out.Path)
		if !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("%v: annotations %v, want %v", tc.params, got, tc.want)
		}
		if out.Meta["removed"] != tc.removed || out.Meta["kept"] != tc.kept || out.Meta["form_removed"] != tc.formRemoved || out.Meta["pages"] != 2 {
			t.Errorf("%v: meta %v", tc.params, out.Meta)
		}
		root, err := readBack(t, out.Path).Catalog()
		if err != nil {
			t.Fatal(err)
		}
		if _, has := root["AcroForm"]; has == tc.formRemoved {
			t.Errorf("%v: AcroForm present %v, want form removed %v", tc.params, has, tc.formRemoved)
		}
	}
}

func TestRemoveAnnotationsCorpus(t *testing.T) {
	out, err := run(t, "remove-annotations", nil, pdfCorpus(t)+"annotated_pdf.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if got := annotSubtypes(t, out.Path); len(got) != 1 || len(got[0]) != 0 {
		t.Errorf("annotations left %v", got)
	}
	if out.Meta["removed"] == 0 || out.Filename != "annotated_pdf-no-annotations.pdf" {
		t.Errorf("meta %v, filename %q", out.Meta, out.Filename)
	}
}

func TestRemoveAnnotationsBadInput(t *testing.T) {
	wantBadInputsRefused(t, "remove-annotations", nil)
	// A field tree that refers to itself must not loop.
	cyclic := toolstest.WriteTemp(t, "cyclic.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] >> >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Annots [4 0 R] >>",
		"<< /Type /Annot /Subtype /Widget /Parent 5 0 R /Rect [0 0 10 10] >>",
		"<< /FT /Tx /T (loop) /Kids [4 0 R 5 0 R] >>",
	))
	out, err := run(t, "remove-annotations", map[string]string{"keep_forms": "false"}, cyclic)
	if err != nil {
		wantCode(t, err, docmill.CodeInvalidDocument)
		return
	}
	if out.Meta["removed"] != 1 {
		t.Errorf("meta %v", out.Meta)
	}
	_, err = runValidated(t, "remove-annotations", map[string]string{"pages": "5"}, cyclic)
	wantCode(t, err, docmill.CodeInvalidParameter)
}
