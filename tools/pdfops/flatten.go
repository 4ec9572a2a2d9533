package pdfops

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// FlattenStep is flatten-pdf's first route, run in the PDF helper: when
// every annotation of the document carries the appearance a viewer
// shows (or shows nothing), it draws each into its page, as qpdf's
// --flatten-annotations=all does, keeps the links (rebuilt from plain
// values, as RestoreLinksStep copies them) and removes the form, in one
// pass over the document and without starting an engine. Its output is
// the flattened document with "pages" and "links" in meta (a link with an
// appearance has it drawn too). A document it
// would draw differently from qpdf's route is returned as it is, with
// "undrawn" in meta counting why, for the caller to take that route: an
// annotation without an appearance (but a button, which no route draws,
// and an empty text field of a form that asks for appearances, which
// qpdf's draws empty), a text or choice field whose appearance qpdf
// would make anew (NeedAppearances), a state the annotation does not
// name, flags or optional content under which viewers differ, and an
// encrypted document, which qpdf's route decrypts.
func FlattenStep() *docmill.EngineStep {
	return onePDFStep("flatten-appearances", model.ADDANNOTATIONS, runFlatten)
}

// Annotation flags (ISO 32000-2, table 167) the flattening does not
// follow: NoZoom and NoRotate ask a viewer to keep the annotation's size
// and turn whatever the page's.
const (
	flagNoZoom   = 1 << 3
	flagNoRotate = 1 << 4
)

func runFlatten(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (*docmill.RunOutput, error) {
	declined := func(n int) (*docmill.RunOutput, error) {
		f := in.Files[0]
		return &docmill.RunOutput{Path: f.Path, Filename: f.Filename, ContentType: pdfContentType,
			Meta: map[string]any{"pages": doc.PageCount, "undrawn": n}}, nil
	}
	if doc.Encrypt != nil {
		return declined(1)
	}
	l, err := newLinker(doc, doc)
	if err != nil {
		return nil, err
	}
	f := &flattener{doc: doc, generated: needsAppearances(doc), l: l}
	pages := make([]pageFlattening, doc.PageCount)
	undrawn := 0
	for p := 1; p <= doc.PageCount; p++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		pf, n, err := f.plan(p)
		if err != nil {
			return nil, err
		}
		pages[p-1], undrawn = pf, undrawn+n
	}
	if undrawn > 0 {
		return declined(undrawn)
	}
	links, err := f.apply(pages)
	if err != nil {
		return nil, err
	}
	delete(doc.RootDict, "AcroForm")
	return writeOutput(doc, in.WorkDir, "flattened.pdf", in.Files[0].Filename, map[string]any{"pages": doc.PageCount, "links": links})
}

// flattener draws a document's annotations into its pages: generated is
// the form's NeedAppearances, l rebuilds the links kept, links counts
// them (at most maxLinks).
type flattener struct {
	doc       *model.Context
	generated bool
	l         *linker
	links     int
}

// pageFlattening is what flattening does to one page: the appearances
// drawn into it and the links left on it.
type pageFlattening struct {
	draws []appearanceDraw
	links []types.Dict
}

// appearanceDraw is one appearance stream drawn into a page with the
// matrix that puts its bounding box on the annotation's rectangle.
type appearanceDraw struct {
	form types.IndirectRef
	cm   [6]float64
}

// plan reads page p's annotations and returns what flattening draws and
// keeps, and how many annotations it cannot draw as qpdf's route would.
func (f *flattener) plan(p int) (pageFlattening, int, error) {
	var pf pageFlattening
	d, _, _, err := f.doc.PageDict(p, false)
	if err != nil || d == nil {
		return pf, 0, docmill.InvalidDocument(err, "The file's pages could not be read: it is damaged.")
	}
	annots, err := f.doc.DereferenceArray(d["Annots"])
	if err != nil {
		return pf, 1, nil
	}
	undrawn := 0
	for _, a := range annots {
		ad, err := f.doc.DereferenceDict(a)
		if err != nil || ad == nil {
			undrawn++
			continue
		}
		switch s := ad.Subtype(); {
		case s != nil && *s == "Link":
			if link := f.l.link(ad); link != nil && f.links < maxLinks {
				pf.links = append(pf.links, link)
				f.links++
			}
			// A link that shows an appearance (a box, a picture) has it
			// drawn as well, as qpdf's route draws it before the link
			// is put back.
			if _, shown := ad.Find("AP"); !shown {
				continue
			}
		case s != nil && *s == "Popup":
			continue
		}
		draw, drawn, ok := f.appearance(ad)
		switch {
		case !ok:
			undrawn++
		case drawn:
			pf.draws = append(pf.draws, draw)
		}
	}
	return pf, undrawn, nil
}

