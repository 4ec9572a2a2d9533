package pdfops_test

import "testing"

type listedField struct {
	Name     string    `json:"name"`
	Type     string    `json:"type"`
	Value    any       `json:"value"`
	Options  []string  `json:"options"`
	Required bool      `json:"required"`
	ReadOnly bool      `json:"read_only"`
	Page     int       `json:"page"`
	Rect     []float64 `json:"rect"`
}

func listFields(t *testing.T, path string) []listedField {
	t.Helper()
	var got struct {
		Fields []listedField `json:"fields"`
	}
	if out, _ := listing(t, "pdf-form-fields", path, &got); out.Meta["fields"] != len(got.Fields) {
		t.Fatalf("meta %v, %d fields", out.Meta, len(got.Fields))
	}
	return got.Fields
}

func TestFormFields(t *testing.T) {
	fields := listFields(t, pdfCorpus(t)+"pdflatex-forms.pdf")
	want := map[string]string{"Name": "text", "Check": "checkbox", "Submit": "button"}
	if len(fields) != len(want) {
		t.Fatalf("fields %+v", fields)
	}
	for _, f := range fields {
		if want[f.Name] != f.Type {
			t.Errorf("%s: type %q, want %q", f.Name, f.Type, want[f.Name])
		}
		if f.Page != 1 || len(f.Rect) != 4 || f.Rect[2] <= f.Rect[0] || f.Rect[3] <= f.Rect[1] {
			t.Errorf("%s: page %d rect %v", f.Name, f.Page, f.Rect)
		}
		switch f.Name {
		case "Check":
			if f.Value != false || len(f.Options) != 1 {
				t.Errorf("Check: %+v", f)
			}
		case "Name":
			if f.Value != "" {
				t.Errorf("Name: value %#v", f.Value)
			}
		}
	}
}

func TestFormFieldsNoForm(t *testing.T) {
	if fields := listFields(t, fourPagesPDF(t)); len(fields) != 0 {
		t.Fatalf("fields %+v", fields)
	}
}
