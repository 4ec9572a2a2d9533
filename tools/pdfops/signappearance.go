package pdfops

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// How a visible signature is drawn: its text at signFontSize points (less
// when the page is too narrow, down to signMinFontSize), signPad points
// inside a thin frame.
const (
	signFontSize    = 9
	signMinFontSize = 4
	signPad         = 6
)

// maxSignBoxCoord bounds the coordinates of a page box a visible
// signature is placed on, in points (1e9 points is some 350 km). The
// widget's corners are the box's plus a few hundred points, written with
// two decimals: past about 1e13 a float64 cannot hold them (a page at
// 1e38 got a widget of zero size), and a box that is not finite (pdfcpu
// reads "nan" and 1e308 + 1e308 overflows) would write NaN or +Inf, which
// are no PDF numbers.
const maxSignBoxCoord = 1e9

// signableBox reports whether a visible signature can be placed on a
// page whose crop box is box: its coordinates are finite and within
// maxSignBoxCoord, and so are its width and height.
func signableBox(box *types.Rectangle) bool {
	for _, v := range []float64{box.LL.X, box.LL.Y, box.UR.X, box.UR.Y, box.Width(), box.Height()} {
		if math.IsNaN(v) || math.Abs(v) > maxSignBoxCoord {
			return false
		}
	}
	return true
}

// writeAppearance writes to u the appearance stream of the signature's
// widget, and returns the widget's rectangle and the stream's object
// number. An invisible signature's appearance is empty, its rectangle
// [0 0 0 0].
func writeAppearance(ctx context.Context, doc *model.Context, u *incrementalUpdate, req *signRequest) (types.Array, int, error) {
	nr := u.reserve()
	if !req.visible {
		u.writeStream(nr, types.Dict{"Type": types.Name("XObject"), "Subtype": types.Name("Form"),
			"BBox": types.NewNumberArray(0, 0, 0, 0), "Resources": types.Dict{}}, nil)
		return types.NewNumberArray(0, 0, 0, 0), nr, nil
	}
	release, err := acquireStampFont()
	if err != nil {
		return nil, 0, err
	}
	defer release()
	sizes, err := stampPageSizes(doc)
	if err != nil {
		return nil, 0, docmill.InvalidDocument(err, "The PDF's pages could not be measured: it is damaged.")
	}
	pbs, err := doc.PageBoundaries(nil)
	if err != nil || len(pbs) < req.page || len(sizes) < req.page || pbs[req.page-1].CropBox() == nil {
		return nil, 0, docmill.InvalidDocument(err, "Page %d of the PDF could not be read: it is damaged.", req.page)
	}
	crop := pbs[req.page-1].CropBox()
	if !signableBox(crop) {
		return nil, 0, docmill.InvalidDocument(fmt.Errorf("pdfops: crop box %v", crop),
			"Page %d of the PDF has a page box a visible signature cannot be placed on (coordinates that are not numbers, or beyond a billion points); sign it invisibly.", req.page)
	}
	page := sizes[req.page-1]
	text := req.appearanceText()
	stamp := textStamp{text: text}
	w1, h1, err := stamp.size(1)
	if err != nil {
		return nil, 0, fmt.Errorf("pdfops: measure signature text: %w", err)
	}
	room := page.width - 2*page.margin() - 2*signPad
	fontSize := math.Max(signMinFontSize, math.Min(signFontSize, math.Floor(room/w1)))
	w, h := math.Ceil(w1*fontSize)+2*signPad, math.Ceil(h1*fontSize)+2*signPad
	// The box must fit the page: one larger would be drawn partly off it
	// (a line of 400 letters at the smallest size is 1,500 points long).
	if w > page.width || h > page.height {
		if strings.TrimSpace(req.text) != "" {
			return nil, 0, docmill.ParamError(signTextParam, "takes %.0f by %.0f points at %.0f points a letter, more than page %d's %.0f by %.0f; use shorter or fewer lines",
				w, h, fontSize, req.page, page.width, page.height)
		}
		return nil, 0, docmill.ParamError(signPageParam, "is %d, a page of %.0f by %.0f points, too small for the visible signature's %.0f by %.0f; choose another page, or sign invisibly",
			req.page, page.width, page.height, w, h)
	}
	form, err := drawSignatureText(ctx, text, int(fontSize), w, h)
	if err != nil {
		return nil, 0, err
	}
	res, err := copyObject(form.doc, u, form.resources, map[int]int{}, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("pdfops: signature appearance: %w", err)
	}
	frame := fmt.Sprintf("q 0.15 0.25 0.6 RG 0.8 w 0.4 0.4 %.2f %.2f re S Q\n", w-0.8, h-0.8)
	d := types.Dict{"Type": types.Name("XObject"), "Subtype": types.Name("Form"), "BBox": types.NewNumberArray(0, 0, w, h), "Resources": res}
	if m := rotationMatrix(page.rot); m != nil {
		d["Matrix"] = m
	}
	u.writeStream(nr, d, append([]byte(frame), form.content...))
	return signatureRect(crop, page, stampSpotNamed(req.position), w, h), nr, nil
}

