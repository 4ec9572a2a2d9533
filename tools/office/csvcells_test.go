package office_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/office"
	"github.com/docmill/docmill/tools/toolstest"
)

// xlsxSheet is a minimal .xlsx whose one sheet holds sheetData.
func xlsxSheet(sheetData string) [][2]string {
	return [][2]string{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`},
		{"xl/workbook.xml", `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`},
		{"xl/worksheets/sheet1.xml", `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` + sheetData + `</sheetData></worksheet>`},
	}
}

// TestCSVCellBound: a 1.5 KB .xlsx with a value in A1 and one in the
// sheet's last cell (XFD1048576) spans 17 billion cells, a CSV of
// 17 GB of separators: LibreOffice wrote some 12 MB of it a second
// until the conversion's deadline, and the job failed as a timeout. It
// is refused at once as a processing limit; a sheet within the bound
// still converts.
func TestCSVCellBound(t *testing.T) {
	p := newPool(t, office.Options{Workers: 1, Timeout: 30 * time.Second})
	tl := toolOf(t, p, "convert-document")
	dir := t.TempDir()
	far := filepath.Join(dir, "far.xlsx")
	writeZip(t, far, xlsxSheet(`<row r="1"><c r="A1"><v>1</v></c></row><row r="1048576"><c r="XFD1048576"><v>2</v></c></row>`))
	start := time.Now()
	_, err := run(t, tl, far, docmill.Params{"format": "csv"})
	if code(err) != docmill.CodeInvalidDocument || !strings.Contains(err.(*docmill.Error).Message, "processing limit") {
		t.Fatalf("after %s: %v, want a processing limit", time.Since(start), err)
	}
	t.Log(err.(*docmill.Error).Message)
	// The same sheet saved in a format that stores only the cells used
	// is not bounded.
	if _, err := run(t, tl, far, docmill.Params{"format": "ods"}); err != nil {
		t.Fatalf("ods: %v", err)
	}
	near := filepath.Join(dir, "near.xlsx")
	writeZip(t, near, xlsxSheet(`<row r="1"><c r="A1"><v>1</v></c></row><row r="3"><c r="C3"><v>2</v></c></row>`))
	out, err := run(t, tl, near, docmill.Params{"format": "csv"})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readCSV(t, out.Path)
	if err != nil || len(rows) != 3 || rows[0][0] != "1" || rows[2][2] != "2" {
		t.Fatalf("rows %q, %v", rows, err)
	}
}

// TestPDFCellBound: the same 1.5 KB sheet exported to PDF (excel-to-pdf,
// and the first page document-thumbnail draws) kept LibreOffice laying
// out its 17 billion cells until the deadline; a sheet spanning 100
// million cells (A1 to CV1000000) takes it about 8 s. The sheets' cells
// are bounded as for CSV, all sheets together, since a PDF shows every
// sheet.
func TestPDFCellBound(t *testing.T) {
	p := newPool(t, office.Options{Workers: 1, Timeout: 30 * time.Second})
	far := filepath.Join(t.TempDir(), "far.xlsx")
	writeZip(t, far, xlsxSheet(`<row r="1"><c r="A1"><v>1</v></c></row><row r="1048576"><c r="XFD1048576"><v>2</v></c></row>`))
	_, err := run(t, toolOf(t, p, "excel-to-pdf"), far, nil)
	if code(err) != docmill.CodeInvalidDocument || !strings.Contains(err.(*docmill.Error).Message, "processing limit") {
		t.Fatalf("excel-to-pdf: %v, want a processing limit", err)
	}
	dir := t.TempDir()
	_, err = p.FirstPagePDF(context.Background(), &docmill.RunInput{Files: []docmill.LocalFile{toolstest.Input(t, dir, far, "")}, WorkDir: dir, Params: docmill.Params{}})
	if code(err) != docmill.CodeInvalidDocument || !strings.Contains(err.(*docmill.Error).Message, "processing limit") {
		t.Fatalf("first page: %v, want a processing limit", err)
	}
}

// TestSheetCellsLimit: the bound is the pool's Limits.SheetCells, not a
// constant: with 8 cells, the 9 of A1:C3 that TestCSVCellBound converts
// are refused as a processing limit, for CSV and for PDF.
func TestSheetCellsLimit(t *testing.T) {
	p := newPool(t, office.Options{Workers: 1, Timeout: 30 * time.Second, Limits: docmill.Limits{SheetCells: 8}})
	near := filepath.Join(t.TempDir(), "near.xlsx")
	writeZip(t, near, xlsxSheet(`<row r="1"><c r="A1"><v>1</v></c></row><row r="3"><c r="C3"><v>2</v></c></row>`))
	for slug, params := range map[string]docmill.Params{"convert-document": {"format": "csv"}, "excel-to-pdf": nil} {
		_, err := run(t, toolOf(t, p, slug), near, params)
		if code(err) != docmill.CodeInvalidDocument || !strings.Contains(err.(*docmill.Error).Message, "more than 8 cells") {
			t.Errorf("%s: %v, want a processing limit of 8 cells", slug, err)
		}
	}
}
