package pdfops_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

func TestInspect(t *testing.T) {
	tool := pdfops.InspectStep()
	active := toolstest.WriteTemp(t, "active.pdf", toolstest.ActivePDF())
	good, err := os.ReadFile(pdfCorpus(t) + "pdflatex-4-pages.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want map[string]any
	}{
		{active, map[string]any{"read": true, "pages": 2, "javascript": true, "form_fields": 1, "signatures": 0, "tagged": false}},
		{pdfCorpus(t) + "pdflatex-forms.pdf", map[string]any{"read": true, "form_fields": 3, "javascript": false}},
		{pdfCorpus(t) + "crazyones-pdfa.pdf", map[string]any{"read": true, "pdfa": "1B", "pdfua": ""}},
		{encryptedPDF(t), map[string]any{"read": false, "password_required": true}},
		{toolstest.WriteTemp(t, "cut.pdf", good[:len(good)/2]), map[string]any{"read": false, "password_required": false}},
	} {
		out := toolstest.MustRunStep(t, tool, tc.path, "application/pdf", nil)
		for k, v := range tc.want {
			if out.Meta[k] != v {
				t.Errorf("%s: %s = %v, want %v (meta %v)", tc.path, k, out.Meta[k], v, out.Meta)
			}
		}
		if out.ContentType != "application/pdf" || out.Filename != filepath.Base(tc.path) {
			t.Errorf("output %s %s, want the input", out.Filename, out.ContentType)
		}
	}
	out := toolstest.MustRunStep(t, tool, toolstest.WriteTemp(t, "cut.pdf", good[:len(good)/2]), "application/pdf", nil)
	if ps := out.Meta["problems"].([]string); len(ps) == 0 || len(ps[0]) > 310 {
		t.Errorf("problems %q", ps)
	}
}
