package pdfops_test

import (
	"encoding/json"
	"slices"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

func TestNUpPDF(t *testing.T) {
	in := numberedPDF(t, 5)
	for _, tc := range []struct {
		name   string
		params map[string]string
		sizes  [][2]int
		texts  []string
	}{
		{"two on a landscape sheet", map[string]string{"per_sheet": "2"},
			[][2]int{{842, 595}, {842, 595}, {842, 595}}, []string{"Page 1 Page 2", "Page 3 Page 4", "Page 5"}},
		{"four across then down", map[string]string{"per_sheet": "4", "border": "true"},
			[][2]int{{595, 842}, {595, 842}}, []string{"Page 1 Page 2 Page 3 Page 4", "Page 5"}},
		{"four down then across", map[string]string{"per_sheet": "4", "order": "down-then-across"},
			[][2]int{{595, 842}, {595, 842}}, []string{"Page 1 Page 3 Page 2 Page 4", "Page 5"}},
		{"four right to left", map[string]string{"per_sheet": "4", "order": "across-then-down-rtl"},
			[][2]int{{595, 842}, {595, 842}}, []string{"Page 2 Page 1 Page 4 Page 3", "Page 5"}},
		{"four down then across right to left", map[string]string{"per_sheet": "4", "order": "down-then-across-rtl"},
			[][2]int{{595, 842}, {595, 842}}, []string{"Page 3 Page 1 Page 4 Page 2", "Page 5"}},
		{"nine on a3", map[string]string{"per_sheet": "9", "page_size": "a3"},
			[][2]int{{842, 1191}}, []string{"Page 1 Page 2 Page 3 Page 4 Page 5"}},
		{"sixteen on letter", map[string]string{"per_sheet": "16", "page_size": "letter"},
			[][2]int{{612, 792}}, []string{"Page 1 Page 2 Page 3 Page 4 Page 5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, "nup-pdf", tc.params, in)
			if err != nil {
				t.Fatal(err)
			}
			if got := layoutSizes(t, out.Path); !slices.Equal(got, tc.sizes) {
				t.Errorf("sheet sizes %v, want %v", got, tc.sizes)
			}
			if got := layoutTexts(t, out.Path); !slices.Equal(got, tc.texts) {
				t.Errorf("sheet texts %q, want %q", got, tc.texts)
			}
			if out.Meta["pages"] != len(tc.sizes) || out.Meta["input_pages"] != 5 || out.Filename != "layout-nup.pdf" {
				t.Errorf("filename %q, meta %v", out.Filename, out.Meta)
			}
		})
	}
}

// A document with an outline: the outline pointed at the pages the
// sheets replace, and is dropped with them.
func TestNUpPDFDropsPageLinks(t *testing.T) {
	in := toolstest.WriteTemp(t, "outline.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R /PageMode /UseOutlines >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
		"<< /Type /Outlines /First 5 0 R /Last 5 0 R /Count 1 >>",
		"<< /Title (Start) /Parent 4 0 R /Dest [3 0 R /Fit] >>"))
	out, err := run(t, "nup-pdf", nil, in)
	if err != nil {
		t.Fatal(err)
	}
	selPoppler(t)
	if n := selPageCount(t, out.Path); n != 1 {
		t.Fatalf("%d sheets, want 1", n)
	}
	var doc struct {
		Outlines []any `json:"outlines"`
	}
	raw := selExec(t, "qpdf", "--json", "--json-key=outlines", out.Path)
	if err := json.Unmarshal([]byte(raw), &doc); err != nil || len(doc.Outlines) != 0 {
		t.Errorf("qpdf reads an outline (%v): %s", err, raw)
	}
}

func TestNUpPDFRefusals(t *testing.T) {
	if _, err := tool(t, "nup-pdf").ParseParams(map[string]string{"per_sheet": "3"}); err == nil {
		t.Error("per_sheet 3 accepted")
	} else {
		toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "per_sheet")
	}
	wantCopyLimit(t, "nup-pdf", map[string]string{"per_sheet": "4"})
}