// appearance returns how annotation a is drawn: drawn false when it
// shows nothing, ok false when it cannot be drawn as qpdf's route would.
func (f *flattener) appearance(a types.Dict) (draw appearanceDraw, drawn, ok bool) {
	if flags, err := f.doc.DereferenceInteger(a["F"]); err != nil || (flags != nil && flags.Value()&(undrawnFlags|flagNoZoom|flagNoRotate) != 0) {
		return draw, false, false
	}
	if _, found := a.Find("OC"); found {
		return draw, false, false
	}
	ap, err := f.doc.DereferenceDict(a["AP"])
	if err != nil {
		return draw, false, false
	}
	widgetType := ""
	if isWidget(a) {
		widgetType = inheritedFieldType(f.doc, a)
	}
	if ap == nil {
		switch {
		case widgetType == "Btn":
			return draw, false, true
		case widgetType == "Tx" && f.generated:
			return draw, false, f.emptyValue(a)
		}
		return draw, false, false
	}
	if f.generated && (widgetType == "Tx" || widgetType == "Ch") {
		return draw, false, false // qpdf's route makes a new one
	}
	ref, present, ok := f.normalAppearance(a, ap)
	if !ok || !present {
		return draw, false, ok
	}
	cm, ok := f.placement(a, ref)
	return appearanceDraw{form: ref, cm: cm}, ok, ok
}

// normalAppearance returns the reference to a's normal appearance: the
// one stream, or the one of its state (AS) among several (placement
// checks that it is a stream); present false when the state has none
// (nothing is drawn), ok false when a cannot be drawn.
func (f *flattener) normalAppearance(a, ap types.Dict) (ref types.IndirectRef, present, ok bool) {
	n := ap["N"]
	if states, err := f.doc.DereferenceDict(n); err == nil && states != nil {
		as := a.NameEntry("AS")
		if as == nil {
			return ref, false, false
		}
		if n, present = states[*as]; !present {
			return ref, false, true
		}
	}
	ref, isRef := n.(types.IndirectRef)
	return ref, isRef, isRef
}

// placement returns the matrix that puts the form XObject ref's bounding
// box, as its own matrix turns it, on annotation a's rectangle (ISO
// 32000-2, 12.5.5), and marks ref a form XObject, which an appearance
// stream may not say it is; false when ref is not a stream or the two
// boxes are not usable.
func (f *flattener) placement(a types.Dict, ref types.IndirectRef) ([6]float64, bool) {
	sd, _, err := f.doc.DereferenceStreamDict(ref)
	if err != nil || sd == nil {
		return [6]float64{}, false
	}
	rect, ok1 := f.numbers(a["Rect"], 4)
	bbox, ok2 := f.numbers(sd.Dict["BBox"], 4)
	m := []float64{1, 0, 0, 1, 0, 0}
	if o, found := sd.Dict.Find("Matrix"); found {
		var ok bool
		if m, ok = f.numbers(o, 6); !ok {
			return [6]float64{}, false
		}
	}
	if !ok1 || !ok2 {
		return [6]float64{}, false
	}
	cm, ok := appearanceMatrix([4]float64(bbox), [6]float64(m), [4]float64(rect))
	if ok {
		sd.Dict["Type"], sd.Dict["Subtype"] = types.Name("XObject"), types.Name("Form")
	}
	return cm, ok
}

