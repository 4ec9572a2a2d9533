package ghostscript_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// invoiceFile is an input of einvoice-pdf: its bytes, name and sniffed
// type.
type invoiceFile struct {
	data        []byte
	name, ctype string
}

func pdfInput(b []byte) invoiceFile { return invoiceFile{b, "invoice.pdf", "application/pdf"} }
func xmlInput(b []byte) invoiceFile { return invoiceFile{b, "invoice.xml", "text/xml"} }

// runEInvoice runs einvoice-pdf on files (the PDF, then the XML) with
// params within limits.
func runEInvoice(t *testing.T, params map[string]string, limits docmill.Limits, files ...invoiceFile) (*docmill.RunOutput, error) {
	t.Helper()
	tl := tool(t, "einvoice-pdf")
	p, err := tl.ParseParams(params)
	if err != nil {
		t.Fatalf("ParseParams(%v): %v", params, err)
	}
	dir := t.TempDir()
	in := &docmill.RunInput{Params: p, WorkDir: dir, Limits: limits}
	for i, f := range files {
		path := filepath.Join(dir, fmt.Sprintf("input-%d%s", i, filepath.Ext(f.name)))
		if err := os.WriteFile(path, f.data, 0o600); err != nil {
			t.Fatal(err)
		}
		in.Files = append(in.Files, docmill.LocalFile{Path: path, Filename: f.name, ContentType: f.ctype, Size: int64(len(f.data))})
	}
	return tl.Invoke(context.Background(), in)
}

// TestEInvoiceRoundTrip makes a MINIMUM and an EN 16931 e-invoice and
// reads them with qpdf and pdfdetach: a PDF/A-3B whose catalog's /AF
// names factur-x.xml, text/xml with a /ModDate, the relationship of its
// level, the Factur-X XMP; extract-einvoice, and pdfdetach, give back the
// XML byte for byte.
func TestEInvoiceRoundTrip(t *testing.T) {
	page := toolstest.TextPDF("Invoice INV-2026-0042", "Page two of the invoice")
	for _, tc := range []struct {
		name, level, rel string
		xml              []byte
	}{
		{"minimum", "MINIMUM", "/Data", toolstest.CIIInvoice(toolstest.GuidelineMinimum, 0)},
		{"en16931", "EN 16931", "/Alternative", toolstest.CIIInvoice(toolstest.GuidelineEN16931, 3)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := runEInvoice(t, map[string]string{"level": tc.level}, docmill.Limits{}, pdfInput(page), xmlInput(tc.xml))
			if err != nil {
				t.Fatal(err)
			}
			if out.Filename != "invoice-einvoice.pdf" || fmt.Sprint(out.Meta["level"]) != tc.level ||
				"/"+fmt.Sprint(out.Meta["relationship"]) != tc.rel || fmt.Sprint(out.Meta["pages"]) != "2" {
				t.Errorf("result %q, meta %v", out.Filename, out.Meta)
			}
			qpdfCheck(t, out.Path)
			checkFacturX(t, out.Path, tc.level, tc.rel, tc.xml)
			if got := text(t, out.Path); !strings.Contains(got, "Invoice INV-2026-0042") {
				t.Errorf("text %q", got)
			}

			made, err := os.ReadFile(out.Path)
			if err != nil {
				t.Fatal(err)
			}
			back := toolstest.MustRun(t, toolstest.Find(t, pdfops.Tools(), "extract-einvoice"),
				toolstest.WriteTemp(t, out.Filename, made), "application/pdf", nil)
			got, err := os.ReadFile(back.Path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.xml) {
				t.Errorf("extract-einvoice gave %d bytes, not the %d embedded", len(got), len(tc.xml))
			}
			if back.ContentType != "application/xml" || back.Filename != "invoice-einvoice-factur-x.xml" ||
				back.Meta["level"] != tc.level || back.Meta["attachment"] != "factur-x.xml" {
				t.Errorf("extract-einvoice: %q %q meta %v", back.Filename, back.ContentType, back.Meta)
			}
		})
	}
}

