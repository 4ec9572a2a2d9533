package toolstest

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// QPDFField is a form field of a PDF as qpdf, another program than the
// tools', reads it (qpdf --json, its acroform key).
type QPDFField struct {
	// Name is the field's full name.
	Name string
	// Type is text, choice, button, signature, checkbox or radio.
	Type string
	// Page is the number of the page the field is on, from 1.
	Page int
	// Value is the field's value: text without qpdf's "u:" prefix, a
	// name as "/Name", a list's entries joined by commas; "" for none.
	Value string
}

// QPDFFields returns the form fields of the PDF at path as qpdf reads
// them, failing t when it cannot.
func QPDFFields(t testing.TB, path string) []QPDFField {
	t.Helper()
	out, err := exec.Command("qpdf", "--json", "--json-key=acroform", path).Output()
	if err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	var doc struct {
		Acroform struct {
			Fields []struct {
				Fullname      string `json:"fullname"`
				Fieldtype     string `json:"fieldtype"`
				Ischeckbox    bool   `json:"ischeckbox"`
				Isradiobutton bool   `json:"isradiobutton"`
				Pageposfrom1  int    `json:"pageposfrom1"`
				Value         any    `json:"value"`
			} `json:"fields"`
		} `json:"acroform"`
	}
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	var fields []QPDFField
	for _, f := range doc.Acroform.Fields {
		typ := map[string]string{"/Tx": "text", "/Ch": "choice", "/Btn": "button", "/Sig": "signature"}[f.Fieldtype]
		switch {
		case f.Ischeckbox:
			typ = "checkbox"
		case f.Isradiobutton:
			typ = "radio"
		}
		list, ok := f.Value.([]any)
		if !ok {
			list = []any{f.Value}
		}
		var vs []string
		for _, v := range list {
			s, _ := v.(string)
			vs = append(vs, strings.TrimPrefix(s, "u:"))
		}
		fields = append(fields, QPDFField{Name: f.Fullname, Type: typ, Page: f.Pageposfrom1, Value: strings.Join(vs, ",")})
	}
	return fields
}

// QPDFValues returns the value of every form field of the PDF at path by
// the field's full name, as QPDFFields reads them.
func QPDFValues(t testing.TB, path string) map[string]string {
	t.Helper()
	values := map[string]string{}
	for _, f := range QPDFFields(t, path) {
		values[f.Name] = f.Value
	}
	return values
}
