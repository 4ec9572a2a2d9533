package pdfops

import (
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
)

func TestLevelOf(t *testing.T) {
	for id, want := range map[string]string{
		"urn:factur-x.eu:1p0:minimum":                                                 LevelMinimum,
		"urn:factur-x.eu:1p0:basicwl":                                                 LevelBasicWL,
		"urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic":                 LevelBasic,
		"urn:cen.eu:en16931:2017":                                                     LevelEN16931,
		"urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended":             LevelExtended,
		"urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0":       LevelXRechnung,
		"urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_2.3":       LevelXRechnung,
		"urn:cen.eu:en16931:2017#conformant#urn:zugferd.de:2p0:extended":              LevelExtended,
		"urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:en16931":               "",
		"URN:FACTUR-X.EU:1P0:MINIMUM":                                                 "",
		"urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung":           "",
		"urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0 extra": LevelXRechnung,
	} {
		if got := levelOf(id); got != want {
			t.Errorf("levelOf(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestParseInvoice(t *testing.T) {
	const root = `<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100">`
	const ctx = `<rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>
		urn:factur-x.eu:1p0:minimum </ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>`
	x, err := parseInvoice([]byte("\ufeff<?xml version=\"1.0\"?>\n"+root+ctx+"</rsm:CrossIndustryInvoice>\n"), theInvoice)
	if err != nil || !x.isCII() || x.guideline != "urn:factur-x.eu:1p0:minimum" {
		t.Errorf("with a byte order mark: %+v, %v", x, err)
	}
	// The guideline ID of another place is not the document's.
	x, err = parseInvoice([]byte(root+`<rsm:Other>`+ctx+`</rsm:Other></rsm:CrossIndustryInvoice>`), theInvoice)
	if err != nil || x.guideline != "" {
		t.Errorf("misplaced: %+v, %v", x, err)
	}
	for name, tc := range map[string]struct{ xml, says string }{
		"two roots":      {root + "</rsm:CrossIndustryInvoice><a/>", "more than one root"},
		"text after":     {root + "</rsm:CrossIndustryInvoice>junk", "outside its root"},
		"empty":          {"  ", "no root element"},
		"unclosed":       {root + ctx, "not well-formed"},
		"latin-1":        {`<?xml version="1.0" encoding="ISO-8859-1"?>` + root + "</rsm:CrossIndustryInvoice>", "UTF-8"},
		"doctype":        {`<!DOCTYPE x>` + root + "</rsm:CrossIndustryInvoice>", "DOCTYPE"},
		"deep":           {strings.Repeat("<a>", 65) + strings.Repeat("</a>", 65), "more than 64 deep"},
		"unknown entity": {root + "&nbsp;</rsm:CrossIndustryInvoice>", "not well-formed"},
	} {
		_, err := parseInvoice([]byte(tc.xml), theInvoice)
		if docmill.ErrorCode(err) != docmill.CodeInvalidDocument || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want invalid_document saying %q", name, err, tc.says)
		}
	}
}

// FuzzParseInvoice: whatever the bytes, parseInvoice returns (never
// panics), refusing as invalid_document, and what it returns came from
// the input.
func FuzzParseInvoice(f *testing.F) {
	const ns = `xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"`
	for _, seed := range []string{
		`<rsm:CrossIndustryInvoice ` + ns + `><rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>urn:cen.eu:en16931:2017</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext></rsm:CrossIndustryInvoice>`,
		`<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "b">]><r>&a;</r>`,
		"\ufeff<a><![CDATA[x]]><!-- c --><?pi x?></a>",
		`<ubl:Invoice xmlns:ubl="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"><cbc:CustomizationID>x</cbc:CustomizationID></ubl:Invoice>`,
		strings.Repeat("<a>", 70),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		x, err := parseInvoice(raw, theInvoice)
		if err != nil {
			if docmill.ErrorCode(err) != docmill.CodeInvalidDocument {
				t.Fatalf("%v: not invalid_document", err)
			}
			return
		}
		if len(x.guideline) > len(raw) || len(x.root.Local) > len(raw) {
			t.Fatalf("%+v: more than the input holds", x)
		}
	})
}
