package pdfops

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	docmill "github.com/docmill/docmill"
)

// Namespaces of the invoice syntaxes the e-invoice tools read: UN/CEFACT
// CII (Factur-X, ZUGFeRD 2, XRechnung CII), whose guideline ID sits at
// rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID,
// and OASIS UBL (XRechnung UBL, read by extract-einvoice only), whose
// cbc:CustomizationID is a child of the root.
const (
	nsCIIRoot = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
	nsCIIRAM  = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
	nsUBLInv  = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
	nsUBLCN   = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
	nsUBLCBC  = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
)

// The Factur-X conformance levels, as fx:ConformanceLevel states them
// and the e-invoice tools name them (einvoice-pdf's level param, both
// tools' meta level).
const (
	LevelMinimum   = "MINIMUM"
	LevelBasicWL   = "BASIC WL"
	LevelBasic     = "BASIC"
	LevelEN16931   = "EN 16931"
	LevelExtended  = "EXTENDED"
	LevelXRechnung = "XRECHNUNG"
)

// InvoiceLevels are the levels einvoice-pdf makes, in the order of the
// Factur-X profiles.
func InvoiceLevels() []string {
	return []string{LevelMinimum, LevelBasicWL, LevelBasic, LevelEN16931, LevelExtended, LevelXRechnung}
}

// guidelineLevels maps the guideline IDs of Factur-X 1.0 and ZUGFeRD 2
// to their level. XRechnung's IDs carry their version after
// xrechnungPrefix.
var guidelineLevels = map[string]string{
	"urn:factur-x.eu:1p0:minimum":                                     LevelMinimum,
	"urn:factur-x.eu:1p0:basicwl":                                     LevelBasicWL,
	"urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic":     LevelBasic,
	"urn:cen.eu:en16931:2017":                                         LevelEN16931,
	"urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended": LevelExtended,
	"urn:zugferd.de:2p0:minimum":                                      LevelMinimum,
	"urn:zugferd.de:2p0:basicwl":                                      LevelBasicWL,
	"urn:cen.eu:en16931:2017#compliant#urn:zugferd.de:2p0:basic":      LevelBasic,
	"urn:cen.eu:en16931:2017#conformant#urn:zugferd.de:2p0:extended":  LevelExtended,
}

// xrechnungPrefix starts the guideline IDs of XRechnung, one per
// version (xrechnung_2.3, xrechnung_3.0).
const xrechnungPrefix = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_"

// levelOf returns the level the guideline ID names, or "" for an ID of
// no known profile.
func levelOf(guideline string) string {
	if l, ok := guidelineLevels[guideline]; ok {
		return l
	}
	if strings.HasPrefix(guideline, xrechnungPrefix) {
		return LevelXRechnung
	}
	return ""
}

// Bounds on an invoice's structure: facts of the syntaxes, not costs.
// A CII invoice nests some 10 elements deep; deeper is a hostile file
// built to exhaust a parser's stack or time.
const (
	maxInvoiceDepth    = 64
	maxGuidelineLength = 512
)

// invoiceXML is what the e-invoice tools read of an invoice: its root
// element, and its guideline ID (CII) or customization ID (UBL).
type invoiceXML struct {
	root      xml.Name
	guideline string
}

// isCII reports whether the root is rsm:CrossIndustryInvoice.
func (x invoiceXML) isCII() bool {
	return x.root.Space == nsCIIRoot && x.root.Local == "CrossIndustryInvoice"
}

// readInvoiceFile reads the XML at path, of at most maxBytes (the node's
// Limits.InvoiceXMLBytes), through parseInvoice, and returns its bytes
// too. what names it in messages ("The invoice XML").
func readInvoiceFile(path string, maxBytes int64, what string) ([]byte, invoiceXML, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, invoiceXML{}, fmt.Errorf("pdfops: open invoice: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, invoiceXML{}, fmt.Errorf("pdfops: read invoice: %w", err)
	}
	if int64(len(raw)) > maxBytes {
		return nil, invoiceXML{}, docmill.Errorf(docmill.CodeFileTooLarge, "%s is larger than %s; this server reads invoices of up to %s.",
			what, megabytes(maxBytes), megabytes(maxBytes))
	}
	x, err := parseInvoice(raw, what)
	return raw, x, err
}

