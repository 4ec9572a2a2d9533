package toolstest

import (
	"fmt"
	"strings"
)

// Guideline IDs of the Factur-X levels the e-invoice tests make.
const (
	GuidelineMinimum  = "urn:factur-x.eu:1p0:minimum"
	GuidelineEN16931  = "urn:cen.eu:en16931:2017"
	GuidelineExtended = "urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended"
)

// CIIInvoice writes a CII invoice (rsm:CrossIndustryInvoice) of the
// profile guideline names: the header and totals a MINIMUM invoice has,
// and with lines > 0 the lines, VAT breakdown and payment terms of an
// EN 16931 one. Its names hold characters beyond ASCII ("Müller & Söhne",
// "€"), and its layout is irregular (a comment, a CDATA section, tabs),
// so that a round trip shows the XML comes back byte for byte.
func CIIInvoice(guideline string, lines int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"` +
		` xmlns:qdt="urn:un:unece:uncefact:data:standard:QualifiedDataType:100"` +
		` xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"` +
		` xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">` + "\n")
	b.WriteString("<!-- made by docmill's tests -->\n")
	b.WriteString("\t<rsm:ExchangedDocumentContext>\n")
	b.WriteString("\t\t<ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>" + guideline + "</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>\n")
	b.WriteString("\t</rsm:ExchangedDocumentContext>\n")
	b.WriteString("\t<rsm:ExchangedDocument><ram:ID>INV-2026-0042</ram:ID><ram:TypeCode>380</ram:TypeCode>" +
		`<ram:IssueDateTime><udt:DateTimeString format="102">20261128</udt:DateTimeString></ram:IssueDateTime>` +
		"<ram:IncludedNote><ram:Content><![CDATA[Thanks <for> your order]]></ram:Content></ram:IncludedNote></rsm:ExchangedDocument>\n")
	b.WriteString("\t<rsm:SupplyChainTradeTransaction>\n")
	net := 0
	for i := 1; i <= lines; i++ {
		net += 100 * i
		fmt.Fprintf(&b, "\t\t<ram:IncludedSupplyChainTradeLineItem><ram:AssociatedDocumentLineDocument><ram:LineID>%d</ram:LineID></ram:AssociatedDocumentLineDocument>"+
			"<ram:SpecifiedTradeProduct><ram:Name>Prüfgerät %d</ram:Name></ram:SpecifiedTradeProduct>"+
			"<ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>%d.00</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>"+
			`<ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="C62">%d</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>`+
			"<ram:SpecifiedLineTradeSettlement><ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>20</ram:RateApplicablePercent></ram:ApplicableTradeTax>"+
			"<ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>%d.00</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation></ram:SpecifiedLineTradeSettlement>"+
			"</ram:IncludedSupplyChainTradeLineItem>\n", i, i, 100, i, 100*i)
	}
	if lines == 0 {
		net = 100
	}
	b.WriteString("\t\t<ram:ApplicableHeaderTradeAgreement><ram:BuyerReference>PO-7</ram:BuyerReference>" +
		"<ram:SellerTradeParty><ram:Name>Müller &amp; Söhne GmbH</ram:Name><ram:PostalTradeAddress><ram:CountryID>DE</ram:CountryID></ram:PostalTradeAddress>" +
		`<ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE123456789</ram:ID></ram:SpecifiedTaxRegistration></ram:SellerTradeParty>` +
		"<ram:BuyerTradeParty><ram:Name>Acheteur SARL</ram:Name></ram:BuyerTradeParty></ram:ApplicableHeaderTradeAgreement>\n")
	b.WriteString("\t\t<ram:ApplicableHeaderTradeDelivery/>\n")
	b.WriteString("\t\t<ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>")
	if lines > 0 {
		fmt.Fprintf(&b, "<ram:ApplicableTradeTax><ram:CalculatedAmount>%d.00</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode>"+
			"<ram:BasisAmount>%d.00</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>20</ram:RateApplicablePercent></ram:ApplicableTradeTax>"+
			"<ram:SpecifiedTradePaymentTerms><ram:Description>30 days net (€)</ram:Description></ram:SpecifiedTradePaymentTerms>", net/5, net)
	}
	fmt.Fprintf(&b, "<ram:SpecifiedTradeSettlementHeaderMonetarySummation>"+
		"<ram:LineTotalAmount>%d.00</ram:LineTotalAmount><ram:TaxBasisTotalAmount>%d.00</ram:TaxBasisTotalAmount>"+
		`<ram:TaxTotalAmount currencyID="EUR">%d.00</ram:TaxTotalAmount><ram:GrandTotalAmount>%d.00</ram:GrandTotalAmount>`+
		"<ram:DuePayableAmount>%d.00</ram:DuePayableAmount></ram:SpecifiedTradeSettlementHeaderMonetarySummation></ram:ApplicableHeaderTradeSettlement>\n",
		net, net, net/5, net*6/5, net*6/5)
	b.WriteString("\t</rsm:SupplyChainTradeTransaction>\n</rsm:CrossIndustryInvoice>\n")
	return []byte(b.String())
}
