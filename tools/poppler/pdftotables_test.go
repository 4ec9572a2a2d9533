package poppler

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"html"
	"image"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// tablesTestTools returns pdf-to-csv and pdf-to-xlsx on the real
// pdftotext with limits, skipping t when it is missing.
func tablesTestTools(t testing.TB, limits docmill.Limits) (csvTool, xlsxTool *docmill.Tool) {
	t.Helper()
	e := sandbox.Find("pdftotext", []string{"-v"}, sandbox.Options{View: sandbox.View{ReadOnly: DataPaths}})
	if !e.Available() {
		toolstest.Lacking(t, "pdftotext is not available (not installed, or the jail cannot run)")
	}
	tools := tablesTools(Engines{PDFToText: e}, limits)
	return tools[0], tools[1]
}

// knownTables are tables of known cells, each with its header first:
// text, whole and decimal numbers, a negative one, a code with a dash
// and Cyrillic.
var knownTables = [][][]string{
	{{"Region", "Units", "Revenue", "Manager"}, {"North", "1200", "34000.5", "Anna Berg"}, {"South", "5400", "98500", "Ирина Орлова"},
		{"East coast", "310", "7250.25", "Mia Chen"}, {"West", "-42", "0.75", "Olu Ade"}},
	{{"Code", "Item", "Price"}, {"A-17", "Ledger binder", "12.9"}, {"B-02", "Fountain pen", "48"}, {"C-33", "Desk lamp", "35.5"}},
}

// tablesHTML writes tables as an HTML page, a heading and a paragraph
// before each; style is the tables' CSS.
func tablesHTML(tables [][][]string, style string) []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><style>body{font-family:"DejaVu Sans";font-size:11pt}` + style + `</style></head><body>`)
	for i, rows := range tables {
		fmt.Fprintf(&b, "<h2>Table %d</h2><p>The figures of the quarter, as the ledger holds them.</p><table>", i+1)
		for r, row := range rows {
			cell := "td"
			if r == 0 {
				cell = "th"
			}
			b.WriteString("<tr>")
			for _, c := range row {
				fmt.Fprintf(&b, "<%s>%s</%s>", cell, html.EscapeString(c), cell)
			}
			b.WriteString("</tr>")
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("</body></html>")
	return []byte(b.String())
}

// The tables' styles: ruled cells, and cells set apart by padding
// alone (a borderless table as pages style them).
const (
	bordersStyle   = `table{border-collapse:collapse}td,th{border:1px solid black;padding:3px 8px}`
	noBordersStyle = `table{border-collapse:collapse}td,th{padding:3px 14px;text-align:left}`
)

// tablesFODS writes tables as a flat ODF spreadsheet, a sheet a table,
// its columns 3.5 cm wide; cells that are numbers (sheetNumber) are
// numbers, which Calc sets on the right.
func tablesFODS(tables [][][]string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ` +
		`xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ` +
		`xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">` + "\n" +
		`<office:automatic-styles><style:style style:name="co1" style:family="table-column"><style:table-column-properties style:column-width="3.5cm"/></style:style></office:automatic-styles>` + "\n" +
		`<office:body><office:spreadsheet>` + "\n")
	for i, rows := range tables {
		fmt.Fprintf(&b, `<table:table table:name="Sheet%d"><table:table-column table:style-name="co1" table:number-columns-repeated="%d"/>`, i+1, len(rows[0]))
		for _, row := range rows {
			b.WriteString("<table:table-row>")
			for _, c := range row {
				if sheetNumber(c) {
					fmt.Fprintf(&b, `<table:table-cell office:value-type="float" office:value="%s"><text:p>%s</text:p></table:table-cell>`, c, c)
					continue
				}
				fmt.Fprintf(&b, `<table:table-cell office:value-type="string"><text:p>%s</text:p></table:table-cell>`, html.EscapeString(c))
			}
			b.WriteString("</table:table-row>\n")
		}
		b.WriteString("</table:table>\n")
	}
	b.WriteString("</office:spreadsheet></office:body></office:document>\n")
	return []byte(b.String())
}

// tableMaker is a way of making a PDF of tables: its name and the PDF.
type tableMaker struct {
	name string
	pdf  func(testing.TB, [][][]string) string
}

