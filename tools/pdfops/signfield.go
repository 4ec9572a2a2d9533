package pdfops

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// byteRangeWidth is the room the /ByteRange array takes: "[0 " and three
// ten-digit offsets, padded with spaces once the offsets are known.
const byteRangeWidth = len("[0 0000000000 0000000000 0000000000]")

// sigPlaceholders are where, in an update's bytes, the signature
// dictionary's /ByteRange array and /Contents hex string (with its angle
// brackets) are.
type sigPlaceholders struct {
	byteRange   int
	contents    int
	contentsLen int
}

// patchByteRange writes the /ByteRange into update, an update appended to
// a document of base bytes: everything but the /Contents string.
func (p sigPlaceholders) patchByteRange(update []byte, base int64) {
	before := base + int64(p.contents)
	after := before + int64(p.contentsLen)
	total := base + int64(len(update))
	s := fmt.Sprintf("[0 %d %d %d]", before, after, total-after)
	s = s[:len(s)-1] + strings.Repeat(" ", byteRangeWidth-len(s)) + "]"
	copy(update[p.byteRange:], s)
}

// addSignatureObjects writes to u the signature's objects: the signature
// dictionary (placeholders for its byte range and contents), the field
// and its widget (one dictionary), its appearance, the page with the
// widget in its /Annots, and the AcroForm with the field and /SigFlags 3.
func addSignatureObjects(ctx context.Context, doc *model.Context, u *incrementalUpdate, req *signRequest) (sigPlaceholders, error) {
	page, pageRef, _, err := doc.PageDict(req.page, false)
	if err != nil || page == nil || pageRef == nil {
		return sigPlaceholders{}, docmill.InvalidDocument(err, "Page %d of the PDF could not be read: it is damaged.", req.page)
	}
	acroForm, fields, err := readAcroForm(doc)
	if err != nil {
		return sigPlaceholders{}, err
	}
	sigNr, fieldNr := u.reserve(), u.reserve()
	fieldRef := *types.NewIndirectRef(fieldNr, 0)
	rect, apNr, err := writeAppearance(ctx, doc, u, req)
	if err != nil {
		return sigPlaceholders{}, err
	}
	ph := writeSigDict(u, sigNr, req)
	u.writeObject(fieldNr, 0, fmt.Sprintf("<< /Type /Annot /Subtype /Widget /FT /Sig /T %s /V %d 0 R /F 132 /Rect %s /P %s /AP << /N %d 0 R >> >>",
		sigText(fieldName(doc, fields)), sigNr, rect.PDFString(), pageRef.PDFString(), apNr))
	if _, err := addToArray(doc, u, page, *pageRef, "Annots", fieldRef); err != nil {
		return sigPlaceholders{}, docmill.InvalidDocument(err, "Page %d of the PDF could not be read: it is damaged.", req.page)
	}
	return ph, writeAcroForm(doc, u, acroForm, fieldRef)
}

// writeSigDict writes the signature dictionary as object nr and returns
// where its placeholders are in u's bytes.
func writeSigDict(u *incrementalUpdate, nr int, req *signRequest) sigPlaceholders {
	contentsLen := 2*cmsSize(req.signer) + 2
	var b strings.Builder
	fmt.Fprintf(&b, "<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /%s /ByteRange ", req.format)
	brAt := b.Len()
	b.WriteString("[0 0 0 0" + strings.Repeat(" ", byteRangeWidth-len("[0 0 0 0]")) + "]")
	b.WriteString(" /Contents ")
	contentsAt := b.Len()
	b.WriteString("<" + strings.Repeat("0", contentsLen-2) + ">")
	fmt.Fprintf(&b, " /M %s /Name %s", sigText(pdfDate(req)), sigText(req.signerName()))
	for _, e := range [][2]string{{"Reason", req.reason}, {"Location", req.location}, {"ContactInfo", req.contact}} {
		if e[1] != "" {
			fmt.Fprintf(&b, " /%s %s", e[0], sigText(e[1]))
		}
	}
	b.WriteString(" >>")
	start := u.buf.Len() + len(fmt.Sprintf("%d 0 obj\n", nr))
	u.writeObject(nr, 0, b.String())
	return sigPlaceholders{byteRange: start + brAt, contents: start + contentsAt, contentsLen: contentsLen}
}

// pdfDate is the signing time as a PDF date, in UTC.
func pdfDate(req *signRequest) string {
	return req.when.UTC().Format("D:20060102150405+00'00'")
}

