package pdfops

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Field flags of text fields (ISO 32000-1, 12.7.4.3).
const (
	flagMultiline = 1 << 12
	flagPassword  = 1 << 13
)

// How a field's value is drawn: at the size its /DA asks, or, when that
// is 0 (auto), at most fieldAutoSize points and as large as the widget
// takes, never under fieldMinSize; fieldPad points inside its edges.
const (
	fieldAutoSize = 12
	fieldMinSize  = 4
	fieldPad      = 2
	// maxFieldSide bounds a widget's side drawn, in points: a page is
	// at most 14,400 points wide.
	maxFieldSide = 14400
	// maxFieldDrawings bounds the fields one fill draws (all in one
	// pdfcpu document, a page each); widgets of fields past it are left
	// to viewers.
	maxFieldDrawings = 2000
)

// fontSizeInDA finds the size of a default appearance string's Tf.
var fontSizeInDA = regexp.MustCompile(`([0-9]*\.?[0-9]+)\s+Tf`)

// drawnField is a filled text or choice field and the text its widgets
// show.
type drawnField struct {
	node *fieldNode
	text string
}

// drawnText is the text the widgets of field n show for v: the value, a
// list box's choices a line each, a password as asterisks.
func drawnText(n *fieldNode, text string, list []string) string {
	if len(list) > 0 {
		text = strings.Join(list, "\n")
	}
	if n.ft == "Tx" && n.flags&flagPassword != 0 {
		return strings.Repeat("*", len([]rune(text)))
	}
	return text
}

// drawFieldAppearances gives every widget of fields a normal appearance
// of its field's text, drawn with the stamp font (Latin, Greek,
// Cyrillic), and turns /NeedAppearances off, so that no program
// replaces them: qpdf, which draws the other values, writes "?" for
// anything beyond Latin-1. defaultDA is the AcroForm's /DA, which a
// field without one inherits. It returns how many widgets it drew.
//
// The text is drawn as qpdf draws a value: one line vertically centred,
// or lines from the top of a multi-line field, left, centred or right
// by the field's /Q, in black; a border or background the widget's /MK
// asks for is not drawn. Each field's text is drawn once
// (drawFieldTexts) and each widget's appearance scales and places that
// drawing. A widget whose rectangle is empty or past a page's size, or
// of a field past maxFieldDrawings, keeps no appearance, and viewers
// draw it.
func drawFieldAppearances(ctx context.Context, doc *model.Context, fields []drawnField, defaultDA string) (int, error) {
	release, err := acquireStampFont()
	if err != nil {
		return 0, err
	}
	defer release()
	forms, err := drawFieldTexts(ctx, doc, fields)
	if err != nil {
		return 0, err
	}
	drawn := 0
	// Widgets of one size showing one field share an appearance.
	type drawing struct {
		field         *fieldNode
		width, height float64
	}
	made := map[drawing]*types.IndirectRef{}
	for _, f := range fields {
		form, ok := forms[f.node]
		for _, w := range f.node.widgets {
			delete(w, "AP")
			r := rectOf(doc, w)
			if !ok || r == nil {
				continue
			}
			width, height := math.Round(math.Abs(r[2]-r[0])*100)/100, math.Round(math.Abs(r[3]-r[1])*100)/100
			if !(width >= 1 && height >= 1 && width <= maxFieldSide && height <= maxFieldSide) {
				continue
			}
			key := drawing{f.node, width, height}
			ap, ok := made[key]
			if !ok {
				if ap, err = fieldAppearance(doc, f.node, form, width, height, defaultDA); err != nil {
					return drawn, err
				}
				made[key] = ap
			}
			w["AP"] = types.Dict{"N": *ap}
			drawn++
		}
	}
	if drawn > 0 {
		root, err := doc.Catalog()
		if err != nil {
			return drawn, err
		}
		if af, err := doc.DereferenceDict(root["AcroForm"]); err == nil && af != nil {
			af["NeedAppearances"] = types.Boolean(false)
		}
	}
	return drawn, nil
}

// textForm is a field's text drawn at fieldBaseSize points, top left
// in a form XObject of doc, and the extent of that text at 1 point.
type textForm struct {
	ref    types.IndirectRef
	top    float64 // the text's top in the form's space
	w1, h1 float64
}

// fieldBaseSize is the size the fields' texts are drawn at, scaled
// to each widget's.
const fieldBaseSize = 12

// drawFieldTexts draws the text of each of fields (the first
// maxFieldDrawings) once, all on the pages of one document so that the
// font is embedded once and pdfcpu reads and writes once, and returns
// the form XObjects added to doc.
func drawFieldTexts(ctx context.Context, doc *model.Context, fields []drawnField) (map[*fieldNode]textForm, error) {
	forms := map[*fieldNode]textForm{}
	var order []drawnField
	var w, h float64
	for _, f := range fields {
		if _, ok := forms[f.node]; ok || len(order) >= maxFieldDrawings {
			continue
		}
		w1, h1, err := textStamp{text: f.text}.size(1)
		if err != nil {
			return nil, fmt.Errorf("pdfops: measure field text: %w", err)
		}
		forms[f.node] = textForm{w1: w1, h1: h1}
		order = append(order, f)
		w, h = max(w, w1*fieldBaseSize+2), max(h, h1*fieldBaseSize+2)
	}
	if len(order) == 0 {
		return forms, nil
	}
	marks := map[int]*model.Watermark{}
	for i, f := range order {
		marks[i+1] = textAtTopLeft(f.text, fieldBaseSize, 0)
	}
	src, err := drawTexts(ctx, marks, w, h)
	if err != nil {
		return nil, err
	}
	c := &objectCopier{src: src.XRefTable, dst: doc.XRefTable, copied: map[int]types.IndirectRef{}, limit: 16 * maxFieldDrawings}
	for i, f := range order {
		page, _, _, err := src.PageDict(i+1, false)
		if err != nil || page == nil {
			return nil, fmt.Errorf("pdfops: field text page: %v", err)
		}
		content, err := src.PageContent(page, i+1)
		if err != nil {
			return nil, fmt.Errorf("pdfops: field text content: %w", err)
		}
		res, err := c.copy(page["Resources"], 0)
		if err != nil {
			return nil, fmt.Errorf("pdfops: field text resources: %w", err)
		}
		ref, err := newForm(doc, content, w, h, res)
		if err != nil {
			return nil, err
		}
		tf := forms[f.node]
		tf.ref, tf.top = *ref, h
		forms[f.node] = tf
	}
	return forms, nil
}

