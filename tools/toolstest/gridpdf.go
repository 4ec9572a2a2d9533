package toolstest

import (
	"fmt"
	"strings"
)

// GridPDF returns a PDF of one A4 page showing a title line, then rows
// of cells in 11 pt Helvetica, each column 130 pt right of the one
// before and each row 18 pt below: a table of known cells for the tools
// that take tables out (pdf-to-csv, pdf-to-xlsx), made without an
// engine. Cells are ASCII without parentheses or backslashes.
func GridPDF(title string, rows [][]string) []byte {
	var c strings.Builder
	fmt.Fprintf(&c, "BT /F1 16 Tf 60 780 Td (%s) Tj ET\n", title)
	for i, r := range rows {
		for j, cell := range r {
			fmt.Fprintf(&c, "BT /F1 11 Tf %d %d Td (%s) Tj ET\n", 60+130*j, 740-18*i, cell)
		}
	}
	content := c.String()
	return PDF("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
}
