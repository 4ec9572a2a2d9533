package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestPDFToMarkdownE2E converts PDFs to Markdown over HTTP, one server:
// a page Chromium prints from HTML of a heading, a list and a table
// comes back as a .md served as text/markdown with the heading at its
// level, the items and the table's rows; the corpus's PDF with a picture
// comes back as a zip of the .md and images/image1.jpg, which the .md
// links to.
func TestPDFToMarkdownE2E(t *testing.T) {
	s := startServer(t, "")
	c := s.client(s.DevKey)
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><style>h2{font-size:20pt}td{border:1px solid;padding:3px 8px}` +
		`table{border-collapse:collapse}</style></head><body><h2>Fruit sold</h2><p>What the orchard sold this week, by kind.</p>` +
		`<ol><li>Apples first</li><li>Pears second</li></ol><table><tr><td>Kind</td><td>Crates</td></tr>` +
		`<tr><td>Apples</td><td>120</td></tr><tr><td>Pears</td><td>75</td></tr></table></body></html>`
	pdf, err := os.Open(toolstest.ChromiumPDF(t, "fruit.html", []byte(page)))
	if err != nil {
		t.Fatal(err)
	}
	defer pdf.Close()
	j, md := runTool(t, c, "pdf-to-markdown", []client.File{{Name: "fruit.pdf", Body: pdf}}, nil)
	for _, want := range []string{"# Fruit sold\n", "1. Apples first\n2. Pears second\n", "| Kind | Crates |\n| --- | --- |\n| Apples | 120 |\n| Pears | 75 |\n"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	officeServedAs(t, j.Result.URL, "text/markdown")

	j, data := runTool(t, c, "pdf-to-markdown", []client.File{file(t, "pdf", "pdflatex-image.pdf")}, nil)
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	text := string(toolstest.ZipPart(t, z, "pdflatex-image.md"))
	if toolstest.ZipPart(t, z, "images/image1.jpg") == nil || !strings.Contains(text, "](images/image1.jpg)") || fmt.Sprint(j.Meta["images"]) != "1" {
		t.Errorf("meta %v, Markdown\n%s", j.Meta, text)
	}
	officeServedAs(t, j.Result.URL, "application/zip")
}
