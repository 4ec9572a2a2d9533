package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"image"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestPDFToMarkdownE2E converts PDFs to Markdown over HTTP, one server:
// a page Chromium prints from HTML of a heading, a list and a table
// comes back as a .md served as text/markdown with the heading at its
// level, the items and the table's rows; the corpus's PDF with a picture
// comes back as a zip of the .md and images/image1.jpg, which the .md
// links to. The same server takes the page's table out as CSV and as a
// workbook first (tablesE2E), and as CSV again from the page printed by
// its own html-to-pdf in a pipeline, which need no corpus.
func TestPDFToMarkdownE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><style>h2{font-size:20pt}td{border:1px solid;padding:3px 8px}` +
		`table{border-collapse:collapse}</style></head><body><h2>Fruit sold</h2><p>What the orchard sold this week, by kind.</p>` +
		`<ol><li>Apples first</li><li>Pears second</li></ol><table><tr><td>Kind</td><td>Crates</td></tr>` +
		`<tr><td>Apples</td><td>120</td></tr><tr><td>Pears</td><td>75</td></tr></table></body></html>`
	pdf, err := os.ReadFile(toolstest.ChromiumPDF(t, "fruit.html", []byte(page)))
	if err != nil {
		t.Fatal(err)
	}
	j, md := runTool(t, c, "pdf-to-markdown", []client.File{{Name: "fruit.pdf", Body: bytes.NewReader(pdf)}}, nil)
	for _, want := range []string{"# Fruit sold\n", "1. Apples first\n2. Pears second\n", "| Kind | Crates |\n| --- | --- |\n| Apples | 120 |\n| Pears | 75 |\n"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	officeServedAs(t, j.Result.URL, "text/markdown")
	tablesE2E(t, c, pdf)
	// The same table printed by the server's own html-to-pdf, in a
	// pipeline whose last step takes it out.
	_, data := runTool(t, c, "pipeline", []client.File{{Name: "fruit.html", Body: strings.NewReader(page)}},
		map[string]string{"steps": `[{"tool": "html-to-pdf"}, {"tool": "pdf-to-csv"}]`})
	if rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll(); err != nil || fmt.Sprint(rows) != "[[Kind Crates] [Apples 120] [Pears 75]]" {
		t.Errorf("html-to-pdf then pdf-to-csv: %q (%v)", rows, err)
	}

	j, data = runTool(t, c, "pdf-to-markdown", []client.File{file(t, "pdf", "pdflatex-image.pdf")}, nil)
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

// tablesE2E takes the table of the page pdf out over HTTP: pdf-to-csv
// gives the bare CSV (encoding/csv reads it), pdf-to-xlsx a workbook
// LibreOffice reads the same rows from, each with its meta; a PDF
// without text is a 422 no_text, naming ocr-pdf.
func tablesE2E(t *testing.T, c *client.Client, pdf []byte) {
	want := [][]string{{"Kind", "Crates"}, {"Apples", "120"}, {"Pears", "75"}}
	j, data := runTool(t, c, "pdf-to-csv", []client.File{{Name: "fruit.pdf", Body: bytes.NewReader(pdf)}}, nil)
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil || !slices.EqualFunc(rows, want, slices.Equal) || fmt.Sprint(j.Meta["tables"], j.Meta["cells"]) != "1 6" {
		t.Errorf("pdf-to-csv: rows %q (%v), meta %v", rows, err, j.Meta)
	}
	officeServedAs(t, j.Result.URL, "text/csv")

	j, data = runTool(t, c, "pdf-to-xlsx", []client.File{{Name: "fruit.pdf", Body: bytes.NewReader(pdf)}}, nil)
	book := filepath.Join(t.TempDir(), "fruit.xlsx")
	if err := os.WriteFile(book, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if sheets := toolstest.SheetsCSV(t, book); len(sheets) != 1 || !slices.EqualFunc(sheets[0], want, slices.Equal) || j.Result.Filename != "fruit.xlsx" {
		t.Errorf("pdf-to-xlsx %s: sheets %q, meta %v", j.Result.Filename, sheets, j.Meta)
	}
	officeServedAs(t, j.Result.URL, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")

	scan := toolstest.ImagePDF([]image.Image{toolstest.Picture(64, 64, 1)})
	_, _, err = c.Process(context.Background(), "pdf-to-csv", []client.File{{Name: "scan.pdf", Body: bytes.NewReader(scan)}},
		client.ProcessOptions{Prefer: "wait=60"})
	var p *client.Problem
	if !errors.As(err, &p) || p.StatusCode != http.StatusUnprocessableEntity || p.Code != docmill.CodeNoText || !strings.Contains(p.Detail, "ocr-pdf") {
		t.Errorf("a scan: %v, want a 422 no_text naming ocr-pdf", err)
	}
}
