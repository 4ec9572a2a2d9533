package toolstest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// EInvoice is what a Factur-X PDF holds as programs other than docmill's
// read it: qpdf (--json, --show-object) and poppler's pdfdetach.
type EInvoice struct {
	// AF are the references of the catalog's /AF array.
	AF []string
	// Files are the file specifications /AF lists, by /UF (or /F).
	Files map[string]FileSpec
	// Relationship, Name, Subtype, ModDate and Size are Files'
	// factur-x.xml's (Name is "" without one).
	Relationship, Name, Subtype, ModDate string
	Size                                 float64
	// XMP is the catalog's metadata stream, decoded.
	XMP string
	// Info are the Info dictionary's text entries, by key without "/".
	Info map[string]string
	// Listed is pdfdetach -list's output, Saved the bytes pdfdetach
	// -save wrote of factur-x.xml.
	Listed string
	Saved  []byte
}

// FileSpec is an embedded file's specification as qpdf reads it: its
// /AFRelationship ("/Alternative"), and its stream's /Subtype (as qpdf
// writes the name: "/text/xml"), /Params /ModDate and /Params /Size.
type FileSpec struct {
	Relationship, Subtype, ModDate string
	Size                           float64
}

// qpdfObject is an object of qpdf --json: a value, or a stream's
// dictionary.
type qpdfObject struct {
	Value  any `json:"value"`
	Stream *struct {
		Dict map[string]any `json:"dict"`
	} `json:"stream"`
}

// ReadEInvoice reads the e-invoice parts of the PDF at path with qpdf and
// pdfdetach, failing t when a program fails or the catalog has no /AF.
func ReadEInvoice(t testing.TB, path string) EInvoice {
	t.Helper()
	raw, err := exec.Command("qpdf", "--json", "--json-key=qpdf", path).Output()
	if err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	var doc struct {
		Qpdf []json.RawMessage `json:"qpdf"`
	}
	var objects map[string]qpdfObject
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc.Qpdf) != 2 || json.Unmarshal(doc.Qpdf[1], &objects) != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	dict := func(ref any) map[string]any {
		if d, ok := ref.(map[string]any); ok { // a direct object
			return d
		}
		s, _ := ref.(string)
		o := objects["obj:"+s]
		if s == "trailer" {
			o = objects["trailer"]
		}
		if o.Stream != nil {
			return o.Stream.Dict
		}
		d, _ := o.Value.(map[string]any)
		return d
	}
	inv := EInvoice{Files: map[string]FileSpec{}}
	trailer := dict("trailer")
	catalog := dict(trailer["/Root"])
	af, _ := catalog["/AF"].([]any)
	if len(af) == 0 {
		t.Fatalf("the catalog has no /AF: %v", catalog)
	}
	for _, r := range af {
		inv.AF = append(inv.AF, str(r))
		spec := dict(r)
		ef, _ := spec["/EF"].(map[string]any)
		stream := dict(ef["/F"])
		params, _ := stream["/Params"].(map[string]any)
		f := FileSpec{Relationship: str(spec["/AFRelationship"]), Subtype: str(stream["/Subtype"]),
			ModDate: strings.TrimPrefix(str(params["/ModDate"]), "u:")}
		f.Size, _ = params["/Size"].(float64)
		name := str(spec["/UF"])
		if name == "" {
			name = str(spec["/F"])
		}
		inv.Files[strings.TrimPrefix(name, "u:")] = f
	}
	if f, ok := inv.Files["factur-x.xml"]; ok {
		inv.Name, inv.Relationship, inv.Subtype, inv.ModDate, inv.Size = "factur-x.xml", f.Relationship, f.Subtype, f.ModDate, f.Size
	}
	inv.Info = map[string]string{}
	for k, v := range dict(trailer["/Info"]) {
		inv.Info[strings.TrimPrefix(k, "/")] = strings.TrimPrefix(str(v), "u:")
	}
	meta := strings.Fields(str(catalog["/Metadata"]))
	if len(meta) == 3 {
		xmp, err := exec.Command("qpdf", "--show-object="+meta[0]+","+meta[1], "--filtered-stream-data", path).Output()
		if err != nil {
			t.Fatalf("qpdf --show-object: %v", err)
		}
		inv.XMP = string(xmp)
	}
	inv.Listed, inv.Saved = detachInvoice(t, path)
	return inv
}

// detachInvoice returns pdfdetach -list's output of the PDF at path, and
// the bytes pdfdetach -save writes of its factur-x.xml (nil without one).
func detachInvoice(t testing.TB, path string) (string, []byte) {
	t.Helper()
	list, err := exec.Command("pdfdetach", "-list", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfdetach -list: %v\n%s", err, list)
	}
	n := ""
	for line := range strings.Lines(string(list)) {
		if i, name, ok := strings.Cut(strings.TrimSpace(line), ": "); ok && name == "factur-x.xml" {
			n = i
		}
	}
	if n == "" {
		return string(list), nil
	}
	saved := filepath.Join(t.TempDir(), "detached.xml")
	if b, err := exec.Command("pdfdetach", "-save", n, "-o", saved, path).CombinedOutput(); err != nil {
		t.Fatalf("pdfdetach -save: %v\n%s", err, b)
	}
	b, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	return string(list), b
}

// str is v when it is a string, else "".
func str(v any) string {
	s, _ := v.(string)
	return s
}
