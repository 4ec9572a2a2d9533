package ghostscript

import (
	"context"
	"os"
	"slices"

	docmill "github.com/docmill/docmill"
)

// invoiceLevels are the Factur-X levels einvoice-pdf's level param
// offers, as fx:ConformanceLevel states them; the ReadInvoice step maps
// guideline IDs to the same names (TestInvoiceLevelsMatch).
var invoiceLevels = []string{"MINIMUM", "BASIC WL", "BASIC", "EN 16931", "EXTENDED", "XRECHNUNG"}

// invoiceTypes are the types the invoice XML may be sniffed as: text/xml
// with an XML declaration, text/plain without one or after a byte order
// mark.
var invoiceTypes = []string{"text/xml", "text/plain"}

// einvoiceTool declares einvoice-pdf: a PDF and a CII invoice XML in, a
// Factur-X 1.0 PDF/A-3b out. The XML is read first (ReadInvoice), so a
// bad invoice costs no conversion; the PDF is made PDF/A-3b by
// pdf-to-pdfa's conversion, then EmbedInvoice attaches the XML and
// writes the Factur-X XMP.
func (e *engines) einvoiceTool() *docmill.Tool {
	t := e.tool(docmill.Tool{
		Slug:  "einvoice-pdf",
		Lane:  docmill.LaneRender,
		Title: "Make a Factur-X e-invoice",
		Description: "Make a Factur-X / ZUGFeRD e-invoice: send the PDF of the invoice, then its CII XML (rsm:CrossIndustryInvoice); " +
			"the PDF is converted to PDF/A-3b and the XML embedded as factur-x.xml, byte for byte, with the Factur-X XMP metadata. " +
			"The level is the one the XML's guideline ID names. The relationship of the XML to the PDF (/AFRelationship) is Data at " +
			"MINIMUM and BASIC WL, whose XML is not a whole invoice, and Alternative at the other levels.",
		Params: []docmill.Param{
			{Name: paramLevel, Type: docmill.TypeString, Enum: invoiceLevels,
				Description: "The level the invoice must have; when given and the XML's guideline ID names another, the request is refused. By default, the XML's own."},
		},
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."},
			{Name: "level", Type: docmill.MetaString, Description: "The Factur-X level of the invoice, from its guideline ID: MINIMUM, BASIC WL, BASIC, EN 16931, EXTENDED or XRECHNUNG."},
			{Name: "relationship", Type: docmill.MetaString, Description: "The embedded XML's /AFRelationship: Data (MINIMUM, BASIC WL) or Alternative."},
		},
		Engine:    "ghostscript",
		Available: e.einvoiceAvailable,
		Run:       e.runEInvoice,
	})
	t.Accepts = append([]string{pdfContentType}, invoiceTypes...)
	t.MinFiles, t.MaxFiles = 2, 2
	return t
}

// einvoiceAvailable reports whether Ghostscript, qpdf, the sRGB profile
// and both steps are there.
func (e *engines) einvoiceAvailable() bool {
	return e.available() && srgbProfile() != "" && e.steps.ReadInvoice != nil && e.steps.EmbedInvoice != nil
}

func (e *engines) runEInvoice(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	if !e.einvoiceAvailable() {
		return nil, docmill.Errorf(docmill.CodeEngineUnavailable, "E-invoices cannot be made on this server: its PDF/A conversion is not available.")
	}
	pdf, inv := in.Files[0], in.Files[1]
	if pdf.ContentType != pdfContentType || !slices.Contains(invoiceTypes, inv.ContentType) {
		return nil, docmill.Errorf(docmill.CodeUnsupportedFileType,
			"einvoice-pdf takes the PDF first, then the invoice's CII XML; got %s, then %s.", pdf.ContentType, inv.ContentType)
	}
	read := docmill.Params{}
	if l := in.Params.String(paramLevel); l != "" {
		read[paramLevel] = l
	}
	if _, err := e.steps.ReadInvoice(ctx, &docmill.RunInput{Files: []docmill.LocalFile{inv}, Params: read,
		WorkDir: in.WorkDir, Limits: in.Limits, FreshEngines: in.FreshEngines}); err != nil {
		return nil, err
	}
	src, err := e.checkInput(ctx, pdf, in.WorkDir)
	if err != nil {
		return nil, err
	}
	pdfa, err := e.convertPDFA(ctx, src, "3", in.WorkDir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(pdfa)
	if err != nil {
		return nil, docmill.Internal(err)
	}
	made := docmill.LocalFile{Path: pdfa, Filename: pdf.Filename, ContentType: pdfContentType, Size: st.Size()}
	out, err := e.steps.EmbedInvoice(ctx, &docmill.RunInput{Files: []docmill.LocalFile{made, inv}, Params: docmill.Params{},
		WorkDir: in.WorkDir, Limits: in.Limits, FreshEngines: in.FreshEngines})
	if err != nil {
		return nil, err
	}
	return pdfResult(in, out.Path, "-einvoice.pdf", out.Meta), nil
}