// numbers reads o as an array of n finite numbers.
func (f *flattener) numbers(o types.Object, n int) ([]float64, bool) {
	arr, err := f.doc.DereferenceArray(o)
	if err != nil || len(arr) != n {
		return nil, false
	}
	out := make([]float64, n)
	for i, e := range arr {
		v, err := f.doc.DereferenceNumber(e)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// emptyValue reports whether text field widget a, or the field it
// belongs to, holds no value.
func (f *flattener) emptyValue(a types.Dict) bool {
	d := a
	for range maxFieldDepth {
		if v, found := d.Find("V"); found {
			s, err := f.doc.DereferenceText(v)
			return err == nil && s == ""
		}
		parent, err := f.doc.DereferenceDict(d["Parent"])
		if err != nil || parent == nil {
			return true
		}
		d = parent
	}
	return false
}

// appearanceMatrix returns the matrix that maps bbox, transformed by m,
// onto rect (ISO 32000-2, 12.5.5: the transformed box's bounds are
// scaled and moved to the rectangle's); ok false when either is empty.
func appearanceMatrix(bbox [4]float64, m [6]float64, rect [4]float64) (cm [6]float64, ok bool) {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, c := range [][2]float64{{bbox[0], bbox[1]}, {bbox[0], bbox[3]}, {bbox[2], bbox[1]}, {bbox[2], bbox[3]}} {
		x, y := m[0]*c[0]+m[2]*c[1]+m[4], m[1]*c[0]+m[3]*c[1]+m[5]
		minX, maxX = min(minX, x), max(maxX, x)
		minY, maxY = min(minY, y), max(maxY, y)
	}
	rx0, rx1 := min(rect[0], rect[2]), max(rect[0], rect[2])
	ry0, ry1 := min(rect[1], rect[3]), max(rect[1], rect[3])
	if maxX-minX <= 0 || maxY-minY <= 0 || rx1-rx0 <= 0 || ry1-ry0 <= 0 {
		return cm, false
	}
	sx, sy := (rx1-rx0)/(maxX-minX), (ry1-ry0)/(maxY-minY)
	return [6]float64{sx, 0, 0, sy, rx0 - minX*sx, ry0 - minY*sy}, true
}

// apply draws the planned appearances into their pages, leaves only the
// links on them and returns how many links were kept.
func (f *flattener) apply(pages []pageFlattening) (int, error) {
	var open *types.IndirectRef
	links := 0
	for i, pf := range pages {
		d, _, attrs, err := f.doc.PageDict(i+1, false)
		if err != nil || d == nil || attrs == nil {
			return 0, docmill.InvalidDocument(err, "The file's pages could not be read: it is damaged.")
		}
		if err := f.keepLinks(d, pf.links); err != nil {
			return 0, err
		}
		links += len(pf.links)
		if len(pf.draws) == 0 {
			continue
		}
		if open == nil {
			if open, err = newContentStream(f.doc, "q\n"); err != nil {
				return 0, err
			}
		}
		if err := f.drawPage(d, attrs, *open, pf.draws); err != nil {
			return 0, docmill.InvalidDocument(err, "The file's page %d could not be read: it is damaged.", i+1)
		}
	}
	return links, nil
}

// keepLinks makes links page d's only annotations.
func (f *flattener) keepLinks(d types.Dict, links []types.Dict) error {
	delete(d, "Annots")
	var refs types.Array
	for _, link := range links {
		ir, err := f.doc.IndRefForNewObject(link)
		if err != nil {
			return fmt.Errorf("pdfops: flatten: %w", err)
		}
		refs = append(refs, *ir)
	}
	if len(refs) > 0 {
		d["Annots"] = refs
	}
	return nil
}

// drawPage names the appearances in page d's resources and draws them
// after its content, which open and a Q bracket.
func (f *flattener) drawPage(d types.Dict, attrs *model.InheritedPageAttrs, open types.IndirectRef, draws []appearanceDraw) error {
	res, err := ownPageResources(f.doc, d, attrs)
	if err != nil {
		return err
	}
	xobjects, err := ownSubDict(f.doc, res, "XObject")
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("Q\n")
	named := map[types.IndirectRef]string{}
	for _, dr := range draws {
		name, ok := named[dr.form]
		if !ok {
			name = freeName(xobjects, "DmFlat")
			xobjects[name], named[dr.form] = dr.form, name
		}
		b.WriteString("q ")
		for _, v := range dr.cm {
			b.WriteString(fmtContentNum(v) + " ")
		}
		b.WriteString("cm /" + name + " Do Q\n")
	}
	draw, err := newContentStream(f.doc, b.String())
	if err != nil {
		return err
	}
	return wrapPageContents(f.doc, d, open, *draw)
}