// tableMakers are the programs the tools are measured on: Chromium (as
// html-to-pdf prints) with and without borders, and with no style at
// all (no border, 1 px of padding: columns a word space apart beside
// their widest cells), and LibreOffice Calc's PDF export.
var tableMakers = []tableMaker{
	{"Chromium, borders", func(t testing.TB, tables [][][]string) string {
		return toolstest.ChromiumPDF(t, "tables.html", tablesHTML(tables, bordersStyle))
	}},
	{"Chromium, no borders", func(t testing.TB, tables [][][]string) string {
		return toolstest.ChromiumPDF(t, "tables.html", tablesHTML(tables, noBordersStyle))
	}},
	{"Chromium, no style", func(t testing.TB, tables [][][]string) string {
		return toolstest.ChromiumPDF(t, "tables.html", tablesHTML(tables, ""))
	}},
	{"LibreOffice Calc", func(t testing.TB, tables [][][]string) string {
		return toolstest.OfficeFile(t, "tables.fods", tablesFODS(tables), "pdf")
	}},
}

// csvTables reads pdf-to-csv's result back with encoding/csv: the CSV,
// or each CSV of the zip in its order.
func csvTables(t testing.TB, out *docmill.RunOutput) [][][]string {
	t.Helper()
	data, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	if out.ContentType == csvContentType {
		return [][][]string{readCSV(t, data)}
	}
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var tables [][][]string
	base := strings.TrimSuffix(out.Filename, ".zip")
	for i, f := range z.File {
		if want := fmt.Sprintf("%s-table%d.csv", base, i+1); f.Name != want {
			t.Errorf("entry %d is %s, want %s", i, f.Name, want)
		}
		tables = append(tables, readCSV(t, toolstest.ZipPart(t, z, f.Name)))
	}
	return tables
}

func readCSV(t testing.TB, data []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatalf("reading the CSV: %v\n%s", err, data)
	}
	return rows
}

// cellsFound counts the cells of want found in their row and column in
// the table of got with want's header (cellsInPlace), and all cells.
func cellsFound(want, got [][][]string) (found, all int) {
	for _, w := range want {
		all += len(w) * len(w[0])
		found += cellsInPlace(w, got)
	}
	return found, all
}

// TestPDFToTables takes the known tables out of PDFs Chromium (with and
// without borders) and LibreOffice Calc make: every cell lands in its
// row and column, in the CSVs as encoding/csv reads them and in the
// workbook as LibreOffice reads it; the tables come in their order,
// two CSVs in a zip, two sheets.
func TestPDFToTables(t *testing.T) {
	csvTool, xlsxTool := tablesTestTools(t, docmill.Limits{})
	for _, m := range tableMakers {
		pdf := m.pdf(t, knownTables)
		out := mustRunTool(t, csvTool, pdf, nil)
		got := csvTables(t, out)
		found, all := cellsFound(knownTables, got)
		t.Logf("%s, pdf-to-csv: cells in place %d/%d; meta %v", m.name, found, all, out.Meta)
		if found != all || len(got) != len(knownTables) || out.ContentType != "application/zip" {
			t.Errorf("%s, pdf-to-csv: %d/%d cells, %d tables, %s: %q", m.name, found, all, len(got), out.ContentType, got)
		}
		out = mustRunTool(t, xlsxTool, pdf, nil)
		got = toolstest.SheetsCSV(t, out.Path)
		found, all = cellsFound(knownTables, got)
		t.Logf("%s, pdf-to-xlsx: cells in place %d/%d; meta %v", m.name, found, all, out.Meta)
		if found != all || len(got) != len(knownTables) || out.ContentType != xlsxContentType || !strings.HasSuffix(out.Filename, ".xlsx") {
			t.Errorf("%s, pdf-to-xlsx: %d/%d cells, %d sheets, %s %s: %q", m.name, found, all, len(got), out.Filename, out.ContentType, got)
		}
	}
}

