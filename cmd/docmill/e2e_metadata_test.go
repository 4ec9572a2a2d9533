package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// popplerInfo returns pdfinfo's fields of a PDF, read with poppler rather
// than pdfcpu, which wrote it.
func popplerInfo(t *testing.T, data []byte) map[string]string {
	t.Helper()
	out, err := exec.Command("pdfinfo", "-enc", "UTF-8", toolstest.WriteTemp(t, "info.pdf", data)).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	fields := map[string]string{}
	for line := range strings.Lines(string(out)) {
		if k, v, ok := strings.Cut(line, ":"); ok {
			fields[k] = strings.TrimSpace(v)
		}
	}
	return fields
}

// qpdfXMP returns the catalog's XMP packet of data, read with qpdf.
func qpdfXMP(t *testing.T, data []byte) string {
	t.Helper()
	doc := readQPDF(t, data)
	var trailer struct {
		Value struct {
			Root string `json:"/Root"`
		} `json:"value"`
	}
	if err := json.Unmarshal(doc.objects["trailer"], &trailer); err != nil {
		t.Fatal(err)
	}
	root, _ := doc.value(trailer.Value.Root).(map[string]any)
	ref, _ := root["/Metadata"].(string)
	num, _, ok := strings.Cut(ref, " ")
	if !ok {
		t.Fatalf("catalog has no XMP stream: %v", root)
	}
	out, err := exec.Command("qpdf", "--show-object="+num, "--filtered-stream-data", toolstest.WriteTemp(t, "x.pdf", data)).Output()
	if err != nil {
		t.Fatalf("qpdf --show-object: %v", err)
	}
	return string(out)
}

func TestEditMetadataE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	params := map[string]string{"title": "Годовой отчёт <2026>", "author": "Анна Иванова", "subject": "Продажи & рост", "keywords": "отчёт, 2026", "creator": "Редактор", "producer": "Вёрстка 3.1", "language": "ru"}
	t.Run("set", func(t *testing.T) {
		j, data := runTool(t, c, "edit-metadata", []client.File{file(t, "pdf", fourPages)}, params)
		if j.Result.ContentType != "application/pdf" || j.Result.Filename != "pdflatex-4-pages-metadata.pdf" {
			t.Fatalf("result %+v", j.Result)
		}
		info := popplerInfo(t, data)
		if info["Title"] != params["title"] || info["Author"] != params["author"] || info["Keywords"] != params["keywords"] || info["Subject"] != params["subject"] {
			t.Fatalf("pdfinfo reads %q", info)
		}
		if info["Producer"] != params["producer"] {
			t.Fatalf("pdfinfo reads Producer %q", info["Producer"])
		}
		if out, err := exec.Command("qpdf", "--check", toolstest.WriteTemp(t, "m.pdf", data)).CombinedOutput(); err != nil {
			t.Fatalf("qpdf --check: %v\n%s", err, out)
		}
		if info["Pages"] != "4" {
			t.Fatalf("pages %q", info["Pages"])
		}
		// The XMP packet, read by qpdf, states what pdfinfo reads from the
		// Info dictionary, escaped.
		xmp := qpdfXMP(t, data)
		for _, want := range []string{
			"<rdf:li xml:lang=\"x-default\">Годовой отчёт &lt;2026&gt;</rdf:li>",
			"<dc:creator><rdf:Seq><rdf:li>Анна Иванова</rdf:li>",
			"<rdf:li xml:lang=\"x-default\">Продажи &amp; рост</rdf:li>",
			"<pdf:Keywords>отчёт, 2026</pdf:Keywords>",
			"<xmp:CreatorTool>Редактор</xmp:CreatorTool>",
			"<pdf:Producer>" + info["Producer"] + "</pdf:Producer>",
			"<rdf:li>ru</rdf:li>",
		} {
			if !strings.Contains(xmp, want) {
				t.Errorf("XMP lacks %s:\n%s", want, xmp)
			}
		}
	})
	t.Run("pdfa", func(t *testing.T) {
		in := toolstest.ReadCorpus(t, "pdf", "crazyones-pdfa.pdf")
		if !strings.Contains(qpdfXMP(t, in), "pdfaid:part='1'") {
			t.Fatal("crazyones-pdfa.pdf claims no PDF/A part")
		}
		j, data := runTool(t, c, "edit-metadata", []client.File{file(t, "pdf", "crazyones-pdfa.pdf")}, map[string]string{"title": "Crazy ones"})
		xmp := qpdfXMP(t, data)
		if !strings.Contains(xmp, "<pdfaid:part>1</pdfaid:part>") || !strings.Contains(xmp, "<pdfaid:conformance>B</pdfaid:conformance>") || j.Meta["pdfa"] != "1B" {
			t.Fatalf("PDF/A identification lost (meta %v):\n%s", j.Meta, xmp)
		}
		if popplerInfo(t, data)["Title"] != "Crazy ones" || !strings.Contains(xmp, ">Crazy ones</rdf:li>") {
			t.Fatalf("title not set in both:\n%s", xmp)
		}
	})
	t.Run("clear", func(t *testing.T) {
		_, data := runTool(t, c, "edit-metadata", []client.File{file(t, "pdf", fourPages)}, map[string]string{"clear": "true"})
		info := popplerInfo(t, data)
		if info["Title"] != "" || info["Author"] != "" || info["Creator"] != "" {
			t.Fatalf("after clear pdfinfo reads %q", info)
		}
		if xmp := qpdfXMP(t, data); strings.Contains(xmp, "dc:title") || strings.Contains(xmp, "CreatorTool") {
			t.Fatalf("after clear the XMP states:\n%s", xmp)
		}
	})
}