// fieldAppearance adds to doc the appearance stream of field n in a
// widget of width by height points, showing form, and returns its
// reference.
func fieldAppearance(doc *model.Context, n *fieldNode, form textForm, width, height float64, defaultDA string) (*types.IndirectRef, error) {
	size := daFontSize(n.dict, defaultDA)
	if size == 0 {
		size = math.Min(fieldAutoSize, math.Min((height-2*fieldPad)/math.Max(form.h1, 0.01), (width-2*fieldPad)/math.Max(form.w1, 0.01)))
	}
	size = math.Max(fieldMinSize, math.Floor(size))
	top := float64(fieldPad)
	if n.flags&flagMultiline == 0 {
		top = math.Max(0, (height-form.h1*size)/2)
	}
	x := float64(fieldPad)
	switch q, _ := n.dict.Find("Q"); fmt.Sprint(q) {
	case "1":
		x = (width - form.w1*size) / 2
	case "2":
		x = width - fieldPad - form.w1*size
	}
	s := size / fieldBaseSize
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }
	content := "/Tx BMC q 0 0 " + num(width) + " " + num(height) + " re W n " +
		num(s) + " 0 0 " + num(s) + " " + num(x) + " " + num(height-top-s*form.top) + " cm /Fld Do Q EMC"
	return newForm(doc, []byte(content), width, height, types.Dict{"XObject": types.Dict{"Fld": form.ref}})
}

// newForm adds to doc a form XObject of content, w by h points, with
// resources res. A short content is left uncompressed: a compressor
// costs more to set up than it saves on a few dozen bytes, for each of
// thousands of widgets.
func newForm(doc *model.Context, content []byte, w, h float64, res types.Object) (*types.IndirectRef, error) {
	sd := &types.StreamDict{Dict: types.NewDict(), Content: slices.Clip(content)}
	if len(content) > 256 {
		var err error
		if sd, err = doc.NewStreamDictForBuf(slices.Clip(content)); err != nil {
			return nil, err
		}
	}
	sd.Dict["Type"] = types.Name("XObject")
	sd.Dict["Subtype"] = types.Name("Form")
	sd.Dict["BBox"] = types.NewNumberArray(0, 0, w, h)
	sd.Dict["Resources"] = res
	if err := sd.Encode(); err != nil {
		return nil, err
	}
	return doc.IndRefForNewObject(*sd)
}

// drawText draws the text watermark wm on a page of w by h points (the
// stamp font embedded) with drawTexts, and returns the page's content
// and resources. The stamp font must be held (acquireStampFont).
func drawText(ctx context.Context, wm *model.Watermark, w, h float64) (*signatureForm, error) {
	doc, err := drawTexts(ctx, map[int]*model.Watermark{1: wm}, w, h)
	if err != nil {
		return nil, err
	}
	page, _, _, err := doc.PageDict(1, false)
	if err != nil || page == nil {
		return nil, fmt.Errorf("pdfops: text page: %v", err)
	}
	content, err := doc.PageContent(page, 1)
	if err != nil {
		return nil, fmt.Errorf("pdfops: text page content: %w", err)
	}
	return &signatureForm{doc: doc, resources: page["Resources"], content: content}, nil
}

// drawTexts draws each text watermark of marks on its page (numbered
// from 1) of a document of w by h points pages, the stamp font embedded
// once, writes it and reads it back, so that its streams are encoded as
// a file holds them. The stamp font must be held (acquireStampFont).
func drawTexts(ctx context.Context, marks map[int]*model.Watermark, w, h float64) (*model.Context, error) {
	doc, err := pdfcpu.ReadWithContext(ctx, bytes.NewReader(blankPagesPDF(len(marks), w, h)), newStampConfig())
	if err == nil {
		err = doc.EnsurePageCount()
	}
	if err == nil {
		err = pdfcpu.AddWatermarksMap(doc, marks)
	}
	var buf bytes.Buffer
	if err == nil {
		err = api.WriteContext(doc, &buf)
	}
	if err == nil {
		doc, err = pdfcpu.ReadWithContext(ctx, bytes.NewReader(buf.Bytes()), newConfig(model.ADDWATERMARKS))
	}
	if err == nil {
		err = doc.EnsurePageCount()
	}
	if err != nil {
		return nil, fmt.Errorf("pdfops: draw text: %w", err)
	}
	return doc, nil
}

// daFontSize is the font size of field d's default appearance (/DA, or
// defaultDA when it has none): 0 for auto, or when none is given.
func daFontSize(d types.Dict, defaultDA string) float64 {
	da := defaultDA
	if s, ok := d["DA"].(types.StringLiteral); ok {
		da = s.Value()
	}
	m := fontSizeInDA.FindAllStringSubmatch(da, -1)
	if len(m) == 0 {
		return 0
	}
	n, err := strconv.ParseFloat(m[len(m)-1][1], 64)
	if err != nil || n > 200 {
		return 0
	}
	return n
}
