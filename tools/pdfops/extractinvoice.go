package pdfops

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// invoiceNames are the names an e-invoice is embedded under, in the
// order they are looked for, in any case: Factur-X 1.0 and ZUGFeRD 2.1
// and later, ZUGFeRD 2.0 (and 1.0, which wrote ZUGFeRD-invoice.xml), and
// the XRechnung profile of ZUGFeRD 2.1.
var invoiceNames = []string{FacturXName, "zugferd-invoice.xml", "xrechnung.xml"}

// InvoiceResultType is extract-einvoice's result: the XML as embedded.
const InvoiceResultType = "application/xml"

// levelUnknown is the meta level of an embedded XML that names no known
// profile, or cannot be read.
const levelUnknown = "unknown"

func extractInvoiceTool() *docmill.Tool {
	return onePDFTool(docmill.Tool{
		Slug:  "extract-einvoice",
		Title: "Extract e-invoice XML",
		Description: "Take the invoice XML out of a Factur-X, ZUGFeRD or XRechnung PDF, byte for byte as it is embedded " +
			"(factur-x.xml, zugferd-invoice.xml, ZUGFeRD-invoice.xml or xrechnung.xml). " +
			"A PDF without one is refused (invalid_document).",
		Outputs: []string{InvoiceResultType},
		Meta: []docmill.MetaField{
			documentPages,
			{Name: "attachment", Type: docmill.MetaString, Description: "The name the invoice was embedded under."},
			{Name: "level", Type: docmill.MetaString, Description: "The Factur-X level its guideline ID names (MINIMUM, BASIC WL, BASIC, EN 16931, EXTENDED, XRECHNUNG), or unknown."},
		},
	}, model.EXTRACTATTACHMENTS, runExtractInvoice)
}

func runExtractInvoice(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (*docmill.RunOutput, error) {
	key, name, err := invoiceAttachment(doc)
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file's attachments could not be read: it is damaged.")
	}
	if name == "" {
		return nil, docmill.InvalidDocument(nil, "The PDF holds no e-invoice: none of its embedded files is named %s (in any case).", strings.Join(invoiceNames, ", "))
	}
	atts, err := doc.ExtractAttachments([]string{key})
	if err != nil || len(atts) != 1 {
		return nil, docmill.InvalidDocument(err, "The embedded invoice %s could not be read: the PDF is damaged.", name)
	}
	raw, err := io.ReadAll(io.LimitReader(atts[0].Reader, b.l.InvoiceXMLBytes+1))
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The embedded invoice %s could not be read: the PDF is damaged.", name)
	}
	if int64(len(raw)) > b.l.InvoiceXMLBytes {
		return nil, docmill.Errorf(docmill.CodeFileTooLarge, "The embedded invoice is larger than %s; this server reads invoices of up to %s.",
			megabytes(b.l.InvoiceXMLBytes), megabytes(b.l.InvoiceXMLBytes))
	}
	level := levelUnknown
	if x, err := parseInvoice(raw, "The embedded invoice"); err == nil && levelOf(x.guideline) != "" {
		level = levelOf(x.guideline)
	}
	p := filepath.Join(in.WorkDir, "einvoice.xml")
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		return nil, docmill.Internal(err)
	}
	return &docmill.RunOutput{Path: p, Filename: docmill.ResultName(in.Files[0].Filename, ".pdf", "-"+name), ContentType: InvoiceResultType,
		Meta: map[string]any{"pages": doc.PageCount, "attachment": name, "level": level}}, nil
}

// invoiceAttachment returns the name tree key of doc's embedded
// e-invoice, found by its key or its file name among invoiceNames (in
// any case), in their order, and that name as the document spells it
// (the key itself may be any text); "" when it has none.
func invoiceAttachment(doc *model.Context) (key, name string, err error) {
	if err := doc.LocateNameTree("EmbeddedFiles", false); err != nil {
		return "", "", err
	}
	if doc.Names["EmbeddedFiles"] == nil {
		return "", "", nil
	}
	atts, err := doc.ListAttachments()
	if err != nil {
		return "", "", err
	}
	for _, want := range invoiceNames {
		for _, a := range atts {
			for _, n := range []string{a.ID, filepath.Base(a.FileName)} {
				// The same length: ASCII case only, not the Kelvin sign
				// EqualFold also takes for a K.
				if len(n) == len(want) && strings.EqualFold(n, want) {
					return a.ID, n, nil
				}
			}
		}
	}
	return "", "", nil
}