// checkFacturX reads the e-invoice PDF at path with qpdf and pdfdetach
// and holds it to Factur-X 1.0 and PDF/A-3B.
func checkFacturX(t *testing.T, path, level, rel string, xml []byte) {
	t.Helper()
	inv := toolstest.ReadEInvoice(t, path)
	if len(inv.AF) != 1 || inv.Relationship != rel || inv.Name != "factur-x.xml" ||
		(inv.Subtype != "/text/xml" && !strings.EqualFold(inv.Subtype, "/text#2fxml")) || inv.Size != float64(len(xml)) ||
		!strings.HasPrefix(inv.ModDate, "D:20") {
		t.Errorf("file spec: AF %v, relationship %q, name %q, subtype %q, size %v, mod date %q",
			inv.AF, inv.Relationship, inv.Name, inv.Subtype, inv.Size, inv.ModDate)
	}
	if !strings.Contains(inv.Listed, "1 embedded files") || !strings.Contains(inv.Listed, "factur-x.xml") {
		t.Errorf("pdfdetach -list: %q", inv.Listed)
	}
	if !bytes.Equal(inv.Saved, xml) {
		t.Errorf("pdfdetach -save gave %d bytes, not the %d embedded", len(inv.Saved), len(xml))
	}
	for _, want := range []string{
		"<pdfaid:part>3</pdfaid:part>", "<pdfaid:conformance>B</pdfaid:conformance>",
		`xmlns:fx="urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"`,
		"<pdfaSchema:namespaceURI>urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#</pdfaSchema:namespaceURI>",
		"<pdfaSchema:prefix>fx</pdfaSchema:prefix>", "<pdfaProperty:name>ConformanceLevel</pdfaProperty:name>",
		"<fx:DocumentType>INVOICE</fx:DocumentType>", "<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>",
		"<fx:Version>1.0</fx:Version>", "<fx:ConformanceLevel>" + level + "</fx:ConformanceLevel>",
	} {
		if !strings.Contains(inv.XMP, want) {
			t.Errorf("XMP lacks %s:\n%s", want, inv.XMP)
		}
	}
	// PDF/A: the Info dictionary and the XMP state the same dates and
	// producer.
	for key, prop := range map[string]string{"CreationDate": "xmp:CreateDate", "ModDate": "xmp:ModifyDate"} {
		d, err := time.Parse("D:20060102150405Z07'00'", inv.Info[key])
		if err != nil {
			t.Errorf("Info %s %q: %v", key, inv.Info[key], err)
			continue
		}
		if want := "<" + prop + ">" + d.UTC().Format(time.RFC3339) + "</" + prop + ">"; !strings.Contains(inv.XMP, want) {
			t.Errorf("Info %s is %s; the XMP lacks %s", key, inv.Info[key], want)
		}
	}
	if p := inv.Info["Producer"]; p == "" || !strings.Contains(inv.XMP, "<pdf:Producer>"+p+"</pdf:Producer>") {
		t.Errorf("Info Producer %q is not the XMP's", p)
	}
}

