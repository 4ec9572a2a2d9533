package pdfops

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// Factur-X 1.0's names: the embedded file, its MIME type, and the XMP
// namespace of its properties.
const (
	// FacturXName is the name the invoice is embedded under, as
	// Factur-X 1.0 and ZUGFeRD 2.1 and later name it at every level.
	FacturXName    = "factur-x.xml"
	invoiceXMLType = "text/xml"
	nsFacturX      = "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"
	nsPDFAExt      = "http://www.aiim.org/pdfa/ns/extension/"
	nsPDFASchema   = "http://www.aiim.org/pdfa/ns/schema#"
	nsPDFAProp     = "http://www.aiim.org/pdfa/ns/property#"
)

// invoiceLevelParam is einvoice-pdf's level, which the step reading the
// invoice holds the XML to.
const invoiceLevelParam = "level"

// theInvoice names the invoice XML in messages.
const theInvoice = "The invoice XML"

// ReadInvoiceStep reads einvoice-pdf's second file, the CII invoice, as
// hostile XML within the run's Limits.InvoiceXMLBytes (parseInvoice),
// holds it to a Factur-X level and to the "level" param when given, and
// returns the file with meta "level" and "guideline". einvoice-pdf runs
// it before Ghostscript, so that a bad invoice costs no conversion.
func ReadInvoiceStep() *docmill.EngineStep {
	return &docmill.EngineStep{Name: "read-invoice-xml", MinFiles: 1, MaxFiles: 1, Run: guarded(runReadInvoice)}
}

func runReadInvoice(_ context.Context, in *docmill.RunInput, b *budget) (*docmill.RunOutput, error) {
	f := in.Files[0]
	_, x, err := readInvoiceFile(f.Path, b.l.InvoiceXMLBytes, theInvoice)
	if err != nil {
		return nil, err
	}
	level, err := ciiLevel(x, in.Params.String(invoiceLevelParam), theInvoice)
	if err != nil {
		return nil, err
	}
	return &docmill.RunOutput{Path: f.Path, Filename: f.Filename, ContentType: f.ContentType,
		Meta: map[string]any{"level": level, "guideline": x.guideline}}, nil
}

// EmbedInvoiceStep embeds the CII invoice of its second file, read again
// as ReadInvoiceStep reads it, in the PDF/A-3 of its first (which
// Ghostscript made) as Factur-X 1.0 says: the file factur-x.xml (MIME
// type text/xml, its modification date and size in /Params) in the
// EmbeddedFiles name tree and in the catalog's /AF, its file
// specification's /AFRelationship /Data at the levels MINIMUM and BASIC
// WL, whose XML is not a whole invoice, else /Alternative; and an XMP
// packet keeping the PDF/A identification, stating the Info dictionary's
// values, and declaring the Factur-X extension schema with the fx
// properties. Files the PDF already embeds are kept, associated as
// PDF/A-3 asks (associateAttachments). Meta: "pages", "level",
// "relationship".
func EmbedInvoiceStep() *docmill.EngineStep {
	return pdfStep("embed-invoice-xml", 2, 2, runEmbedInvoice)
}

// invoiceRelationship is the /AFRelationship of an invoice of level.
func invoiceRelationship(level string) string {
	if level == LevelMinimum || level == LevelBasicWL {
		return "Data"
	}
	return "Alternative"
}

