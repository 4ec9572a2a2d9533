package pdfops

import (
	"strings"
	"testing"
	"time"
)

func TestKeptProps(t *testing.T) {
	elements := `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="` + nsRDF + `">` +
		`<rdf:Description rdf:about="" xmlns:pdfaid="` + nsPDFAID + `" xmlns:pdfuaid="` + nsPDFUAID + `">` +
		`<pdfaid:part> 3 </pdfaid:part><pdfaid:conformance>A</pdfaid:conformance><pdfuaid:part>1</pdfuaid:part>` +
		`</rdf:Description></rdf:RDF></x:xmpmeta>`
	got := keptProps([]byte(elements))
	if got[nsPDFAID+" part"] != "3" || got[nsPDFAID+" conformance"] != "A" || got[nsPDFUAID+" part"] != "1" {
		t.Errorf("elements: %v", got)
	}
	// Damaged or hostile packets give what could be read, never a panic.
	for _, bad := range []string{"", "<<<", elements[:len(elements)/2], strings.Repeat("<a>", 300_000)} {
		keptProps([]byte(bad))
	}
}

func TestBuildXMPEscapes(t *testing.T) {
	p := string(buildXMP(xmpValues{title: "a<b>&\"c\"\x01", producer: "p", created: time.Unix(0, 0).UTC(), modified: time.Unix(0, 0).UTC()},
		xmpProps{nsPDFAID + " part": "2", nsPDFAID + " conformance": "<B>"}))
	for _, want := range []string{"a&lt;b&gt;&amp;&#34;c&#34;\uFFFD", "<pdfaid:part>2</pdfaid:part>", "<pdfaid:conformance>&lt;B&gt;</pdfaid:conformance>", "1970-01-01T00:00:00Z"} {
		if !strings.Contains(p, want) {
			t.Errorf("packet lacks %q:\n%s", want, p)
		}
	}
}