// TestPDFToCSVOneTable: a PDF of one table gives the bare CSV, named
// after the PDF, every row as drawn.
func TestPDFToCSVOneTable(t *testing.T) {
	csvTool, _ := tablesTestTools(t, docmill.Limits{})
	rows := [][]string{{"Tool", "Runs", "Share"}, {"rotate-pdf", "120", "0.5"}, {"merge-pdf", "75", "0.31"}, {"split-pdf", "47", "0.19"}}
	pdf := toolstest.WriteTemp(t, "report.pdf", toolstest.GridPDF("Runs by tool", rows))
	out := mustRunTool(t, csvTool, pdf, nil)
	if out.ContentType != csvContentType || out.Filename != "report.csv" {
		t.Errorf("%s %s", out.Filename, out.ContentType)
	}
	if got := csvTables(t, out); len(got) != 1 || !slices.EqualFunc(got[0], rows, slices.Equal) {
		t.Errorf("rows %q, want %q", got, rows)
	}
	if fmt.Sprint(out.Meta) != "map[cells:12 pages:1 rows:4 tables:1]" {
		t.Errorf("meta %v", out.Meta)
	}
}

// TestPDFToTablesFormulas: a cell a spreadsheet would run as a formula
// comes out of pdf-to-csv with a leading ' (numbers as they are), and
// stays text in the workbook, as LibreOffice reads it.
func TestPDFToTablesFormulas(t *testing.T) {
	csvTool, xlsxTool := tablesTestTools(t, docmill.Limits{})
	rows := [][]string{{"Name", "Value"}, {"=1+2", "-12.5"}, {"@cmd", "+ok"}, {"=A1", "-"}}
	pdf := toolstest.WriteTemp(t, "formulas.pdf", toolstest.GridPDF("Formulas", rows))
	want := [][]string{{"Name", "Value"}, {"'=1+2", "-12.5"}, {"'@cmd", "'+ok"}, {"'=A1", "-"}}
	if got := csvTables(t, mustRunTool(t, csvTool, pdf, nil)); len(got) != 1 || !slices.EqualFunc(got[0], want, slices.Equal) {
		t.Errorf("CSV %q, want %q", got, want)
	}
	if got := toolstest.SheetsCSV(t, mustRunTool(t, xlsxTool, pdf, nil).Path); len(got) != 1 || !slices.EqualFunc(got[0], rows, slices.Equal) {
		t.Errorf("workbook %q, want %q", got, rows)
	}
}

// TestPDFToTablesRefuses: a scan (no text) is no_text naming ocr-pdf, a
// text without a table no_tables, a damaged PDF invalid_document; a
// document of a page more than Limits.PDFPages is refused, and the
// layout and the result are held to Limits.LayoutBytes and
// Limits.TextBytes.
func TestPDFToTablesRefuses(t *testing.T) {
	csvTool, xlsxTool := tablesTestTools(t, docmill.Limits{})
	scan := toolstest.WriteTemp(t, "scan.pdf", toolstest.ImagePDF([]image.Image{toolstest.Picture(64, 64, 1)}))
	prose := toolstest.WriteTemp(t, "prose.pdf", toolstest.TextPDF("A page of prose", "and another"))
	damaged := toolstest.WriteTemp(t, "damaged.pdf", []byte("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >>\nendobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"))
	for _, tool := range []*docmill.Tool{csvTool, xlsxTool} {
		_, err := runTool(t, tool, scan, nil)
		if e := toolstest.WantCode(t, err, docmill.CodeNoText, ""); !strings.Contains(e.Message, "ocr-pdf") {
			t.Errorf("%s: message %q", tool.Slug, e.Message)
		}
		_, err = runTool(t, tool, prose, nil)
		toolstest.WantCode(t, err, docmill.CodeNoTables, "")
		_, err = runTool(t, tool, damaged, nil)
		toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
	}

	rows := [][]string{{"Page", "Rows"}, {"one", "1"}, {"two", "2"}}
	one := toolstest.WriteTemp(t, "grid.pdf", toolstest.GridPDF("Limits", rows))
	two := toolstest.WriteTemp(t, "two.pdf", toolstest.TextPDF("one", "two"))
	c, x := tablesTestTools(t, docmill.Limits{PDFPages: 1})
	for _, tool := range []*docmill.Tool{c, x} {
		mustRunTool(t, tool, one, nil)
		_, err := runTool(t, tool, two, nil)
		if e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, ""); !strings.Contains(e.Message, "1 pages") {
			t.Errorf("%s: message %q", tool.Slug, e.Message)
		}
	}
	for _, limits := range []docmill.Limits{{LayoutBytes: 500}, {TextBytes: 20}} {
		c, x := tablesTestTools(t, limits)
		for _, tool := range []*docmill.Tool{c, x} {
			_, err := runTool(t, tool, one, nil)
			toolstest.WantCode(t, err, docmill.CodeFileTooLarge, "")
		}
	}
}

