package pdfops

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// maxTextLayerObjects bounds the objects one text layer page brings
// along (tesseract's are its glyphless font: five or so).
const maxTextLayerObjects = 64

// textLayerName is the name of the text layer's form XObject in a
// replaced page's resources, beside the image's Im0.
const textLayerName = "Tx0"

// textLayers is the text-only PDF that tesseract recognized in the page
// images of a redact-pages run: its page i is the invisible text of the
// i-th image, in tesseract's units (the image's pixels at its dpi).
type textLayers struct {
	doc *model.Context
}

// readTextLayers reads the text-only PDF f, which must have one page per
// replaced page (want).
func readTextLayers(ctx context.Context, b *budget, f docmill.LocalFile, want int) (*textLayers, error) {
	doc, err := readDocument(ctx, b, f, newConfig(model.ADDWATERMARKS), "The text layer")
	if err != nil {
		return nil, err
	}
	if doc.PageCount != want {
		return nil, fmt.Errorf("pdfops: redact-pages got a text layer of %d pages for %d images", doc.PageCount, want)
	}
	return &textLayers{doc: doc}, nil
}

// addTo makes page i (from 1) of the text layer a form XObject of dst,
// its resources copied along, and returns the content that draws it over
// a page of w x h points (the page's text layer, stretched from its own
// size to the page's: they differ by the rounding of the image's
// pixels), with the resource dictionary that names it.
func (l *textLayers) addTo(dst *model.Context, i int, w, h float64) (content string, xobject types.IndirectRef, err error) {
	page, _, inh, err := l.doc.PageDict(i, false)
	if err != nil || page == nil || inh == nil || inh.MediaBox == nil {
		return "", types.IndirectRef{}, fmt.Errorf("pdfops: text layer page %d: %v", i, err)
	}
	box := normalized(inh.MediaBox)
	if !(box.width() > 0) || !(box.height() > 0) {
		return "", types.IndirectRef{}, fmt.Errorf("pdfops: text layer page %d has no size", i)
	}
	text, err := l.doc.PageContent(page, i)
	if errors.Is(err, model.ErrNoContent) {
		text, err = nil, nil // no word recognized
	}
	if err != nil {
		return "", types.IndirectRef{}, fmt.Errorf("pdfops: text layer page %d content: %w", i, err)
	}
	c := &objectCopier{src: l.doc.XRefTable, dst: dst.XRefTable, copied: map[int]types.IndirectRef{}}
	var res types.Object = types.Dict{}
	if inh.Resources != nil {
		if res, err = c.copy(inh.Resources, 0); err != nil {
			return "", types.IndirectRef{}, err
		}
	}
	form, err := dst.NewStreamDictForBuf(text)
	if err == nil {
		err = form.Encode()
	}
	if err != nil {
		return "", types.IndirectRef{}, fmt.Errorf("pdfops: text layer form: %w", err)
	}
	form.Dict["Type"] = types.Name("XObject")
	form.Dict["Subtype"] = types.Name("Form")
	form.Dict["BBox"] = types.NewNumberArray(box.llx, box.lly, box.urx, box.ury)
	form.Dict["Resources"] = res
	ref, err := dst.IndRefForNewObject(*form)
	if err != nil {
		return "", types.IndirectRef{}, fmt.Errorf("pdfops: text layer form: %w", err)
	}
	sx, sy := w/box.width(), h/box.height()
	num := func(v float64) string {
		v = math.Round(v*1e6) / 1e6
		if v == 0 {
			v = 0 // no "-0"
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	content = fmt.Sprintf(" q %s 0 0 %s %s %s cm /%s Do Q", num(sx), num(sy), num(-box.llx*sx), num(-box.lly*sy), textLayerName)
	return content, *ref, nil
}

// objectCopier copies objects from one document's cross-reference table
// into another's, each indirect object once (copied maps its number in
// src to its reference in dst), at most maxTextLayerObjects of them and
// maxCopyDepth deep: the text layer is an engine's output, trusted no
// more than its input. Filled fields' drawings (drawFieldTexts) are
// copied with it too.
type objectCopier struct {
	src, dst *model.XRefTable
	copied   map[int]types.IndirectRef
	// limit replaces maxTextLayerObjects when it is not 0.
	limit int
}

// maxCopyDepth bounds the nesting of objects copied from one document
// into another (a text layer, a signature's drawing): they nest a few
// levels.
const maxCopyDepth = 32

// copy returns o as an object of dst.
func (c *objectCopier) copy(o types.Object, depth int) (types.Object, error) {
	if depth > maxCopyDepth {
		return nil, fmt.Errorf("pdfops: text layer nested over %d deep", maxCopyDepth)
	}
	switch o := o.(type) {
	case types.IndirectRef:
		n := o.ObjectNumber.Value()
		if ref, ok := c.copied[n]; ok {
			return ref, nil
		}
		if limit := cmp.Or(c.limit, maxTextLayerObjects); len(c.copied) >= limit {
			return nil, fmt.Errorf("pdfops: copy of over %d objects", limit)
		}
		target, err := c.src.Dereference(o)
		if err != nil {
			return nil, fmt.Errorf("pdfops: text layer object %d: %w", n, err)
		}
		// Reserve the number first, so that a loop back to o ends here.
		ref, err := c.dst.IndRefForNewObject(types.Dict{})
		if err != nil {
			return nil, err
		}
		c.copied[n] = *ref
		v, err := c.copy(target, depth+1)
		if err != nil {
			return nil, err
		}
		entry, ok := c.dst.FindTableEntryLight(ref.ObjectNumber.Value())
		if !ok {
			return nil, fmt.Errorf("pdfops: text layer object %d was not added", n)
		}
		entry.Object = v
		return *ref, nil
	case types.StreamDict:
		d, err := c.copy(o.Dict, depth+1)
		if err != nil {
			return nil, err
		}
		sd := o
		sd.Dict = d.(types.Dict)
		sd.StreamLengthObjNr = nil
		if sd.Raw == nil && sd.Content != nil {
			if err := sd.Encode(); err != nil {
				return nil, fmt.Errorf("pdfops: text layer stream: %w", err)
			}
		}
		n := int64(len(sd.Raw))
		sd.StreamLength = &n
		sd.Dict["Length"] = types.Integer(n)
		return sd, nil
	default:
		return copyEach(o, depth, c.copy)
	}
}

// copyEach returns a dictionary or an array o with copy applied to each
// of its values (one level deeper than depth), and any other direct
// object (a name, number, string, boolean or null) as it is: the part of
// a copy between documents that does not depend on where it writes.
func copyEach(o types.Object, depth int, copy func(types.Object, int) (types.Object, error)) (types.Object, error) {
	switch o := o.(type) {
	case types.Dict:
		d := types.Dict{}
		for k, v := range o {
			cv, err := copy(v, depth+1)
			if err != nil {
				return nil, err
			}
			d[k] = cv
		}
		return d, nil
	case types.Array:
		a := make(types.Array, len(o))
		for i, v := range o {
			cv, err := copy(v, depth+1)
			if err != nil {
				return nil, err
			}
			a[i] = cv
		}
		return a, nil
	}
	return o, nil
}
