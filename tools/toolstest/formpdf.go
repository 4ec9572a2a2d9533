package toolstest

import "fmt"

// FormPDF returns a well-formed one-page PDF with an AcroForm of every
// kind of field a form filler meets: a text field "Name" (holding name,
// when not empty: ASCII without parentheses or backslashes), a check box
// "Agree" (on state "Yes"), a radio group "Color" ("Red", "Green"), a
// combo box "Size" (S, M, L) and a multi-select list box "Toppings"
// (Cheese, Ham, Olives). No field has a value other than Name's, and the
// text and choice fields have no appearance stream: a viewer, or qpdf
// --generate-appearances, makes it from the value (/NeedAppearances).
func FormPDF(name string) []byte {
	value := ""
	if name != "" {
		value = fmt.Sprintf(" /V (%s)", name)
	}
	const widget = "/Type /Annot /Subtype /Widget /F 4 /P 4 0 R"
	const da = "/DA (/Helv 12 Tf 0 g)"
	states := func(on string) string { return fmt.Sprintf("/AP << /N << /%s 12 0 R /Off 13 0 R >> >>", on) }
	mark, blank := "0 g 4 4 12 12 re f", ""
	content := "BT /F1 12 Tf 72 760 Td (Application form) Tj ET"
	return PDF(
		"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R 6 0 R 7 0 R 10 0 R 11 0 R] /NeedAppearances true "+
			"/DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 3 0 R >> >> >> >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> "+
			"/Contents 14 0 R /Annots [5 0 R 6 0 R 8 0 R 9 0 R 10 0 R 11 0 R] >>",
		"<< "+widget+" /FT /Tx /T (Name)"+value+" /Rect [72 700 372 724] "+da+" >>",
		"<< "+widget+" /FT /Btn /T (Agree) /V /Off /AS /Off /Rect [72 660 92 680] "+states("Yes")+" >>",
		"<< /FT /Btn /Ff 49152 /T (Color) /V /Off /Kids [8 0 R 9 0 R] >>",
		"<< "+widget+" /Parent 7 0 R /AS /Off /Rect [72 620 92 640] "+states("Red")+" >>",
		"<< "+widget+" /Parent 7 0 R /AS /Off /Rect [112 620 132 640] "+states("Green")+" >>",
		"<< "+widget+" /FT /Ch /Ff 131072 /T (Size) /Opt [(S) (M) (L)] /Rect [72 580 172 600] "+da+" >>",
		"<< "+widget+" /FT /Ch /Ff 2097152 /T (Toppings) /Opt [(Cheese) (Ham) (Olives)] /Rect [72 480 272 560] "+da+" >>",
		fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 20 20] /Length %d >>\nstream\n%s\nendstream", len(mark), mark),
		fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [0 0 20 20] /Length %d >>\nstream\n%s\nendstream", len(blank), blank),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	)
}
