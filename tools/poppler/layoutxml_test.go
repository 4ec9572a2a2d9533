package poppler

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// controlCharPDF is one A4 page of two lines, "AAB AAC" and "AAD", in a
// font whose ToUnicode map reads code A as "A" and codes B, C and D as
// U+0001, U+001B and U+0008: characters XML 1.0 cannot hold, which
// pdftotext nevertheless writes into its XHTML as they are.
func controlCharPDF() []byte {
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Hostile def " +
		"1 begincodespacerange <00> <FF> endcodespacerange " +
		"4 beginbfchar <41> <0041> <42> <0001> <43> <001B> <44> <0008> endbfchar " +
		"endcmap CMapName currentdict /CMap defineresource pop end end"
	content := "BT /F1 12 Tf 72 700 Td (AAB AAC) Tj 0 -14 Td (AAD) Tj ET"
	return toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(cmap), cmap))
}

// wellFormedParts fails t unless every XML part of the zip archive data
// is well-formed XML 1.0 (as encoding/xml, strict, reads it).
func wellFormedParts(t *testing.T, data []byte) {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range z.File {
		if !strings.HasSuffix(f.Name, ".xml") && !strings.HasSuffix(f.Name, ".rels") {
			continue
		}
		dec := xml.NewDecoder(bytes.NewReader(toolstest.ZipPart(t, z, f.Name)))
		for {
			_, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
		}
	}
}

// TestLayoutControlCharacters: a PDF whose text maps to C0 control
// characters converts; the characters are dropped (read as spaces) and
// the document's XML stays well-formed. Before, the layout's parser
// refused pdftotext's XHTML and the job failed as an internal error.
func TestLayoutControlCharacters(t *testing.T) {
	src := toolstest.WriteTemp(t, "control.pdf", controlCharPDF())
	for _, slug := range []string{"pdf-to-word", "pdf-to-odt"} {
		out := mustRunTool(t, wordTestTool(t, slug), src, nil)
		data, err := os.ReadFile(out.Path)
		if err != nil {
			t.Fatal(err)
		}
		wellFormedParts(t, data)
		if got := strings.Join(strings.Fields(toolstest.OfficeText(t, data)), " "); got != "AA AA AA" {
			t.Errorf("%s: text %q, want %q", slug, got, "AA AA AA")
		}
	}
}

// TestLayoutReadersControlCharacters: the three readers of pdftotext's
// XHTML (pdf-to-word's and edit-bookmarks' lines, compare-pdf's words,
// redact-pdf's words) read a layout holding control characters.
func TestLayoutReadersControlCharacters(t *testing.T) {
	layout := "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\">\n<html><body><doc><page width=\"595\" height=\"842\"><flow><block>" +
		"<line xMin=\"72\" yMin=\"100\" xMax=\"120\" yMax=\"112\"><word xMin=\"72\" yMin=\"100\" xMax=\"90\" yMax=\"112\">one\x01</word>" +
		"<word xMin=\"95\" yMin=\"100\" xMax=\"120\" yMax=\"112\">t\x1bwo\x00</word></line></block></flow></page></doc></body></html>\n"
	path := toolstest.WriteTemp(t, "layout.xhtml", []byte(layout))
	var lines []string
	if err := scanLines(path, func(l textLine) { lines = append(lines, l.text) }); err != nil {
		t.Fatalf("scanLines: %v", err)
	}
	if len(lines) != 1 || lines[0] != "one t wo" {
		t.Errorf("lines %q", lines)
	}
	words, err := readWords(strings.NewReader(layout), "File 1")
	if err != nil || len(words) != 2 || words[0].text != "one" || words[1].text != "t wo" {
		t.Errorf("words %+v, %v", words, err)
	}
	params, err := testRedactTool(t).ParseParams(map[string]string{"terms": "wo"})
	if err != nil {
		t.Fatal(err)
	}
	s := &layoutScan{match: newTextMatcher(params), pages: map[int]*pageRedactions{}, texts: map[string]bool{}}
	if err := s.scan(path, 1); err != nil {
		t.Errorf("redact scan: %v", err)
	}
}
