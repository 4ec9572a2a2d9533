package main

import (
	"fmt"
	"strings"

	"github.com/docmill/docmill/tools/toolstest"
)

// The PDFs the end-to-end tests of the service generate for themselves,
// so that they run without the corpus of real-world files.

// fourPagePDF is a generated PDF, as onePagePDF is, for the tests of the
// service (access, jobs, webhooks, the CLI, outages) that need some PDF
// to send, not a real-world one: they run without the corpus.
var fourPagePDF = toolstest.TextPDF("Generated page 1", "Generated page 2", "Generated page 3", "Generated page 4")

// denseTextPDF is an A4 page of n lines of 11 pt text, as full as a
// page of a book.
func denseTextPDF(n int) []byte {
	var b strings.Builder
	b.WriteString("BT /F1 11 Tf 14 TL 56 800 Td")
	for i := range n {
		fmt.Fprintf(&b, " (Line %d of a generated page: the quick brown fox jumps over the lazy dog.) Tj T*", i+1)
	}
	b.WriteString(" ET")
	content := b.String()
	return toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
}
