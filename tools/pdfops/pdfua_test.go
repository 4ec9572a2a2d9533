package pdfops_test

import (
	"context"
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
	root := toolstest.QPDFObjects(t, out.Path).Catalog()
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