// appearanceText is the visible signature's text: the client's, or who
// signed, when, why and where.
func (r *signRequest) appearanceText() string {
	if strings.TrimSpace(r.text) != "" {
		return r.text
	}
	lines := []string{"Digitally signed by " + oneLineName(r.signerName()), "Date: " + r.when.Format("2006-01-02 15:04:05 UTC")}
	if r.reason != "" {
		lines = append(lines, "Reason: "+r.reason)
	}
	if r.location != "" {
		lines = append(lines, "Location: "+r.location)
	}
	return strings.Join(lines, "\n")
}

// maxDrawnNameRunes bounds the signer's name as a visible signature's
// default text draws it: X.509 bounds a common name to 64 characters, but
// certificates are parsed without that bound, and the client's own text
// is bounded (maxSignTextLines, 400 bytes) while the certificate's name
// is not.
const maxDrawnNameRunes = 64

// oneLineName returns name as one line of at most maxDrawnNameRunes
// characters: control characters (line breaks) become spaces, and a
// longer name is cut, ending with "...".
func oneLineName(name string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, name)
	if r := []rune(name); len(r) > maxDrawnNameRunes {
		name = string(r[:maxDrawnNameRunes-3]) + "..."
	}
	return name
}

// signatureForm is the drawing of a visible signature's text: the
// content and resources of a page of pdfcpu's document doc.
type signatureForm struct {
	doc       *model.Context
	resources types.Object
	content   []byte
}

// drawSignatureText draws text at fontSize on a page of w by h points as
// the compare report draws its text (textAtTopLeft, the stamp font
// embedded).
func drawSignatureText(ctx context.Context, text string, fontSize int, w, h float64) (*signatureForm, error) {
	return drawText(ctx, textAtTopLeft(text, fontSize, signPad), w, h)
}

// copyObject writes to u every object obj refers to in src, renumbered
// (done maps src's numbers to u's), and returns obj with its references
// renumbered.
func copyObject(src *model.Context, u *incrementalUpdate, obj types.Object, done map[int]int, depth int) (types.Object, error) {
	if depth > maxCopyDepth {
		return nil, fmt.Errorf("objects nest deeper than %d", maxCopyDepth)
	}
	if o, ok := obj.(types.IndirectRef); ok {
		old := o.ObjectNumber.Value()
		if nr, ok := done[old]; ok {
			return *types.NewIndirectRef(nr, 0), nil
		}
		nr := u.reserve()
		done[old] = nr
		target, err := src.Dereference(o)
		if err != nil {
			return nil, err
		}
		if sd, ok := target.(types.StreamDict); ok {
			d, err := copyObject(src, u, sd.Dict, done, depth+1)
			if err != nil {
				return nil, err
			}
			u.writeStream(nr, d.(types.Dict), sd.Raw)
		} else {
			c, err := copyObject(src, u, target, done, depth+1)
			if err != nil {
				return nil, err
			}
			body := "null"
			if c != nil {
				body = c.PDFString()
			}
			u.writeObject(nr, 0, body)
		}
		return *types.NewIndirectRef(nr, 0), nil
	}
	return copyEach(obj, depth, func(v types.Object, depth int) (types.Object, error) {
		return copyObject(src, u, v, done, depth)
	})
}

// rotationMatrix is the appearance's /Matrix on a page shown turned rot
// degrees clockwise: the drawing turned back, so that it reads upright.
func rotationMatrix(rot int) types.Array {
	switch rot {
	case 90:
		return types.NewNumberArray(0, 1, -1, 0, 0, 0)
	case 180:
		return types.NewNumberArray(-1, 0, 0, -1, 0, 0)
	case 270:
		return types.NewNumberArray(0, -1, 1, 0, 0, 0)
	}
	return nil
}

// signatureRect returns the widget's rectangle, in the page's default
// user space, of a w by h box at spot of page p (as a reader sees it,
// its crop box crop shown turned), margin from the edges it is near.
func signatureRect(crop *types.Rectangle, p stampPage, spot stampSpot, w, h float64) types.Array {
	m := p.margin()
	pick := func(s int, size, extent float64) float64 {
		switch s {
		case -1:
			return m
		case 1:
			return size - m - extent
		}
		return (size - extent) / 2
	}
	// The box's corners as seen, from the top left corner of the page.
	x0 := pick(spot.x, p.width, w)
	y0 := p.height - pick(spot.y, p.height, h) - h
	ax, ay := unturn(crop, p.rot, x0, y0)
	bx, by := unturn(crop, p.rot, x0+w, y0+h)
	return types.NewNumberArray(round2(math.Min(ax, bx)), round2(math.Min(ay, by)), round2(math.Max(ax, bx)), round2(math.Max(ay, by)))
}