func runEmbedInvoice(ctx context.Context, in *docmill.RunInput, b *budget) (*docmill.RunOutput, error) {
	pdf, xf := in.Files[0], in.Files[1]
	raw, x, err := readInvoiceFile(xf.Path, b.l.InvoiceXMLBytes, theInvoice)
	if err != nil {
		return nil, err
	}
	level, err := ciiLevel(x, "", theInvoice)
	if err != nil {
		return nil, err
	}
	if err := checkSize(b, in.Files[:1]); err != nil {
		return nil, err
	}
	doc, err := readDocument(ctx, b, pdf, newConfig(model.ADDATTACHMENTS), theFile)
	if err != nil {
		return nil, err
	}
	switch _, name, err := invoiceAttachment(doc); {
	case err != nil:
		return nil, docmill.InvalidDocument(err, "The PDF's attachments could not be read: it is damaged.")
	case name != "":
		return nil, docmill.InvalidDocument(nil, "The PDF already holds an e-invoice (%s): read it with extract-einvoice, or send the PDF without it.", name)
	}
	root, err := doc.Catalog()
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file's catalog could not be read: it is damaged.")
	}
	kept := readKeptXMP(doc, root)
	if kept[nsPDFAID+" part"] != "3" {
		return nil, fmt.Errorf("pdfops: embed invoice: the PDF/A step made part %q, not 3", kept[nsPDFAID+" part"])
	}
	now := time.Now().UTC().Truncate(time.Second)
	if err := associateAttachments(doc, root, now); err != nil {
		return nil, err
	}
	rel := invoiceRelationship(level)
	if err := attachInvoice(doc, root, raw, rel, now); err != nil {
		return nil, err
	}
	info, err := infoDict(doc)
	if err != nil {
		return nil, err
	}
	if err := setXMP(doc, root, invoiceXMP(doc, info, kept, level, now)); err != nil {
		return nil, fmt.Errorf("pdfops: write XMP metadata: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	useXRefTable(doc)
	out, err := writeOutput(doc, in.WorkDir, "einvoice.pdf", docmill.ResultName(pdf.Filename, ".pdf", "-einvoice.pdf"),
		map[string]any{"pages": doc.PageCount, "level": level, "relationship": rel})
	if err != nil {
		return nil, err
	}
	date := types.StringLiteral(types.DateString(now))
	if err := appendInfo(out.Path, doc, types.Dict{"CreationDate": date, "ModDate": date, "Producer": types.StringLiteral(pdfcpuProducer)}); err != nil {
		return nil, fmt.Errorf("pdfops: embed invoice: Info dates: %w", err)
	}
	return out, nil
}

// attachInvoice embeds raw as factur-x.xml: an embedded file stream of
// MIME type text/xml with /Params /Size and /ModDate, a file
// specification with /F, /UF, /Desc and /AFRelationship rel, named in
// the EmbeddedFiles name tree and listed in the catalog's /AF.
func attachInvoice(doc *model.Context, root types.Dict, raw []byte, rel string, modTime time.Time) error {
	sd, err := doc.NewStreamDictForBuf(raw)
	if err != nil {
		return fmt.Errorf("pdfops: invoice stream: %w", err)
	}
	sd.InsertName("Type", "EmbeddedFile")
	sd.InsertName("Subtype", invoiceXMLType)
	sd.Insert("Params", types.Dict{"Size": types.Integer(len(raw)), "ModDate": types.StringLiteral(types.DateString(modTime))})
	if err := sd.Encode(); err != nil {
		return fmt.Errorf("pdfops: invoice stream: %w", err)
	}
	streamRef, err := doc.IndRefForNewObject(*sd)
	if err != nil {
		return fmt.Errorf("pdfops: invoice stream: %w", err)
	}
	spec, err := doc.NewFileSpecDict(FacturXName, FacturXName, "Factur-X invoice (CII XML)", *streamRef)
	if err != nil {
		return fmt.Errorf("pdfops: invoice file spec: %w", err)
	}
	delete(spec, "CI") // pdfcpu's empty collection item: no collection here
	spec.InsertName("AFRelationship", rel)
	specRef, err := doc.IndRefForNewObject(spec)
	if err != nil {
		return fmt.Errorf("pdfops: invoice file spec: %w", err)
	}
	if err := doc.LocateNameTree("EmbeddedFiles", true); err != nil {
		return docmill.InvalidDocument(err, "The PDF's attachments could not be read: it is damaged.")
	}
	m := model.NameMap{FacturXName: []types.Dict{spec}}
	if err := doc.Names["EmbeddedFiles"].Add(doc.XRefTable, FacturXName, *specRef, m, []string{"F", "UF"}); err != nil {
		return docmill.InvalidDocument(err, "The invoice could not be attached: the PDF's attachments are damaged.")
	}
	af, _ := doc.DereferenceArray(root["AF"]) // an unreadable /AF is replaced
	root["AF"] = append(af, *specRef)
	return nil
}

// invoiceXMP is the XMP packet of a Factur-X PDF: the Info dictionary's
// values, the producer and dates the write sets (appendInfo), the kept
// PDF/A identification, the Factur-X extension schema and its values.
func invoiceXMP(doc *model.Context, info types.Dict, kept xmpProps, level string, now time.Time) []byte {
	text := func(key string) string {
		if info[key] == nil {
			return ""
		}
		s, _ := doc.DereferenceText(info[key]) // an unreadable value is left out
		return s
	}
	v := xmpValues{title: text("Title"), author: text("Author"), subject: text("Subject"), keywords: text("Keywords"),
		creator: text("Creator"), producer: pdfcpuProducer, created: now, modified: now}
	return buildXMP(v, kept, facturXSchema, facturXProperties(level))
}

// facturXProperties states the fx properties of an invoice of level.
func facturXProperties(level string) string {
	return `<rdf:Description rdf:about="" xmlns:fx="` + nsFacturX + `">` + "\n" +
		"<fx:DocumentType>INVOICE</fx:DocumentType>\n" +
		"<fx:DocumentFileName>" + FacturXName + "</fx:DocumentFileName>\n" +
		"<fx:Version>1.0</fx:Version>\n" +
		"<fx:ConformanceLevel>" + xmlText(level) + "</fx:ConformanceLevel>\n" +
		"</rdf:Description>\n"
}

// facturXSchema declares the fx properties to PDF/A, which admits in XMP
// only the schemas it predefines and those a packet describes.
var facturXSchema = func() string {
	var b strings.Builder
	b.WriteString(`<rdf:Description rdf:about="" xmlns:pdfaExtension="` + nsPDFAExt + `" xmlns:pdfaSchema="` + nsPDFASchema +
		`" xmlns:pdfaProperty="` + nsPDFAProp + `">` + "\n")
	b.WriteString("<pdfaExtension:schemas><rdf:Bag><rdf:li rdf:parseType=\"Resource\">\n")
	b.WriteString("<pdfaSchema:schema>Factur-X PDFA Extension Schema</pdfaSchema:schema>\n")
	b.WriteString("<pdfaSchema:namespaceURI>" + nsFacturX + "</pdfaSchema:namespaceURI>\n")
	b.WriteString("<pdfaSchema:prefix>fx</pdfaSchema:prefix>\n")
	b.WriteString("<pdfaSchema:property><rdf:Seq>\n")
	for _, p := range []struct{ name, desc string }{
		{"DocumentFileName", "The name of the embedded invoice XML file"},
		{"DocumentType", "The type of the hybrid document: INVOICE"},
		{"Version", "The version of the Factur-X XML schema"},
		{"ConformanceLevel", "The conformance level of the embedded invoice"},
	} {
		b.WriteString("<rdf:li rdf:parseType=\"Resource\">" +
			"<pdfaProperty:name>" + p.name + "</pdfaProperty:name>" +
			"<pdfaProperty:valueType>Text</pdfaProperty:valueType>" +
			"<pdfaProperty:category>external</pdfaProperty:category>" +
			"<pdfaProperty:description>" + p.desc + "</pdfaProperty:description></rdf:li>\n")
	}
	b.WriteString("</rdf:Seq></pdfaSchema:property>\n</rdf:li></rdf:Bag></pdfaExtension:schemas>\n</rdf:Description>\n")
	return b.String()
}()

// associateAttachments gives the files the PDF already embeds what PDF/A-3
// asks of every embedded file, which Ghostscript does not add: each file
// specification in the catalog's /AF, with an /AFRelationship
// (/Unspecified unless it has one), its stream with a MIME /Subtype
// (application/octet-stream unless it has one) and a /Params /ModDate
// (modTime unless it has one). The files themselves are kept as they are.
func associateAttachments(doc *model.Context, root types.Dict, modTime time.Time) error {
	if err := doc.LocateNameTree("EmbeddedFiles", false); err != nil {
		return docmill.InvalidDocument(err, "The PDF's attachments could not be read: it is damaged.")
	}
	tree := doc.Names["EmbeddedFiles"]
	if tree == nil {
		return nil
	}
	var specs types.Array
	err := tree.Process(doc.XRefTable, func(_ *model.XRefTable, _ string, o *types.Object) error {
		spec, err := doc.DereferenceDict(*o)
		if err != nil || spec == nil {
			return fmt.Errorf("file specification: %v", err)
		}
		if spec["AFRelationship"] == nil {
			spec.InsertName("AFRelationship", "Unspecified")
		}
		specs = append(specs, *o)
		ef, _ := doc.DereferenceDict(spec["EF"])
		for _, key := range []string{"F", "UF"} {
			sd, _, err := doc.DereferenceStreamDict(ef[key])
			if err != nil || sd == nil {
				continue
			}
			if sd.Dict["Subtype"] == nil {
				sd.Dict.InsertName("Subtype", "application/octet-stream")
			}
			params, _ := doc.DereferenceDict(sd.Dict["Params"])
			if params == nil {
				params = types.Dict{}
				sd.Dict["Params"] = params
			}
			if params["ModDate"] == nil {
				params["ModDate"] = types.StringLiteral(types.DateString(modTime))
			}
		}
		return nil
	})
	if err != nil {
		return docmill.InvalidDocument(err, "The PDF's attachments could not be read: it is damaged.")
	}
	af, _ := doc.DereferenceArray(root["AF"])
	for _, o := range specs {
		if ref, ok := o.(types.IndirectRef); !ok || !slices.ContainsFunc(af, func(a types.Object) bool { return a == ref }) {
			af = append(af, o)
		}
	}
	root["AF"] = af
	return nil
}
