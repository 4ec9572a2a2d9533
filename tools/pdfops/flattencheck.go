package pdfops

import (
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// drawnByQPDFParam, "true", tells RestoreLinksStep that the flattened
// file is qpdf's (--generate-appearances --flatten-annotations=all of
// the first) rather than Ghostscript's, and that it is to be checked
// for what qpdf does not draw (undrawnByQPDF) before links are put back.
const drawnByQPDFParam = "drawn_by_qpdf"

// Annotation flags (ISO 32000-2, table 167) under which a viewer and
// Ghostscript may show an annotation differently from qpdf, which drops
// every annotation flagged Invisible or Hidden: NoView too is left to
// Ghostscript.
const undrawnFlags = 1<<0 | 1<<1 | 1<<5

// undrawnByQPDF counts what qpdf's flattening of src into dst would lose
// or leave that Ghostscript's draws or removes: an annotation of src,
// other than a link (put back by the step) or a pop-up (never drawn),
// without a normal appearance for qpdf to draw, which qpdf drops and
// Ghostscript draws one for (notes, highlights, ink saved without
// appearances); one with flags viewers differ on (undrawnFlags); and,
// in dst, any annotation or form qpdf left in place (a form whose
// appearances it could not generate). Zero means dst shows what
// Ghostscript's flattening would.
func undrawnByQPDF(src, dst *model.Context) int {
	n, generated := 0, needsAppearances(src)
	for p := 1; p <= src.PageCount; p++ {
		sd, _, _, err := src.PageDict(p, false)
		if err != nil {
			return 1
		}
		annots, _ := src.DereferenceArray(sd["Annots"])
		for _, a := range annots {
			if !drawnByQPDF(src, a, generated) {
				n++
			}
		}
	}
	for p := 1; p <= dst.PageCount; p++ {
		dd, _, _, err := dst.PageDict(p, false)
		if err != nil {
			return n + 1
		}
		left, _ := dst.DereferenceArray(dd["Annots"])
		n += len(left)
	}
	if _, ok := dst.RootDict["AcroForm"]; ok {
		n++
	}
	return n
}

// drawnByQPDF reports whether qpdf flattens annotation a as Ghostscript
// would: a link or pop-up, or an annotation with neither of
// undrawnFlags and a normal appearance (a stream, or a dictionary of
// states with the annotation's state chosen) or, a widget, none that
// both routes leave out or have qpdf make alike (generated: the form's
// NeedAppearances).
func drawnByQPDF(doc *model.Context, a types.Object, generated bool) bool {
	d, err := doc.DereferenceDict(a)
	if err != nil || d == nil {
		return false
	}
	if s := d.Subtype(); s != nil && (*s == "Link" || *s == "Popup") {
		return true
	}
	if f, err := doc.DereferenceInteger(d["F"]); err != nil || (f != nil && f.Value()&undrawnFlags != 0) {
		return false
	}
	ap, err := doc.DereferenceDict(d["AP"])
	if err != nil {
		return false
	}
	if ap == nil {
		if !isWidget(d) {
			return false
		}
		// A button without an appearance: Ghostscript draws none either
		// (it implements none for buttons), and qpdf drops it. A text or
		// choice field's, when the form asks for appearances: qpdf makes
		// one in both routes, or else leaves the form (dst's check).
		switch inheritedFieldType(doc, d) {
		case "Btn":
			return true
		case "Tx", "Ch":
			return generated
		}
		return false
	}
	n, err := doc.Dereference(ap["N"])
	if err != nil {
		return false
	}
	switch n.(type) {
	case types.StreamDict:
		return true
	case types.Dict:
		return d.NameEntry("AS") != nil
	}
	return false
}

// isWidget reports whether annotation d is a form field's widget.
func isWidget(d types.Dict) bool {
	s := d.Subtype()
	return s != nil && *s == "Widget"
}

// inheritedFieldType is the field type (FT) of widget d, its own or inherited
// from its parents within maxFieldDepth; "" when there is none.
func inheritedFieldType(doc *model.Context, d types.Dict) string {
	for range maxFieldDepth {
		if ft := d.NameEntry("FT"); ft != nil {
			return *ft
		}
		parent, err := doc.DereferenceDict(d["Parent"])
		if err != nil || parent == nil {
			return ""
		}
		d = parent
	}
	return ""
}

// needsAppearances reports the form's NeedAppearances: qpdf's
// --generate-appearances then makes the text and choice fields'.
func needsAppearances(doc *model.Context) bool {
	form, err := doc.DereferenceDict(doc.RootDict["AcroForm"])
	if err != nil || form == nil {
		return false
	}
	b, err := doc.DereferenceBoolean(form["NeedAppearances"], model.V10)
	return err == nil && b != nil && b.Value()
}
