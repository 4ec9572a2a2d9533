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

// FormXObject is a form XObject of the bounding box bbox (and matrix,
// when not empty) drawing content, with the font F1 of object 3: an
// appearance stream of a test document.
func FormXObject(bbox, matrix, content string) string {
	if matrix != "" {
		matrix = " /Matrix " + matrix
	}
	return fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox %s%s /Resources << /Font << /F1 3 0 R >> >> /Length %d >>\nstream\n%s\nendstream",
		bbox, matrix, len(content), content)
}

// AnnotatedPDF is one page with annotations of every kind the PDF helper
// flattens by itself: a checked box, a text field with its appearance,
// a square whose appearance is turned a quarter by its matrix and set off
// its origin, the same appearance on a second, smaller square, a box
// whose state has no appearance, a button with none, a pop-up and a web
// link (https://example.com/flat). Rendered with its annotations, its page
// shows what flattening must draw.
func AnnotatedPDF() []byte {
	const widget = "/Type /Annot /Subtype /Widget /F 4 /P 4 0 R"
	content := "BT /F1 18 Tf 40 360 Td (Flatten me) Tj ET"
	return PDF(
		"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [6 0 R 7 0 R 12 0 R 13 0 R] >> >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R "+
			"/Annots [6 0 R 7 0 R 8 0 R 9 0 R 10 0 R 11 0 R 12 0 R 13 0 R] >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< "+widget+" /FT /Btn /T (Agree) /V /Yes /AS /Yes /Rect [40 300 60 320] /AP << /N << /Yes 14 0 R /Off 15 0 R >> >> >>",
		"<< "+widget+" /FT /Tx /T (Name) /V (Ann Example) /DA (/F1 12 Tf 0 g) /Rect [80 300 280 330] /AP << /N 16 0 R >> >>",
		"<< /Type /Annot /Subtype /Square /F 4 /Rect [40 100 200 200] /AP << /N 17 0 R >> /Popup 10 0 R >>",
		"<< /Type /Annot /Subtype /Square /F 4 /Rect [220 100 300 150] /AP << /N 17 0 R >> >>",
		"<< /Type /Annot /Subtype /Popup /Rect [200 200 360 280] /Parent 8 0 R >>",
		"<< /Type /Annot /Subtype /Link /Rect [40 40 200 60] /Border [0 0 0] /A << /S /URI /URI (https://example.com/flat) >> >>",
		"<< "+widget+" /FT /Btn /T (Later) /V /Off /AS /Off /Rect [300 300 320 320] /AP << /N << /Yes 14 0 R >> >> >>",
		"<< "+widget+" /FT /Btn /Ff 65536 /T (Send) /Rect [330 300 380 320] >>",
		FormXObject("[0 0 20 20]", "", "0 g 4 4 12 12 re f"),
		FormXObject("[0 0 20 20]", "", ""),
		FormXObject("[0 0 200 30]", "", "/Tx BMC q BT /F1 12 Tf 0 g 2 10 Td (Ann Example) Tj ET Q EMC"),
		FormXObject("[10 10 110 170]", "[0 1 -1 0 0 0]", "0 0 1 rg 10 10 100 160 re f 1 0 0 rg 10 10 40 20 re f"),
	)
}
