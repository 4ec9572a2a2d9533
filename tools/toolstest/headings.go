package toolstest

import (
	"fmt"
	"strings"
)

// HeadingLine is one line of HeadingsPDF: its page (1-based), font size
// and text (ASCII without parentheses or backslashes).
type HeadingLine struct {
	Page int
	Size float64
	Text string
}

// HeadingsPDF returns a PDF of A4 pages showing lines in Helvetica, each
// in its own size, top to bottom in the order given, for tests of
// headings found by font size (edit-bookmarks' from_headings).
func HeadingsPDF(lines []HeadingLine) []byte {
	pages := 0
	for _, l := range lines {
		pages = max(pages, l.Page)
	}
	content := make([]strings.Builder, pages)
	y := make([]float64, pages)
	for i := range y {
		y[i] = 780
	}
	for _, l := range lines {
		p := l.Page - 1
		y[p] -= l.Size * 1.25
		fmt.Fprintf(&content[p], "BT /F1 %g Tf 72 %g Td (%s) Tj ET\n", l.Size, y[p], l.Text)
	}
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	kids := make([]string, pages)
	for i := range pages {
		n := len(objects) + 1
		kids[i] = fmt.Sprintf("%d 0 R", n)
		c := content[i].String()
		objects = append(objects,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", n+1),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c), c))
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages)
	return PDF(objects...)
}
