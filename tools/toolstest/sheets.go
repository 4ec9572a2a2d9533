package toolstest

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
)

// SheetsCSV has LibreOffice open the spreadsheet at path (an .xlsx, an
// .ods) and save every sheet as UTF-8 CSV (the CSV filter's twelfth
// token, -1, which LibreOffice 7.2 and later read as every sheet, each
// to a file named after it), and returns the sheets' rows, cells as
// LibreOffice shows them, ordered by the number that ends each sheet's
// name ("Table 2" before "Table 10"). It is how the tests read a
// workbook with a program other than the one that wrote it. It skips t
// when soffice is not installed (fails it when CI is set).
func SheetsCSV(t testing.TB, path string) [][][]string {
	t.Helper()
	if _, err := exec.LookPath("soffice"); err != nil {
		Lacking(t, "soffice is not installed: cannot read the spreadsheet")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "soffice", "--headless", "--norestore", "-env:UserInstallation=file://"+filepath.Join(dir, "profile"),
		"--convert-to", `csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1`, "--outdir", dir, path).CombinedOutput()
	if err != nil {
		t.Fatalf("soffice --convert-to csv %s: %v\n%s", filepath.Base(path), err, out)
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil || len(names) == 0 {
		t.Fatalf("soffice wrote no CSV of %s: %v\n%s", filepath.Base(path), err, out)
	}
	slices.SortFunc(names, func(a, b string) int { return trailingNumber(a) - trailingNumber(b) })
	var sheets [][][]string
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil {
			t.Fatalf("reading %s: %v\n%s", filepath.Base(name), err, data)
		}
		sheets = append(sheets, rows)
	}
	return sheets
}

// trailingNumber is the number that ends a file's name before its
// extension, 0 for none.
func trailingNumber(path string) int {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	i := strings.LastIndexFunc(name, func(r rune) bool { return !unicode.IsDigit(r) })
	n, _ := strconv.Atoi(name[i+1:])
	return n
}
