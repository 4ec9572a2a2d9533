package pdfops_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// ublXRechnung is an XRechnung in UBL, as a German public buyer gets it.
const ublXRechnung = `<?xml version="1.0" encoding="UTF-8"?>
<ubl:Invoice xmlns:ubl="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0</cbc:CustomizationID>
  <cbc:ID>R-1</cbc:ID>
</ubl:Invoice>
`

// withAttachment returns a PDF holding data as name, attached by
// add-attachments.
func withAttachment(t *testing.T, name string, data []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "add-attachments", nil, fourPagesPDF(t), file)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	return toolstest.WriteTemp(t, "hybrid.pdf", b)
}

// TestExtractEInvoice: the invoice under each name of ZUGFeRD and
// XRechnung comes out byte for byte, with the level its guideline or
// customization ID names (unknown for XML that names none, or for what
// is not XML at all).
func TestExtractEInvoice(t *testing.T) {
	for _, tc := range []struct {
		name, level string
		data        []byte
	}{
		{"ZUGFeRD-invoice.xml", "EN 16931", toolstest.CIIInvoice(toolstest.GuidelineEN16931, 2)},
		{"zugferd-invoice.xml", "EXTENDED", toolstest.CIIInvoice(toolstest.GuidelineExtended, 1)},
		{"xrechnung.xml", "XRECHNUNG", []byte(ublXRechnung)},
		{"factur-x.xml", "unknown", []byte("not XML at all <<<")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := run(t, "extract-einvoice", nil, withAttachment(t, tc.name, tc.data))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(out.Path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.data) {
				t.Errorf("%d bytes out, %d embedded", len(got), len(tc.data))
			}
			if out.Meta["attachment"] != tc.name || out.Meta["level"] != tc.level || out.Meta["pages"] != 4 ||
				out.Filename != "hybrid-"+tc.name || out.ContentType != "application/xml" {
				t.Errorf("result %q %q, meta %v", out.Filename, out.ContentType, out.Meta)
			}
		})
	}
}

func TestExtractEInvoiceRefusals(t *testing.T) {
	t.Run("no invoice", func(t *testing.T) {
		out, err := run(t, "extract-einvoice", nil, withAttachment(t, "notes.xml", toolstest.CIIInvoice(toolstest.GuidelineMinimum, 0)))
		wantRefused(t, out, err, docmill.CodeInvalidDocument, "holds no e-invoice", "factur-x.xml")
	})
	t.Run("over the limit", func(t *testing.T) {
		pdf := withAttachment(t, "factur-x.xml", toolstest.CIIInvoice(toolstest.GuidelineEN16931, 30))
		out, err := runWithin(t, tool(t, "extract-einvoice"), nil, docmill.Limits{InvoiceXMLBytes: 4 << 10}, func(int) string { return "application/pdf" }, pdf)
		wantRefused(t, out, err, docmill.CodeFileTooLarge, "larger than 1 MB")
	})
	wantBadInputsRefused(t, "extract-einvoice", nil)
}