// TestEInvoiceRefusals: each bad input is a client error of its own
// code, named in words a client can act on.
func TestEInvoiceRefusals(t *testing.T) {
	page := toolstest.TextPDF("Invoice")
	en := toolstest.CIIInvoice(toolstest.GuidelineEN16931, 1)
	deep := "<?xml version=\"1.0\"?><rsm:CrossIndustryInvoice xmlns:rsm=\"urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100\">" +
		strings.Repeat("<a>", 10000) + strings.Repeat("</a>", 10000) + "</rsm:CrossIndustryInvoice>"
	laughs := `<?xml version="1.0"?><!DOCTYPE rsm:CrossIndustryInvoice [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
		`<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>` +
		`<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">&lol3;</rsm:CrossIndustryInvoice>`
	external := `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>`
	undeclared := `<?xml version="1.0"?><rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100">&x;</rsm:CrossIndustryInvoice>`
	for _, tc := range []struct {
		name   string
		params map[string]string
		limits docmill.Limits
		files  []invoiceFile
		code   docmill.Code
		field  string
		says   []string
	}{
		{"XML first", nil, docmill.Limits{}, []invoiceFile{xmlInput(en), pdfInput(page)}, docmill.CodeUnsupportedFileType, "", []string{"PDF first"}},
		{"two PDFs", nil, docmill.Limits{}, []invoiceFile{pdfInput(page), pdfInput(page)}, docmill.CodeUnsupportedFileType, "", []string{"then application/pdf"}},
		{"not CII", nil, docmill.Limits{}, []invoiceFile{pdfInput(page), xmlInput([]byte(`<?xml version="1.0"?><Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`))},
			docmill.CodeInvalidDocument, "", []string{"not a CII invoice", "rsm:CrossIndustryInvoice"}},
		{"unknown guideline", nil, docmill.Limits{}, []invoiceFile{pdfInput(page), xmlInput(toolstest.CIIInvoice("urn:example:nothing", 0))},
			docmill.CodeInvalidDocument, "", []string{`"urn:example:nothing"`}},
		{"not well-formed", nil, docmill.Limits{}, []invoiceFile{pdfInput(page), xmlInput(en[:len(en)/2])}, docmill.CodeInvalidDocument, "", []string{"not well-formed"}},
		{"billion laughs", nil, docmill.Limits{}, []invoiceFile{pdfInput(page), xmlInput([]byte(laughs))}, docmill.CodeInvalidDocument, "", []string{"DOCTYPE"}},
		{"external entity", nil, docmill.Limits{}, []invoiceFile{pdfInput(page), xmlInput([]byte(external))}, docmill.CodeInvalidDocument, "", []string{"DOCTYPE"}},
		{"undeclared entity", nil, docmill.Limits{}, []invoiceFile{pdfInput(page), xmlInput([]byte(undeclared))}, docmill.CodeInvalidDocument, "", []string{"not well-formed"}},
		{"deep nesting", nil, docmill.Limits{}, []invoiceFile{pdfInput(page), xmlInput([]byte(deep))}, docmill.CodeInvalidDocument, "", []string{"more than 64 deep"}},
		{"over the limit", nil, docmill.Limits{InvoiceXMLBytes: 1 << 10}, []invoiceFile{pdfInput(page), xmlInput(en)}, docmill.CodeFileTooLarge, "", []string{"1 MB"}},
		{"level mismatch", map[string]string{"level": "MINIMUM"}, docmill.Limits{}, []invoiceFile{pdfInput(page), xmlInput(en)},
			docmill.CodeInvalidParameter, "level", []string{`"MINIMUM"`, `"urn:cen.eu:en16931:2017"`, "EN 16931"}},
		{"damaged PDF", nil, docmill.Limits{}, []invoiceFile{pdfInput(page[:20]), xmlInput(en)}, docmill.CodeInvalidDocument, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := runEInvoice(t, tc.params, tc.limits, tc.files...)
			e := toolstest.WantCode(t, err, tc.code, tc.field)
			for _, s := range tc.says {
				if !strings.Contains(e.Error(), s) {
					t.Errorf("error %q does not say %q", e.Error(), s)
				}
			}
		})
	}
}

// TestEInvoiceKeepsAttachments: a file the PDF already embeds stays,
// made what PDF/A-3 asks of it: in the catalog's /AF with an
// /AFRelationship, its stream with a MIME type and a /ModDate.
func TestEInvoiceKeepsAttachments(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notes, []byte("delivery notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	add := toolstest.Find(t, pdfops.Tools(), "add-attachments")
	pdf := toolstest.Input(t, dir, toolstest.WriteTemp(t, "invoice.pdf", toolstest.TextPDF("Invoice")), "application/pdf")
	with, err := add.Invoke(context.Background(), &docmill.RunInput{Params: docmill.Params{}, WorkDir: dir,
		Files: []docmill.LocalFile{pdf, {Path: notes, Filename: "notes.txt", ContentType: "text/plain"}}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(with.Path)
	if err != nil {
		t.Fatal(err)
	}
	xml := toolstest.CIIInvoice(toolstest.GuidelineEN16931, 1)
	out, err := runEInvoice(t, nil, docmill.Limits{}, pdfInput(b), xmlInput(xml))
	if err != nil {
		t.Fatal(err)
	}
	inv := toolstest.ReadEInvoice(t, out.Path)
	kept, ok := inv.Files["notes.txt"]
	if len(inv.AF) != 2 || !ok || kept.Relationship != "/Unspecified" || kept.Subtype == "" || !strings.HasPrefix(kept.ModDate, "D:") {
		t.Errorf("AF %v, files %+v", inv.AF, inv.Files)
	}
	if inv.Relationship != "/Alternative" || !bytes.Equal(inv.Saved, xml) || !strings.Contains(inv.Listed, "2 embedded files") {
		t.Errorf("invoice %q, %d bytes saved, pdfdetach -list %q", inv.Relationship, len(inv.Saved), inv.Listed)
	}
}

// TestInvoiceLevelsMatch: the levels einvoice-pdf offers are those the
// invoice steps name.
func TestInvoiceLevelsMatch(t *testing.T) {
	p, ok := tool(t, "einvoice-pdf").Param("level")
	if !ok || !slices.Equal(p.Enum, pdfops.InvoiceLevels()) {
		t.Errorf("level offers %v; the steps name %v", p.Enum, pdfops.InvoiceLevels())
	}
}
