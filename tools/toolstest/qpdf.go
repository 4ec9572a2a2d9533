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

// QPDFDocument is a PDF's objects as qpdf reads them (qpdf --json, its
// pages and qpdf keys): dictionaries as maps keyed by names ("/Type"),
// arrays as slices, references as "N G R", text as "u:..." strings.
type QPDFDocument struct {
	// Pages are the references of the pages' objects, in order.
	Pages   []string
	objects map[string]any
}

// QPDFObjects returns the objects of the PDF at path as qpdf reads them,
// failing t when it cannot.
func QPDFObjects(t testing.TB, path string) *QPDFDocument {
	t.Helper()
	out, err := exec.Command("qpdf", "--json", "--json-key=pages", "--json-key=qpdf", path).Output()
	if err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	var doc struct {
		Pages []struct {
			Object string `json:"object"`
		} `json:"pages"`
		Qpdf []json.RawMessage `json:"qpdf"` // a header, then the objects
	}
	var objects map[string]struct {
		Value any `json:"value"`
	}
	if err := json.Unmarshal(out, &doc); err != nil || len(doc.Qpdf) != 2 || json.Unmarshal(doc.Qpdf[1], &objects) != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	d := &QPDFDocument{objects: map[string]any{}}
	for _, p := range doc.Pages {
		d.Pages = append(d.Pages, p.Object)
	}
	for key, o := range objects {
		d.objects[strings.TrimPrefix(key, "obj:")] = o.Value
	}
	return d
}

// Deref returns the object v refers to when v is a reference, else v.
func (d *QPDFDocument) Deref(v any) any {
	if s, ok := v.(string); ok && strings.HasSuffix(s, " R") {
		return d.objects[s]
	}
	return v
}

// Catalog returns the document's catalog (the trailer's /Root), its
// indirect objects left as references.
func (d *QPDFDocument) Catalog() map[string]any {
	trailer, _ := d.objects["trailer"].(map[string]any)
	root, _ := d.Deref(trailer["/Root"]).(map[string]any)
	return root
}

// Annotations returns the annotation dictionaries of the page whose
// reference is page, in the order of its /Annots.
func (d *QPDFDocument) Annotations(page string) []map[string]any {
	p, _ := d.Deref(page).(map[string]any)
	annots, _ := d.Deref(p["/Annots"]).([]any)
	var out []map[string]any
	for _, a := range annots {
		dict, _ := d.Deref(a).(map[string]any)
		out = append(out, dict)
	}
	return out
}

// Rect returns the rectangle v is or refers to (an array of four
// numbers, such as an annotation's /Rect); zeros where it is not one.
func (d *QPDFDocument) Rect(v any) [4]float64 {
	var r [4]float64
	a, _ := d.Deref(v).([]any)
	for i := range min(len(a), 4) {
		r[i], _ = d.Deref(a[i]).(float64)
	}
	return r
}
