package main

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

const formsPDF = "pdflatex-forms.pdf"

// qpdfFields returns name → "type page" of a PDF's form fields as qpdf,
// another program, reads them.
func qpdfFields(t *testing.T, path string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, f := range toolstest.QPDFFields(t, path) {
		m[f.Name] = f.Type + " " + string(rune('0'+f.Page))
	}
	return m
}

func TestPDFFormFields(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	j, data := runTool(t, c, "pdf-form-fields", []client.File{file(t, "pdf", formsPDF)}, nil)
	if j.Result.Filename != "pdflatex-forms-fields.json" || !strings.HasPrefix(j.Result.ContentType, "application/json") {
		t.Fatalf("result %+v", j.Result)
	}
	var got struct {
		Fields []struct {
			Name  string    `json:"name"`
			Type  string    `json:"type"`
			Page  int       `json:"page"`
			Rect  []float64 `json:"rect"`
			Value any       `json:"value"`
		} `json:"fields"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	m := map[string]string{}
	for _, f := range got.Fields {
		typ := f.Type
		if typ == "combo" || typ == "list" {
			typ = "choice"
		}
		m[f.Name] = typ + " " + string(rune('0'+f.Page))
		if len(f.Rect) != 4 {
			t.Errorf("%s: rect %v", f.Name, f.Rect)
		}
	}
	want := qpdfFields(t, toolstest.Corpus(t, "pdf")+"/"+formsPDF)
	if len(want) == 0 || !equalMaps(m, want) {
		t.Fatalf("fields %v, qpdf reads %v", m, want)
	}
}

func equalMaps(a, b map[string]string) bool {
	keys := func(m map[string]string) []string {
		var ks []string
		for k, v := range m {
			ks = append(ks, k+"="+v)
		}
		sort.Strings(ks)
		return ks
	}
	return equalStrings(keys(a), keys(b))
}
