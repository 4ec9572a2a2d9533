package poppler

import (
	"context"
	"path/filepath"
	"slices"
	"strings"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ziparchive"
)

// Content types of the tables' results.
const (
	csvContentType  = "text/csv; charset=utf-8"
	xlsxContentType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
)

// tablesTools returns pdf-to-csv and pdf-to-xlsx: the tables of a text
// PDF, found page by page by pdf-to-markdown's finder (pageTables) from
// the alignment of pdftotext's words. Ruling lines are not read:
// pdftotext gives none, and the tables the tools are measured on
// (Chromium's with borders, without and unstyled, LibreOffice Calc's)
// are found from their words alone (see BenchmarkPDFToTablesQuality). limits bound the pages
// read (PDFPages), the layout (LayoutBytes) and what is written
// (TextBytes).
func tablesTools(e Engines, limits docmill.Limits) []*docmill.Tool {
	limits = limits.WithDefaults()
	return []*docmill.Tool{csvTablesTool(e, limits), xlsxTablesTool(e, limits)}
}

// tablesFound describes how the tools find tables, for their descriptions.
const tablesFound = "Tables are found from the alignment of the words: rows of two cells or more whose cells line up in " +
	"columns; a table that runs on across a page break (the same columns, nothing but a running header or footer " +
	"line between) is one table, its header repeated on the next page dropped; a cell of several lines is not joined. " +
	"A scanned PDF has no text (422 no_text: run ocr-pdf first); a PDF with no table is a 422 no_tables."

// tablesMeta are the meta fields both tools report.
var tablesMeta = []docmill.MetaField{
	{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the PDF read."},
	{Name: "tables", Type: docmill.MetaInteger, Description: "Tables found and written."},
	{Name: "rows", Type: docmill.MetaInteger, Description: "Rows written, of all tables."},
	{Name: "cells", Type: docmill.MetaInteger, Description: "Cells written that hold text, of all tables."},
}

func csvTablesTool(e Engines, limits docmill.Limits) *docmill.Tool {
	return engineTool(docmill.Tool{
		Slug: "pdf-to-csv", Title: "PDF to CSV",
		Description: "Take the tables of a text PDF out as CSV (UTF-8, comma-separated, RFC 4180): one table gives " +
			"<name>.csv, several a zip of <name>-table1.csv, <name>-table2.csv, ... in the order of the pages. A cell " +
			"that a spreadsheet would read as a formula (starting with =, +, - or @, and not a number) gets a leading '. " +
			tablesFound,
		Outputs: []string{"text/csv", ziparchive.ContentType},
		Meta:    tablesMeta,
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			tables, pages, err := readTables(ctx, e, limits, in)
			if err != nil {
				return nil, err
			}
			out, err := writeCSVResult(ctx, in, tables, limits.TextBytes)
			if err != nil {
				return nil, err
			}
			out.Meta = tablesMetaOf(tables, pages)
			return out, nil
		},
	}, e.PDFToText)
}

func xlsxTablesTool(e Engines, limits docmill.Limits) *docmill.Tool {
	return engineTool(docmill.Tool{
		Slug: "pdf-to-xlsx", Title: "PDF to Excel",
		Description: "Take the tables of a text PDF out as an Excel workbook (.xlsx): one sheet per table, named " +
			"Table 1, Table 2, ... in the order of the pages; a cell that is clearly a number (digits, a sign and a " +
			"decimal point, no leading zero) is a number, any other cell text. " + tablesFound,
		Outputs: []string{xlsxContentType},
		Meta:    tablesMeta,
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			tables, pages, err := readTables(ctx, e, limits, in)
			if err != nil {
				return nil, err
			}
			out := filepath.Join(in.WorkDir, "tables.xlsx")
			if err := writeXLSX(ctx, out, tables, limits.TextBytes); err != nil {
				return nil, err
			}
			return &docmill.RunOutput{Path: out, Filename: docmill.ResultName(in.Files[0].Filename, ".pdf", ".xlsx"),
				ContentType: xlsxContentType, Meta: tablesMetaOf(tables, pages)}, nil
		},
	}, e.PDFToText)
}

