package poppler

import (
	"bufio"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ziparchive"
)

// writeCSVResult writes tables as pdf-to-csv's result in in.WorkDir: the
// one table's CSV as it is (what a user of one table expects, no archive
// to open), or a zip of one CSV a table, in their order; every CSV, and
// the zip, at most maxBytes (Limits.TextBytes).
func writeCSVResult(ctx context.Context, in *docmill.RunInput, tables []table, maxBytes int64) (*docmill.RunOutput, error) {
	name := in.Files[0].Filename
	if len(tables) == 1 {
		out := filepath.Join(in.WorkDir, "table.csv")
		if err := writeCSV(out, tables[0].rows, maxBytes); err != nil {
			return nil, err
		}
		return &docmill.RunOutput{Path: out, Filename: docmill.ResultName(name, ".pdf", ".csv"), ContentType: csvContentType}, nil
	}
	var entries []zipEntry
	for i, t := range tables {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		path := filepath.Join(in.WorkDir, "table"+strconv.Itoa(i+1)+".csv")
		if err := writeCSV(path, t.rows, maxBytes); err != nil {
			return nil, err
		}
		entries = append(entries, zipEntry{name: docmill.ResultName(name, ".pdf", "-table"+strconv.Itoa(i+1)+".csv"), path: path})
	}
	out := filepath.Join(in.WorkDir, "tables.zip")
	if err := writeEntries(ctx, out, entries, maxBytes, true, tablesTooLarge); err != nil {
		return nil, err
	}
	return ziparchive.Result(out, docmill.ResultName(name, ".pdf", ".zip"), nil), nil
}

// tablesTooLarge is the error of tables whose CSV or workbook would pass
// maxBytes.
func tablesTooLarge(err error, maxBytes int64) error {
	e := docmill.Errorf(docmill.CodeFileTooLarge, "The tables of the document would be larger than %d MB.", maxBytes>>20)
	e.Err = err
	return e
}

// writeCSV writes rows as CSV (RFC 4180: CRLF line ends, fields quoted
// where needed) into the file at path, at most maxBytes of it; each
// field passes through csvField.
func writeCSV(path string, rows [][]string, maxBytes int64) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("poppler: create csv: %w", err)
	}
	defer f.Close()
	buf := bufio.NewWriterSize(f, 1<<16)
	w := csv.NewWriter(&cappedText{w: buf, left: maxBytes})
	w.UseCRLF = true
	fields := make([]string, 0, 16)
	for _, r := range rows {
		fields = fields[:0]
		for _, c := range r {
			fields = append(fields, csvField(c))
		}
		if err := w.Write(fields); err != nil {
			return csvError(err, maxBytes)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return csvError(err, maxBytes)
	}
	if err := buf.Flush(); err != nil {
		return fmt.Errorf("poppler: write csv: %w", err)
	}
	return f.Close()
}

func csvError(err error, maxBytes int64) error {
	if errors.Is(err, errTextTooLarge) {
		return tablesTooLarge(err, maxBytes)
	}
	return fmt.Errorf("poppler: write csv: %w", err)
}

// csvField is a cell as CSV holds it: a cell a spreadsheet would run as
// a formula when it opens the file (one starting with =, +, - or @, or
// with a tab or carriage return, that is not a number) gets a leading ',
// which spreadsheets show as text; a number ("-12.5") is kept as it is.
// The PDF's author chose the text, not the user who opens the CSV.
func csvField(s string) string {
	if len(s) < 2 { // a lone dash or plus sign is text to every spreadsheet
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			return "'" + s
		}
	}
	return s
}
