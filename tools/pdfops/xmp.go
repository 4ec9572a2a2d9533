package pdfops

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// XMP namespaces edit-metadata writes or keeps.
const (
	nsRDF     = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsDC      = "http://purl.org/dc/elements/1.1/"
	nsPDF     = "http://ns.adobe.com/pdf/1.3/"
	nsXMP     = "http://ns.adobe.com/xap/1.0/"
	nsXMPMM   = "http://ns.adobe.com/xap/1.0/mm/"
	nsPDFAID  = "http://www.aiim.org/pdfa/ns/id/"
	nsPDFUAID = "http://www.aiim.org/pdfua/ns/id/"
)

// Bounds on the input XMP read for the properties kept: a packet is a few
// kilobytes; a hostile one may be a decompressed stream of any size.
const (
	maxXMPBytes  = 4 << 20
	maxXMPTokens = 200_000
)

// keptXMP are the input's XMP properties that the rewritten packet keeps
// (namespace and local name → value): the PDF/A and PDF/UA
// identification, without which a conforming file loses its claim, and
// the document's ID. Others are dropped with the old packet.
var keptXMP = []struct{ ns, prefix, name string }{
	{nsPDFAID, "pdfaid", "part"},
	{nsPDFAID, "pdfaid", "conformance"},
	{nsPDFAID, "pdfaid", "amd"},
	{nsPDFUAID, "pdfuaid", "part"},
	{nsXMPMM, "xmpMM", "DocumentID"},
}

// xmpProps maps "namespace name" of a kept property to its value.
type xmpProps map[string]string

// readKeptXMP returns the kept properties of the catalog's XMP stream,
// nil when it has none or it cannot be read (it is then replaced all the
// same).
func readKeptXMP(doc *model.Context, root types.Dict) xmpProps {
	sd, _, err := doc.DereferenceStreamDict(root["Metadata"])
	if err != nil || sd == nil {
		return nil
	}
	if err := sd.DecodeWithLimit(maxXMPBytes); err != nil {
		return nil
	}
	return keptProps(sd.Content)
}

// keptProps scans an XMP packet for the keptXMP properties, written
// either as attributes of rdf:Description or as elements holding text.
func keptProps(packet []byte) xmpProps {
	want := map[string]bool{}
	for _, k := range keptXMP {
		want[k.ns+" "+k.name] = true
	}
	props := xmpProps{}
	d := xml.NewDecoder(bytes.NewReader(packet))
	d.Strict = false
	var open string // the kept element whose text is being read
	for range maxXMPTokens {
		tok, err := d.Token()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return props // what was read before the fault
			}
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			open = ""
			if key := t.Name.Space + " " + t.Name.Local; want[key] {
				open = key
			}
			for _, a := range t.Attr {
				if key := a.Name.Space + " " + a.Name.Local; want[key] {
					props[key] = strings.TrimSpace(a.Value)
				}
			}
		case xml.CharData:
			if open != "" {
				props[open] += string(t)
			}
		case xml.EndElement:
			if open != "" {
				props[open] = strings.TrimSpace(props[open])
			}
			open = ""
		}
	}
	return props
}

// xmpValues are the document's properties as the XMP packet states them,
// each the same as the Info dictionary's entry.
type xmpValues struct {
	title, author, subject, keywords, creator, producer, lang string
	created, modified                                         time.Time
}

// buildXMP returns an XMP packet stating v and the kept properties, and
// then the rdf:Description elements of extra (an extension schema and
// its properties).
func buildXMP(v xmpValues, kept xmpProps, extra ...string) []byte {
	var b strings.Builder
	b.WriteString("<?xpacket begin=\"\ufeff\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n")
	b.WriteString(`<x:xmpmeta xmlns:x="adobe:ns:meta/">` + "\n")
	b.WriteString(`<rdf:RDF xmlns:rdf="` + nsRDF + `">` + "\n")
	b.WriteString(`<rdf:Description rdf:about="" xmlns:dc="` + nsDC + `" xmlns:pdf="` + nsPDF + `" xmlns:xmp="` + nsXMP +
		`" xmlns:xmpMM="` + nsXMPMM + `" xmlns:pdfaid="` + nsPDFAID + `" xmlns:pdfuaid="` + nsPDFUAID + `">` + "\n")
	b.WriteString("<dc:format>application/pdf</dc:format>\n")
	element := func(name, inner string) {
		b.WriteString("<" + name + ">" + inner + "</" + name + ">\n")
	}
	if v.title != "" {
		element("dc:title", `<rdf:Alt><rdf:li xml:lang="x-default">`+xmlText(v.title)+"</rdf:li></rdf:Alt>")
	}
	if v.author != "" {
		element("dc:creator", "<rdf:Seq><rdf:li>"+xmlText(v.author)+"</rdf:li></rdf:Seq>")
	}
	if v.subject != "" {
		element("dc:description", `<rdf:Alt><rdf:li xml:lang="x-default">`+xmlText(v.subject)+"</rdf:li></rdf:Alt>")
	}
	if v.lang != "" {
		element("dc:language", "<rdf:Bag><rdf:li>"+xmlText(v.lang)+"</rdf:li></rdf:Bag>")
	}
	if v.keywords != "" {
		element("pdf:Keywords", xmlText(v.keywords))
	}
	element("pdf:Producer", xmlText(v.producer))
	if v.creator != "" {
		element("xmp:CreatorTool", xmlText(v.creator))
	}
	element("xmp:CreateDate", v.created.Format(time.RFC3339))
	element("xmp:ModifyDate", v.modified.Format(time.RFC3339))
	element("xmp:MetadataDate", v.modified.Format(time.RFC3339))
	for _, k := range keptXMP {
		if s := kept[k.ns+" "+k.name]; s != "" {
			element(k.prefix+":"+k.name, xmlText(s))
		}
	}
	b.WriteString("</rdf:Description>\n")
	for _, e := range extra {
		b.WriteString(e)
	}
	b.WriteString("</rdf:RDF>\n</x:xmpmeta>\n")
	// Padding lets an editor update the packet in place, as XMP advises.
	b.WriteString(strings.Repeat(strings.Repeat(" ", 99)+"\n", 20))
	b.WriteString(`<?xpacket end="w"?>`)
	return []byte(b.String())
}

// xmlText escapes s as XML character data; characters XML cannot hold
// become U+FFFD.
func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}

// setXMP makes packet the catalog's XMP metadata, an uncompressed stream
// as PDF/A requires.
func setXMP(doc *model.Context, root types.Dict, packet []byte) error {
	sd := types.StreamDict{Dict: types.NewDict(), Content: packet}
	sd.InsertName("Type", "Metadata")
	sd.InsertName("Subtype", "XML")
	if err := sd.Encode(); err != nil {
		return err
	}
	ref, err := doc.IndRefForNewObject(sd)
	if err != nil {
		return err
	}
	root["Metadata"] = *ref
	doc.CatalogXMPMeta = nil
	return nil
}
