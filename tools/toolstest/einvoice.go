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
	// Relationship and Name are the /AFRelationship ("/Alternative") and
	// /UF of the file specification /AF names first.
	Relationship, Name string
	// Subtype, ModDate and Size are its embedded file stream's /Subtype
	// (as qpdf writes the name: "/text/xml"), /Params /ModDate and
	// /Params /Size.
	Subtype, ModDate string
	Size             float64
	// XMP is the catalog's metadata stream, decoded.
	XMP string
	// Info are the Info dictionary's text entries, by key without "/".
	Info map[string]string
	// Listed is pdfdetach -list's output, Saved the bytes pdfdetach
	// -save 1 wrote.
	Listed string
	Saved  []byte
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
	var inv EInvoice
	trailer := dict("trailer")
	catalog := dict(trailer["/Root"])
	af, _ := catalog["/AF"].([]any)
	if len(af) == 0 {
		t.Fatalf("the catalog has no /AF: %v", catalog)
	}
	for _, r := range af {
		inv.AF = append(inv.AF, r.(string))
	}
	spec := dict(af[0])
	inv.Relationship, _ = spec["/AFRelationship"].(string)
	inv.Name = strings.TrimPrefix(str(spec["/UF"]), "u:")
	ef, _ := spec["/EF"].(map[string]any)
	stream := dict(ef["/F"])
	inv.Subtype, _ = stream["/Subtype"].(string)
	params, _ := stream["/Params"].(map[string]any)
	inv.ModDate = strings.TrimPrefix(str(params["/ModDate"]), "u:")
	inv.Size, _ = params["/Size"].(float64)
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
	list, err := exec.Command("pdfdetach", "-list", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfdetach -list: %v\n%s", err, list)
	}
	inv.Listed = string(list)
	saved := filepath.Join(t.TempDir(), "detached.xml")
	if b, err := exec.Command("pdfdetach", "-save", "1", "-o", saved, path).CombinedOutput(); err != nil {
		t.Fatalf("pdfdetach -save: %v\n%s", err, b)
	}
	if inv.Saved, err = os.ReadFile(saved); err != nil {
		t.Fatal(err)
	}
	return inv
}

// str is v when it is a string, else "".
func str(v any) string {
	s, _ := v.(string)
	return s
}
