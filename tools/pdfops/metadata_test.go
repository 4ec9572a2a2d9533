package pdfops_test

import (
	"github.com/docmill/docmill/tools/toolstest"
	"os/exec"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
)

// pdfinfo returns poppler's pdfinfo output for path, skipping t without it.
func pdfinfo(t *testing.T, path string) string {
	t.Helper()
	toolstest.Need(t, "pdfinfo")
	out, err := exec.Command("pdfinfo", "-enc", "UTF-8", path).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	return string(out)
}

// infoField returns the value of a pdfinfo field ("Title").
func infoField(info, field string) string {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func TestEditMetadata(t *testing.T) {
	params := map[string]string{
		"title":    "Отчёт о продажах — 2026",
		"author":   "Иван Петров",
		"subject":  "Sales",
		"keywords": "отчёт, sales",
		"creator":  "docmill test",
		"language": "ru-RU",
	}
	out, err := run(t, "edit-metadata", params, fourPagesPDF(t))
	if err != nil {
		t.Fatal(err)
	}
	info := pdfinfo(t, out.Path)
	for field, want := range map[string]string{"Title": params["title"], "Author": params["author"], "Subject": params["subject"], "Keywords": params["keywords"], "Creator": params["creator"]} {
		if got := infoField(info, field); got != want {
			t.Errorf("%s = %q, want %q", field, got, want)
		}
	}
	if out.Meta["pages"] != 4 || out.Filename != "four-pages-metadata.pdf" {
		t.Errorf("meta = %v, filename %q", out.Meta, out.Filename)
	}
	doc := readBack(t, out.Path)
	root, err := doc.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := doc.DereferenceText(root["Lang"]); s != "ru-RU" {
		t.Errorf("/Lang = %q, want ru-RU", s)
	}
}

// TestEditMetadataKeepsOthers checks that fields not given are kept.
func TestEditMetadataKeepsOthers(t *testing.T) {
	in := fourPagesPDF(t)
	before := pdfinfo(t, in)
	out, err := run(t, "edit-metadata", map[string]string{"title": "New"}, in)
	if err != nil {
		t.Fatal(err)
	}
	after := pdfinfo(t, out.Path)
	if got := infoField(after, "Title"); got != "New" {
		t.Errorf("Title = %q", got)
	}
	if got, want := infoField(after, "Creator"), infoField(before, "Creator"); got != want {
		t.Errorf("Creator = %q, want %q kept", got, want)
	}
}

func TestEditMetadataClear(t *testing.T) {
	out, err := run(t, "edit-metadata", map[string]string{"clear": "true", "author": "Only me"}, fourPagesPDF(t))
	if err != nil {
		t.Fatal(err)
	}
	info := pdfinfo(t, out.Path)
	for _, f := range []string{"Title", "Subject", "Keywords", "Creator"} {
		if v := infoField(info, f); v != "" {
			t.Errorf("%s = %q after clear", f, v)
		}
	}
	if got := infoField(info, "Author"); got != "Only me" {
		t.Errorf("Author = %q", got)
	}
}

// TestEditMetadataXMP checks that the XMP packet is rewritten in step
// with the Info dictionary, keeping the input's PDF/A identification.
func TestEditMetadataXMP(t *testing.T) {
	in := pdfCorpus(t) + "crazyones-pdfa.pdf"
	if !strings.Contains(xmpPacket(t, in), "pdfaid:part='1'") {
		t.Fatal("input has no PDF/A identification")
	}
	out, err := run(t, "edit-metadata", map[string]string{"title": "Безумцы <1997> & co", "author": "Apple", "language": "en"}, in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["pdfa"] != "1B" {
		t.Errorf("meta = %v, want pdfa 1B", out.Meta)
	}
	packet := xmpPacket(t, out.Path)
	for _, want := range []string{
		`<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Безумцы &lt;1997&gt; &amp; co</rdf:li></rdf:Alt></dc:title>`,
		"<dc:creator><rdf:Seq><rdf:li>Apple</rdf:li></rdf:Seq></dc:creator>",
		"<dc:language><rdf:Bag><rdf:li>en</rdf:li></rdf:Bag></dc:language>",
		"<pdfaid:part>1</pdfaid:part>", "<pdfaid:conformance>B</pdfaid:conformance>",
		"<pdf:Producer>pdfcpu ", "<xmp:ModifyDate>",
	} {
		if !strings.Contains(packet, want) {
			t.Errorf("XMP lacks %s:\n%s", want, packet)
		}
	}
	if got := infoField(pdfinfo(t, out.Path), "Title"); got != "Безумцы <1997> & co" {
		t.Errorf("Title = %q", got)
	}
}

// xmpPacket returns the catalog's XMP packet of the PDF at path.
func xmpPacket(t *testing.T, path string) string {
	t.Helper()
	doc := readBack(t, path)
	root, err := doc.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	sd, _, err := doc.DereferenceStreamDict(root["Metadata"])
	if err != nil || sd == nil {
		t.Fatalf("no XMP stream: %v", err)
	}
	if err := sd.Decode(); err != nil {
		t.Fatal(err)
	}
	return string(sd.Content)
}

func TestEditMetadataBadInput(t *testing.T) {
	wantBadInputsRefused(t, "edit-metadata", map[string]string{"title": "x"})
	_, err := runValidated(t, "edit-metadata", map[string]string{"title": strings.Repeat("x", 2001)}, fourPagesPDF(t))
	wantCode(t, err, docmill.CodeInvalidParameter)
}

// TestEditMetadataProducer checks that a producer given is what pdfinfo
// and the XMP read, in a file qpdf finds sound, for a PDF 1.5 input with
// an xref stream and a PDF 1.4 one with a table.
func TestEditMetadataProducer(t *testing.T) {
	for _, name := range []string{"pdflatex-4-pages.pdf", "crazyones-pdfa.pdf"} {
		out, err := run(t, "edit-metadata", map[string]string{"producer": "Издатель 2.0 (docmill)", "title": "T"}, pdfCorpus(t)+name)
		if err != nil {
			t.Fatal(err)
		}
		if got := infoField(pdfinfo(t, out.Path), "Producer"); got != "Издатель 2.0 (docmill)" {
			t.Errorf("%s: pdfinfo reads Producer %q", name, got)
		}
		if p := xmpPacket(t, out.Path); !strings.Contains(p, "<pdf:Producer>Издатель 2.0 (docmill)</pdf:Producer>") {
			t.Errorf("%s: XMP:\n%s", name, p)
		}
		if b, err := exec.Command("qpdf", "--check", out.Path).CombinedOutput(); err != nil {
			t.Errorf("%s: qpdf --check: %v\n%s", name, err, b)
		}
	}
	_, err := runValidated(t, "edit-metadata", map[string]string{"producer": "x"}, encryptedPDF(t))
	if err == nil {
		t.Error("an encrypted input was accepted")
	}
}