// readAcroForm returns the catalog's interactive form dictionary (nil if
// none) and its fields.
func readAcroForm(doc *model.Context) (types.Dict, types.Array, error) {
	root, err := doc.Catalog()
	if err != nil {
		return nil, nil, docmill.InvalidDocument(err, "The PDF's catalog could not be read: it is damaged.")
	}
	obj, ok := root.Find("AcroForm")
	if !ok || obj == nil {
		return nil, nil, nil
	}
	form, err := doc.DereferenceDict(obj)
	if err != nil {
		return nil, nil, docmill.InvalidDocument(err, "The PDF's form could not be read: it is damaged.")
	}
	if form == nil {
		return nil, nil, nil
	}
	fields, err := doc.DereferenceArray(form["Fields"])
	if err != nil {
		return nil, nil, docmill.InvalidDocument(err, "The PDF's form could not be read: it is damaged.")
	}
	return form, fields, nil
}

// fieldName returns "SignatureN" for the first N no top-level field of
// fields is named.
func fieldName(doc *model.Context, fields types.Array) string {
	taken := map[string]bool{}
	for _, f := range fields {
		d, err := doc.DereferenceDict(f)
		if err != nil || d == nil {
			continue
		}
		if s, err := types.StringOrHexLiteral(d["T"]); err == nil && s != nil {
			taken[*s] = true
		}
	}
	for n := 1; ; n++ {
		if name := "Signature" + strconv.Itoa(n); !taken[name] {
			return name
		}
	}
}

// writeAcroForm adds the field fieldRef to the interactive form (made if
// the document has none) and sets its /SigFlags to 3 (signatures exist,
// append only), rewriting the form dictionary, or the catalog when the
// form is in it.
func writeAcroForm(doc *model.Context, u *incrementalUpdate, form types.Dict, fieldRef types.IndirectRef) error {
	root, err := doc.Catalog()
	if err != nil {
		return docmill.InvalidDocument(err, "The PDF's catalog could not be read: it is damaged.")
	}
	rootRef := *doc.Root
	if form == nil {
		nr := u.reserve()
		u.writeObject(nr, 0, types.Dict{"Fields": types.Array{fieldRef}, "SigFlags": types.Integer(3)}.PDFString())
		r := root.Clone().(types.Dict)
		r["AcroForm"] = *types.NewIndirectRef(nr, 0)
		u.writeObject(rootRef.ObjectNumber.Value(), rootRef.GenerationNumber.Value(), r.PDFString())
		return nil
	}
	f := form.Clone().(types.Dict)
	flags := 0
	if n, ok := f["SigFlags"].(types.Integer); ok {
		flags = n.Value()
	}
	f["SigFlags"] = types.Integer(flags | 3)
	if f, err = addToArray(doc, u, f, types.IndirectRef{}, "Fields", fieldRef); err != nil {
		return docmill.InvalidDocument(err, "The PDF's form could not be read: it is damaged.")
	}
	if ref, ok := root["AcroForm"].(types.IndirectRef); ok {
		u.writeObject(ref.ObjectNumber.Value(), ref.GenerationNumber.Value(), f.PDFString())
		return nil
	}
	r := root.Clone().(types.Dict)
	r["AcroForm"] = f
	u.writeObject(rootRef.ObjectNumber.Value(), rootRef.GenerationNumber.Value(), r.PDFString())
	return nil
}

// addToArray appends item to the array d[key] (made if absent) and
// returns d as it now is. An array of its own object is rewritten, and d
// stays as it was; an array in d changes (a copy of) d, which is then
// rewritten as object ref if ref is set (otherwise the caller writes it).
//
// A reference to an object the file does not hold (a free or unknown
// number, or another generation) counts as no array: rewriting it would
// write an object the update's trailer does not count (/Size), or one
// whose number the update gives to an object of its own.
func addToArray(doc *model.Context, u *incrementalUpdate, d types.Dict, ref types.IndirectRef, key string, item types.Object) (types.Dict, error) {
	if own, ok := d[key].(types.IndirectRef); ok && heldObject(doc, own) {
		arr, err := doc.DereferenceArray(own)
		if err != nil {
			return nil, err
		}
		arr = append(append(types.Array{}, arr...), item)
		u.writeObject(own.ObjectNumber.Value(), own.GenerationNumber.Value(), arr.PDFString())
		return d, nil
	}
	arr, _ := d[key].(types.Array)
	d = d.Clone().(types.Dict)
	d[key] = append(append(types.Array{}, arr...), item)
	if ref.ObjectNumber.Value() != 0 {
		u.writeObject(ref.ObjectNumber.Value(), ref.GenerationNumber.Value(), d.PDFString())
	}
	return d, nil
}

// heldObject reports whether the file holds the object ref refers to: a
// number in use, of ref's generation.
func heldObject(doc *model.Context, ref types.IndirectRef) bool {
	e, ok := doc.Find(ref.ObjectNumber.Value())
	return ok && e != nil && !e.Free && e.Object != nil && e.Generation != nil && *e.Generation == ref.GenerationNumber.Value()
}