// TestSheetNumber: digits with a minus and a decimal point are numbers;
// a leading zero, thousands separators, a decimal comma, a plus, an
// exponent, a bare point and 16 digits are text.
func TestSheetNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"0": true, "12": true, "-42": true, "0.75": true, "34000.5": true, "-0.5": true, "123456789012345": true,
		"": false, "-": false, "007": false, "00.5": false, "1,200": false, "1.200,5": false, "+5": false, "1e5": false,
		".5": false, "5.": false, "1.2.3": false, "1234567890123456": false, "12 EUR": false, "Inf": false,
	} {
		if got := sheetNumber(s); got != want {
			t.Errorf("sheetNumber(%q) = %v, want %v", s, got, want)
		}
	}
	for i, want := range map[int]string{0: "A", 25: "Z", 26: "AA", 701: "ZZ", 702: "AAA", 16383: "XFD"} {
		if got := columnName(i); got != want {
			t.Errorf("columnName(%d) = %s, want %s", i, got, want)
		}
	}
}

// TestWriteSheet: a sheet is well-formed XML, its header row bold, a
// number a number, any other cell (a code with a leading zero, text
// with markup) inline text, escaped; an empty cell is left out.
func TestWriteSheet(t *testing.T) {
	var b bytes.Buffer
	rows := [][]string{{"Name", "Value"}, {"007", "1200"}, {"a<b&c", "-0.5"}, {"", "x"}}
	if err := writeSheet(&b, rows); err != nil {
		t.Fatal(err)
	}
	sheet := b.String()
	for _, want := range []string{
		`<c r="A1" s="1" t="inlineStr"><is><t xml:space="preserve">Name</t></is></c>`,
		`<c r="A2" t="inlineStr"><is><t xml:space="preserve">007</t></is></c><c r="B2"><v>1200</v></c>`,
		`<t xml:space="preserve">a&lt;b&amp;c</t></is></c><c r="B3"><v>-0.5</v></c>`,
		`<row r="4"><c r="B4" t="inlineStr">`,
	} {
		if !strings.Contains(sheet, want) {
			t.Errorf("no %s in\n%s", want, sheet)
		}
	}
	dec := xml.NewDecoder(strings.NewReader(sheet))
	for {
		if _, err := dec.Token(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Errorf("the sheet is not well-formed: %v", err)
			}
			break
		}
	}
}

// longTable is a table of 150 rows under its header: three pages or
// more as Chromium and LibreOffice Calc print it.
func longTable() [][]string {
	rows := [][]string{{"Order", "Customer", "Quantity", "Amount"}}
	names := []string{"Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra"}
	for i := range 150 {
		rows = append(rows, []string{fmt.Sprintf("N-%03d", i+1), names[i%len(names)], strconv.Itoa(1 + i%9), fmt.Sprintf("%d.%d", 10+i*7%900, 1+i%9)})
	}
	return rows
}

// TestPDFToTablesAcrossPages: a table that runs on over several pages
// (Chromium's without a running header, Calc's under the sheet's name
// and over the page number) is one table, every cell in its row and
// column.
func TestPDFToTablesAcrossPages(t *testing.T) {
	csvTool, _ := tablesTestTools(t, docmill.Limits{})
	want := [][][]string{longTable()}
	for _, m := range []tableMaker{tableMakers[0], tableMakers[3]} {
		pdf := m.pdf(t, want)
		out := mustRunTool(t, csvTool, pdf, nil)
		got := csvTables(t, out)
		found, all := cellsFound(want, got)
		t.Logf("%s, %v pages: cells in place %d/%d, tables %d", m.name, out.Meta["pages"], found, all, len(got))
		if found != all || len(got) != 1 || out.Meta["pages"].(int) < 3 {
			t.Errorf("%s: %d/%d cells in %d tables, meta %v", m.name, found, all, len(got), out.Meta)
		}
	}
}
