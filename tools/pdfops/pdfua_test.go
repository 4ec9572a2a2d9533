package pdfops_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/rawpdf"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestMarkPDFUA: the step adds PDF/UA-1's document-level marks to a
// tagged PDF, keeping what its MarkInfo said, as qpdf and pdfinfo read
// them; an untagged PDF is the caller's fault, not the user's.
func TestMarkPDFUA(t *testing.T) {
	toolstest.Need(t, "qpdf")
	toolstest.Need(t, "pdfinfo")
	tagged := rawpdf.Write(
		"<< /Type /Catalog /Pages 2 0 R /StructTreeRoot 4 0 R /MarkInfo << /Suspects false >> >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
		"<< /Type /StructTreeRoot /K [] >>")
	run := func(data []byte) (*docmill.RunOutput, error) {
		path := toolstest.WriteTemp(t, "in.pdf", data)
		in := &docmill.RunInput{Files: []docmill.LocalFile{{Path: path, Filename: "report.pdf", ContentType: "application/pdf", Size: int64(len(data))}},
			Params: docmill.Params{"lang": "ru-RU"}, WorkDir: t.TempDir()}
		return pdfops.MarkPDFUAStep().Invoke(context.Background(), in)
	}
	out, err := run(tagged)
	if err != nil {
		t.Fatal(err)
	}
	root := qpdfCatalog(t, out.Path)
	if root["/Lang"] != "u:ru-RU" || root["/StructTreeRoot"] == nil {
		t.Errorf("catalog %v: want /Lang ru-RU and the structure tree", root)
	}
	mark, _ := root["/MarkInfo"].(map[string]any)
	prefs, _ := root["/ViewerPreferences"].(map[string]any)
	if mark["/Marked"] != true || mark["/Suspects"] != false || prefs["/DisplayDocTitle"] != true {
		t.Errorf("MarkInfo %v, ViewerPreferences %v", mark, prefs)
	}
	meta, err := exec.Command("pdfinfo", "-meta", out.Path).Output()
	if err != nil {
		t.Fatalf("pdfinfo -meta: %v", err)
	}
	if !regexp.MustCompile(`pdfuaid:part(=['"]|>)1`).Match(meta) || !regexp.MustCompile(`<rdf:li>ru-RU</rdf:li>`).Match(meta) {
		t.Errorf("XMP lacks pdfuaid:part 1 or the language: %s", meta)
	}
	_, err = run(toolstest.TextPDF("Not tagged"))
	if code := docmill.ErrorCode(err); code != docmill.CodeInternal {
		t.Errorf("untagged PDF: %v (%s), want internal", err, code)
	}
}

// qpdfCatalog returns the catalog of the PDF at path as qpdf's JSON
// (version 2) states it, indirect objects under it left as references.
func qpdfCatalog(t *testing.T, path string) map[string]any {
	t.Helper()
	raw, err := exec.Command("qpdf", "--json=2", "--json-key=qpdf", path).Output()
	if err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	var doc struct {
		QPDF []json.RawMessage `json:"qpdf"` // a header, then the objects
	}
	var objects map[string]struct {
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(raw, &doc) != nil || len(doc.QPDF) < 2 || json.Unmarshal(doc.QPDF[1], &objects) != nil {
		t.Fatalf("qpdf --json: no objects in %s", raw)
	}
	var trailer, root map[string]any
	if json.Unmarshal(objects["trailer"].Value, &trailer) != nil {
		t.Fatal("qpdf --json: no trailer")
	}
	ref, _ := trailer["/Root"].(string)
	if json.Unmarshal(objects["obj:"+ref].Value, &root) != nil {
		t.Fatalf("qpdf --json: no catalog %q", ref)
	}
	return root
}
