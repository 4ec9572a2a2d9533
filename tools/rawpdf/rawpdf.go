// Package rawpdf writes a PDF from its objects given as PDF source text,
// with a correct cross-reference table: the one writer of hand-made PDFs,
// for the documents docmill draws from scratch (a compare report's blank
// pages), the tests that need a document of a precise shape (a hostile
// one, a large one) and the example files.
package rawpdf

import (
	"bytes"
	"fmt"
)

// Write returns a PDF 1.7 file made of objects: object i+1 is objects[i]
// (its dictionary, with its stream if any), and object 1 must be the
// catalog. Nothing is checked: what the objects say is the caller's.
func Write(objects ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}
