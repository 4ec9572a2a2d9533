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
// asks for is not drawn. A widget whose rectangle is empty or past a
// page's size keeps no appearance, and viewers draw it.
func drawFieldAppearances(ctx context.Context, doc *model.Context, fields []drawnField, defaultDA string) (int, error) {
	release, err := acquireStampFont()
	if err != nil {
		return 0, err
	}
	defer release()
	drawn := 0
	for _, f := range fields {
		for _, w := range f.node.widgets {
			delete(w, "AP")
			r := rectOf(doc, w)
			if r == nil {
				continue
			}
			width, height := math.Abs(r[2]-r[0]), math.Abs(r[3]-r[1])
			if !(width >= 1 && height >= 1 && width <= maxFieldSide && height <= maxFieldSide) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return drawn, err
			}
			ap, err := drawFieldText(ctx, doc, f, width, height, defaultDA)
			if err != nil {
				return drawn, err
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

// drawFieldText adds to doc the appearance stream of f's text in a widget
// of width by height points, and returns its reference.
func drawFieldText(ctx context.Context, doc *model.Context, f drawnField, width, height float64, defaultDA string) (*types.IndirectRef, error) {
	stamp := textStamp{text: f.text}
	w1, h1, err := stamp.size(1)
	if err != nil {
		return nil, fmt.Errorf("pdfops: measure field text: %w", err)
	}
	size := daFontSize(f.node.dict, defaultDA)
	if size == 0 {
		size = math.Min(fieldAutoSize, math.Min((height-2*fieldPad)/math.Max(h1, 0.01), (width-2*fieldPad)/math.Max(w1, 0.01)))
	}
	size = math.Max(fieldMinSize, math.Floor(size))
	wm := textAtTopLeft(f.text, int(size), fieldPad)
	top := float64(fieldPad)
	if f.node.flags&flagMultiline == 0 {
		top = math.Max(0, (height-h1*size)/2)
	}
	switch q, _ := f.node.dict.Find("Q"); fmt.Sprint(q) {
	case "1":
		wm.Pos, wm.Dx = types.TopCenter, 0
	case "2":
		wm.Pos, wm.Dx = types.TopRight, -fieldPad
	}
	wm.Dy = -top
	form, err := drawText(ctx, wm, width, height)
	if err != nil {
		return nil, err
	}
	c := &objectCopier{src: form.doc.XRefTable, dst: doc.XRefTable, copied: map[int]types.IndirectRef{}}
	res, err := c.copy(form.resources, 0)
	if err != nil {
		return nil, fmt.Errorf("pdfops: field appearance: %w", err)
	}
	content := append([]byte("/Tx BMC q 0 0 "+strconv.FormatFloat(width, 'f', 2, 64)+" "+strconv.FormatFloat(height, 'f', 2, 64)+" re W n\n"),
		append(slices.Clip(form.content), "\nQ EMC"...)...)
	sd, err := doc.NewStreamDictForBuf(content)
	if err != nil {
		return nil, err
	}
	sd.Dict["Type"] = types.Name("XObject")
	sd.Dict["Subtype"] = types.Name("Form")
	sd.Dict["BBox"] = types.NewNumberArray(0, 0, width, height)
	sd.Dict["Resources"] = res
	if err := sd.Encode(); err != nil {
		return nil, err
	}
	return doc.IndRefForNewObject(*sd)
}

// drawText draws the text watermark wm on a page of w by h points (the
// stamp font embedded), writes that page and reads it back, so that its
// streams are encoded as a file holds them, and returns the page's
// content and resources. The stamp font must be held (acquireStampFont).
func drawText(ctx context.Context, wm *model.Watermark, w, h float64) (*signatureForm, error) {
	doc, err := pdfcpu.ReadWithContext(ctx, bytes.NewReader(blankPagesPDF(1, w, h)), newStampConfig())
	if err == nil {
		err = doc.EnsurePageCount()
	}
	if err == nil {
		err = pdfcpu.AddWatermarksMap(doc, map[int]*model.Watermark{1: wm})
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