// readTables reads the tables of the PDF of in, page by page, and
// returns them with the page count: no_text when no page has a line of
// text, no_tables when none holds a table.
func readTables(ctx context.Context, e Engines, limits docmill.Limits, in *docmill.RunInput) ([]table, int, error) {
	var tables []table
	text := false
	below := -1 // lines under the last table of the page before; -1: that page had none
	findTables := func(page []textLine) {
		text = true
		found := pageTables(page)
		for i, t := range found {
			if n := len(tables); i == 0 && n > 0 && tableRunsOn(tables[n-1], t, below, linesOutside(page, t, true)) {
				tables[n-1].join(t)
				continue
			}
			tables = append(tables, t)
		}
		below = -1
		if n := len(found); n > 0 {
			below = linesOutside(page, found[n-1], false)
		}
	}
	doc, err := readLayout(ctx, e, limits, in, layoutReading{page: findTables, maxPages: limits.PDFPages, pageOnly: true})
	if err != nil {
		return nil, 0, err
	}
	if !text {
		return nil, 0, docmill.Errorf(docmill.CodeNoText,
			"The PDF has no text to take tables from: it is scanned, or its pages are images. Run ocr-pdf first, then this tool on its result.")
	}
	if len(tables) == 0 {
		return nil, 0, docmill.Errorf(docmill.CodeNoTables,
			"No table was found in the PDF: no rows of two cells or more whose cells line up in columns.")
	}
	return tables, doc.pages, nil
}

// tablesMetaOf is the meta of a run that wrote tables of a document of
// pages pages.
func tablesMetaOf(tables []table, pages int) map[string]any {
	rows, cells := 0, 0
	for _, t := range tables {
		rows += len(t.rows)
		for _, r := range t.rows {
			for _, c := range r {
				if strings.TrimSpace(c) != "" {
					cells++
				}
			}
		}
	}
	return map[string]any{"pages": pages, "tables": len(tables), "rows": rows, "cells": cells}
}

// maxPageFurniture is how many lines may stand between the end of a
// table and the end of its page, and between the top of the next page
// and the table that runs on there: a running footer or page number,
// a running header (LibreOffice Calc prints the sheet's name and the
// page number). A heading of two lines, or a paragraph, ends the table.
const maxPageFurniture = 1

// linesOutside counts the lines of page above t (above set) or below
// it: lines whose tops are more than rowTolerance sizes past its first
// or last row's.
func linesOutside(page []textLine, t table, above bool) int {
	n := 0
	for _, l := range page {
		if above && l.top < t.top-rowTolerance*l.size || !above && l.top > t.bottom+rowTolerance*l.size {
			n++
		}
	}
	return n
}

// tableRunsOn reports whether next, the first table of its page with
// above lines over it, is prev, the last table of the page before with
// below lines under it (-1: that page had no table), run on across the
// page break: on the next page, with the same number of columns, each
// overlapping prev's, and no more than maxPageFurniture lines between.
func tableRunsOn(prev, next table, below, above int) bool {
	if below < 0 || next.page != prev.page+1 || below > maxPageFurniture || above > maxPageFurniture || len(prev.cols) != len(next.cols) {
		return false
	}
	for i, c := range prev.cols {
		if next.cols[i][0] > c[1] || next.cols[i][1] < c[0] {
			return false
		}
	}
	return true
}

// join adds the rows of next, the table that runs on from t across a
// page break, to t's, without next's first row when it repeats t's
// header.
func (t *table) join(next table) {
	rows := next.rows
	if slices.Equal(rows[0], t.rows[0]) {
		rows = rows[1:]
	}
	t.rows = append(t.rows, rows...)
	t.page = next.page
}
