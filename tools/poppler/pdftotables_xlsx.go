package poppler

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ziparchive"
)

// The fixed parts of a SpreadsheetML workbook (ECMA-376 Part 1, 18):
// what Excel and LibreOffice need to open it, no more. Cells hold their
// text inline (t="inlineStr"), so no shared-strings part is needed and a
// sheet is written as its rows are; the styles are the default and a
// bold one for the header row.
const (
	xlsxRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`
	xlsxStyles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts>` +
		`<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>` +
		`<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>` +
		`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>` +
		`<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>` +
		`<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`
	xlsxSheetOpen  = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" + `<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`
	xlsxSheetClose = `</sheetData></worksheet>`
	// xlsxMaxColumns and xlsxMaxRows are what a sheet holds (Excel's
	// limits, XFD1048576): facts of the format, not costs.
	xlsxMaxColumns = 16384
	xlsxMaxRows    = 1 << 20
)

// writeXLSX writes tables as a workbook at path, a sheet a table named
// "Table N", streamed into a zip of at most maxBytes
// (Limits.TextBytes).
func writeXLSX(ctx context.Context, path string, tables []table, maxBytes int64) error {
	for _, t := range tables {
		if len(t.rows) > xlsxMaxRows || len(t.rows[0]) > xlsxMaxColumns {
			return docmill.Errorf(docmill.CodeInvalidDocument, "A table of the document is larger than a sheet holds (%d columns, %d rows).", xlsxMaxColumns, xlsxMaxRows)
		}
	}
	zw, err := ziparchive.Create(path, maxBytes)
	if err != nil {
		return fmt.Errorf("poppler: %w", err)
	}
	err = writeWorkbook(ctx, zw, tables)
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	switch {
	case errors.Is(err, ziparchive.ErrTooLarge):
		return tablesTooLarge(err, maxBytes)
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("poppler: write xlsx: %w", err)
	}
	return nil
}

// writeWorkbook writes the parts of the workbook of tables into zw.
func writeWorkbook(ctx context.Context, zw *ziparchive.Writer, tables []table) error {
	var types, book, rels buffer
	types.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
		`<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>`)
	book.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>`)
	rels.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdStyles" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>`)
	for i := range tables {
		n := i + 1
		types.printf(`<Override PartName="/xl/worksheets/sheet%d.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`, n)
		book.printf(`<sheet name="Table %d" sheetId="%d" r:id="rId%d"/>`, n, n, n)
		rels.printf(`<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet%d.xml"/>`, n, n)
	}
	types.WriteString(`</Types>`)
	book.WriteString(`</sheets></workbook>`)
	rels.WriteString(`</Relationships>`)
	for _, p := range []struct {
		name string
		body []byte
	}{
		{"[Content_Types].xml", types.Bytes()}, {"_rels/.rels", []byte(xlsxRels)}, {"xl/workbook.xml", book.Bytes()},
		{"xl/_rels/workbook.xml.rels", rels.Bytes()}, {"xl/styles.xml", []byte(xlsxStyles)},
	} {
		w, err := zw.Add(p.name, true)
		if err != nil {
			return err
		}
		if _, err := w.Write(p.body); err != nil {
			return err
		}
	}
	for i, t := range tables {
		if err := ctx.Err(); err != nil {
			return err
		}
		w, err := zw.Add("xl/worksheets/sheet"+strconv.Itoa(i+1)+".xml", true)
		if err != nil {
			return err
		}
		if err := writeSheet(w, t.rows); err != nil {
			return err
		}
	}
	return nil
}

// writeSheet writes a worksheet of rows to w, the first row bold (the
// header); a cell that is clearly a number (sheetNumber) is a number,
// any other a string, an empty one left out.
func writeSheet(w io.Writer, rows [][]string) error {
	b := bufio.NewWriterSize(w, 1<<16)
	b.WriteString(xlsxSheetOpen)
	for i, r := range rows {
		fmt.Fprintf(b, `<row r="%d">`, i+1)
		for j, c := range r {
			if c == "" {
				continue
			}
			ref := columnName(j) + strconv.Itoa(i+1)
			style := ""
			if i == 0 {
				style = ` s="1"`
			}
			if sheetNumber(c) {
				fmt.Fprintf(b, `<c r="%s"%s><v>%s</v></c>`, ref, style, c)
				continue
			}
			fmt.Fprintf(b, `<c r="%s"%s t="inlineStr"><is><t xml:space="preserve">%s</t></is></c>`, ref, style, escaped(c))
		}
		b.WriteString(`</row>`)
	}
	b.WriteString(xlsxSheetClose)
	return b.Flush()
}

// columnName is the letters of the column of index i from 0: A, ...,
// Z, AA, ...
func columnName(i int) string {
	var name []byte
	for i++; i > 0; i = (i - 1) / 26 {
		name = append([]byte{byte('A' + (i-1)%26)}, name...)
	}
	return string(name)
}

// sheetNumber reports whether s is clearly a number, so that a sheet
// holds it as one: an optional minus, digits without a leading zero (a
// code such as "007" stays text), an optional decimal point with digits
// after it, at most 15 digits in all (what a double holds exactly).
// Thousands separators and decimal commas are left as text: "1,200" is
// a thousand and two hundred in one language and one and a fifth in
// another.
func sheetNumber(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	digits, point := 0, -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && point < 0:
			point = i
		default:
			return false
		}
	}
	switch {
	case digits == 0 || digits > 15 || point == 0 || point == len(s)-1:
		return false
	case s[0] == '0' && len(s) > 1 && point != 1:
		return false
	}
	return true
}