// parseInvoice reads raw as hostile XML: well-formed, UTF-8, with no
// document type declaration (so no entity of any kind is declared, and
// none expanded: encoding/xml knows only the five predefined ones, and
// Strict refuses any other reference), one root element, nested at most
// maxInvoiceDepth deep; a UTF-8 byte order mark is allowed. It returns the root's name and the guideline or
// customization ID, "" when the document has none.
func parseInvoice(raw []byte, what string) (invoiceXML, error) {
	var x invoiceXML
	// encoding/xml reads a byte order mark as text before the root.
	d := xml.NewDecoder(bytes.NewReader(bytes.TrimPrefix(raw, []byte("\ufeff"))))
	d.Strict = true
	var path []xml.Name
	var text *strings.Builder
	done := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return x, notWellFormed(what, err)
		}
		switch t := tok.(type) {
		case xml.Directive:
			return x, docmill.InvalidDocument(nil, "%s declares a document type (<!DOCTYPE>) or entities, which an invoice never does; it is refused unread.", what)
		case xml.StartElement:
			if done {
				return x, docmill.InvalidDocument(nil, "%s has more than one root element.", what)
			}
			if len(path) == maxInvoiceDepth {
				return x, docmill.InvalidDocument(nil, "%s nests elements more than %d deep; an invoice nests a dozen.", what, maxInvoiceDepth)
			}
			path = append(path, t.Name)
			if len(path) == 1 {
				x.root = t.Name
			}
			if text == nil && x.guideline == "" && isGuidelinePath(path) {
				text = &strings.Builder{}
			}
		case xml.CharData:
			if text != nil && text.Len() <= maxGuidelineLength {
				text.Write(t)
			} else if len(path) == 0 && len(bytes.TrimSpace(t)) > 0 {
				return x, docmill.InvalidDocument(nil, "%s has text outside its root element.", what)
			}
		case xml.EndElement:
			if text != nil && isGuidelinePath(path) {
				x.guideline = strings.TrimFunc(text.String(), unicode.IsSpace)
				text = nil
			}
			path = path[:len(path)-1]
			done = len(path) == 0
		}
	}
	if !done {
		return x, docmill.InvalidDocument(nil, "%s is not an XML document: it has no root element, or its root is not closed.", what)
	}
	return x, nil
}

// notWellFormed is the error of XML the decoder refused: malformed, an
// undeclared entity, or an encoding other than UTF-8.
func notWellFormed(what string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, "CharsetReader") {
		return docmill.InvalidDocument(err, "%s is not encoded in UTF-8, the encoding e-invoices use.", what)
	}
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return docmill.InvalidDocument(err, "%s is not well-formed XML (line %d: %s).", what, se.Line, strings.TrimPrefix(se.Msg, "xml: "))
	}
	return docmill.InvalidDocument(err, "%s is not well-formed XML.", what)
}

// isGuidelinePath reports whether path leads to the element holding the
// guideline ID of a CII invoice or the customization ID of a UBL one.
func isGuidelinePath(path []xml.Name) bool {
	switch {
	case len(path) == 4 && path[0].Space == nsCIIRoot:
		return path[1] == xml.Name{Space: nsCIIRoot, Local: "ExchangedDocumentContext"} &&
			path[2] == xml.Name{Space: nsCIIRAM, Local: "GuidelineSpecifiedDocumentContextParameter"} &&
			path[3] == xml.Name{Space: nsCIIRAM, Local: "ID"}
	case len(path) == 2 && (path[0].Space == nsUBLInv || path[0].Space == nsUBLCN):
		return path[1] == xml.Name{Space: nsUBLCBC, Local: "CustomizationID"}
	}
	return false
}

// ciiLevel holds x to being a CII invoice of a known level, and to the
// level asked (the level param, "" for any), and returns its level.
func ciiLevel(x invoiceXML, asked, what string) (string, error) {
	if !x.isCII() {
		return "", docmill.InvalidDocument(nil, "%s is not a CII invoice: its root element is %s, not rsm:CrossIndustryInvoice in the namespace %s.",
			what, describeName(x.root), nsCIIRoot)
	}
	if x.guideline == "" {
		return "", docmill.InvalidDocument(nil, "%s has no guideline ID (rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID), which names its Factur-X level.", what)
	}
	level := levelOf(x.guideline)
	if level == "" {
		return "", docmill.InvalidDocument(nil, "%s's guideline ID %q is not one of a Factur-X 1.0, ZUGFeRD 2 or XRechnung profile.", what, clip(x.guideline))
	}
	if asked != "" && asked != level {
		return "", docmill.ParamError(invoiceLevelParam, "is %q, but the invoice's guideline ID %q is of the %s level", asked, clip(x.guideline), level)
	}
	return level, nil
}

// describeName writes an element's name as {namespace}local.
func describeName(n xml.Name) string {
	if n.Space == "" {
		return clip(n.Local)
	}
	return "{" + clip(n.Space) + "}" + clip(n.Local)
}

// clip cuts a value from the document to a length fit for a message.
func clip(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
