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

func imageWatermarkTool() *docmill.Tool {
	return pdfTool(docmill.Tool{
		Slug: "image-watermark",
		// An AVIF or HEIC stamp is converted to a PNG, so that its
		// transparency survives.
		ConvertsImages: "png",
		Meta: []docmill.MetaField{
			documentPages,
			{Name: "watermarked_pages", Type: docmill.MetaInteger, Description: "Pages the image was stamped on."},
		},
		Title:       "Image watermark PDF",
		Description: "Stamp an image, such as a logo, on all or some pages of a PDF. Send the PDF first and the PNG or JPEG image second.",
		Accepts:     []string{pdfContentType, "image/png", "image/jpeg"},
		MinFiles:    2,
		MaxFiles:    2,
		Params: []docmill.Param{
			{
				Name:        positionParam,
				Type:        docmill.TypeString,
				Description: "Where on the page the image goes; away from the center it keeps a margin of about 1 cm.",
				Enum:        stampPositionNames(false),
				Default:     "center",
			},
			{
				Name:        scaleParam,
				Type:        docmill.TypeNumber,
				Description: "The image's width as a fraction of the page's width (smaller if it would not fit the page).",
				Min:         docmill.Bound(0.05),
				Max:         docmill.Bound(1),
				Default:     "0.25",
			},
			{
				Name:        opacityParam,
				Type:        docmill.TypeNumber,
				Description: "From 0 (invisible) to 1 (opaque).",
				Min:         docmill.Bound(0),
				Max:         docmill.Bound(1),
				Default:     "0.5",
			},
			{
				Name:        rotationParam,
				Type:        docmill.TypeNumber,
				Description: "Angle of the image in degrees, counter-clockwise.",
				Min:         docmill.Bound(-180),
				Max:         docmill.Bound(180),
				Default:     "0",
			},
			pagesParam(`Pages to stamp, such as "1-3,5,8-"`),
		},
	}, runImageWatermark)
}

// imageStamp is the validated settings of an image watermark.
type imageStamp struct {
	spot     stampSpot
	scale    float64 // of the page's width
	opacity  float64
	rotation float64 // degrees counter-clockwise
}

// runImageWatermark embeds the image once and draws it over the content
// of each selected page.
//
// pdfcpu's own image stamps are not used: its stamping of pages that need
// different placements (AddWatermarksMap) embeds the image anew for every
// page, which would multiply a large image by the page count. Placement
// reuses the text stamps' positions and page frames (stampSpot,
// stampPage), so an image and a text watermark at the same position line
// up, on upright, rotated and cropped pages alike.
func runImageWatermark(ctx context.Context, in *docmill.RunInput, b *budget) (out *docmill.RunOutput, err error) {
	files := in.Files
	if files[0].ContentType != pdfContentType || (files[1].ContentType != "image/png" && files[1].ContentType != "image/jpeg") {
		return nil, docmill.Errorf(docmill.CodeUnsupportedFileType,
			"image-watermark takes the PDF first and the PNG or JPEG image second; got %s, then %s.", files[0].ContentType, files[1].ContentType)
	}
	label := func(i int) string {
		return fmt.Sprintf("%s (%q)", []string{"The PDF", "The image"}[i], files[i].Filename)
	}
	if err := checkSizes(b, files, "files", label); err != nil {
		return nil, err
	}
	probes, err := probeImages(b, files[1:], func(int) string { return label(1) })
	if err != nil {
		return nil, err
	}
	if f := probes[0].format; f != "png" && f != "jpeg" {
		return nil, docmill.Errorf(docmill.CodeUnsupportedFileType, "%s is a %s image; this tool stamps PNG and JPEG images.", label(1), imageFormats[f])
	}
	doc, err := readDocument(ctx, b, files[0], newConfig(model.ADDWATERMARKS), label(0))
	if err != nil {
		return nil, err
	}
	_, pages, err := selectedPages(in.Params, doc.PageCount)
	if err != nil {
		return nil, err
	}
	if err := balanceStampPageTree(doc); err != nil {
		return nil, docmill.InvalidDocument(err, "The PDF's page tree could not be read: it is damaged.")
	}
	img, err := embedStampImage(doc, files[1].Path, probes[0].format, label(1))
	if err != nil {
		return nil, err
	}
	st := imageStamp{
		spot:     stampSpotNamed(in.Params.String(positionParam)),
		scale:    in.Params.Float(scaleParam),
		opacity:  in.Params.Float(opacityParam),
		rotation: in.Params.Float(rotationParam),
	}
	if err := st.stampPages(ctx, doc, img, pages); err != nil {
		return nil, err
	}
	return watermarked.output(doc, in, len(pages))
}

// embedStampImage adds the image at path to doc as jpg-to-pdf does: a
// JPEG as it is, a PNG decoded (its size was bounded by probeImages) with
// its transparency kept.
func embedStampImage(doc *model.Context, path, format, label string) (img embeddedImage, err error) {
	defer recoverImagePanic(&err, label)
	if format == "jpeg" {
		return embedJPEG(doc.XRefTable, path, label)
	}
	return embedRaster(doc.XRefTable, path, format, label)
}

// stampPages draws img on each of pages, whose content is left intact:
// it is bracketed by q and Q, so that whatever state it leaves does not
// move the image, and the image is drawn after it.
func (st imageStamp) stampPages(ctx context.Context, doc *model.Context, img embeddedImage, pages []int) error {
	gs, err := doc.IndRefForNewObject(types.Dict{"Type": types.Name("ExtGState"), "ca": types.Float(st.opacity), "CA": types.Float(st.opacity)})
	if err != nil {
		return fmt.Errorf("pdfops: image watermark: %w", err)
	}
	open, err := newContentStream(doc, "q\n")
	if err != nil {
		return err
	}
	pbs, err := doc.PageBoundaries(nil)
	if err != nil || len(pbs) != doc.PageCount {
		return docmill.InvalidDocument(err, "The PDF's page sizes could not be read: it is damaged.")
	}
	for _, p := range pages {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, _, attrs, err := doc.PageDict(p, false)
		if err != nil || d == nil || attrs == nil {
			return docmill.InvalidDocument(err, "The PDF's page %d could not be read: it is damaged.", p)
		}
		frame, ok := pageFrameOf(pbs[p-1])
		if !ok {
			return docmill.InvalidDocument(nil, "The PDF's page %d has no usable size or rotation.", p)
		}
		imName, gsName, err := addStampResources(doc, d, attrs, *img.ref, *gs)
		if err != nil {
			return docmill.InvalidDocument(err, "The PDF's page %d resources could not be read: it is damaged.", p)
		}
		draw, err := newContentStream(doc, st.content(frame, img, imName, gsName))
		if err != nil {
			return err
		}
		if err := wrapPageContents(doc, d, *open, *draw); err != nil {
			return docmill.InvalidDocument(err, "The PDF's page %d content could not be read: it is damaged.", p)
		}
	}
	return nil
}

// pageFrame is a page's visible box as user space holds it (lower left
// corner and size, unturned) and the turn it is shown with.
type pageFrame struct {
	llx, lly, w, h float64
	rot            int // 0, 90, 180 or 270, clockwise
}

func pageFrameOf(pb model.PageBoundaries) (pageFrame, bool) {
	box := pb.CropBox()
	rot := (pb.Rot%360 + 360) % 360
	if box == nil || box.Width() <= 0 || box.Height() <= 0 || rot%90 != 0 {
		return pageFrame{}, false
	}
	return pageFrame{box.LL.X, box.LL.Y, box.Width(), box.Height(), rot}, true
}

// shown returns the page as the reader sees it.
func (f pageFrame) shown() stampPage {
	if f.rot%180 != 0 {
		return stampPage{width: f.h, height: f.w, rot: f.rot}
	}
	return stampPage{width: f.w, height: f.h, rot: f.rot}
}

// toUser returns the matrix that maps the shown page (origin at its lower
// left corner as seen) to user space: the inverse of the viewer's turn.
func (f pageFrame) toUser() [6]float64 {
	switch f.rot {
	case 90: // shown (x, y) is user (w - y, x)
		return [6]float64{0, 1, -1, 0, f.llx + f.w, f.lly}
	case 180:
		return [6]float64{-1, 0, 0, -1, f.llx + f.w, f.lly + f.h}
	case 270: // shown (x, y) is user (y, h - x)
		return [6]float64{0, -1, 1, 0, f.llx, f.lly + f.h}
	}
	return [6]float64{1, 0, 0, 1, f.llx, f.lly}
}

// content returns the operators that draw img on a page of frame f.
func (st imageStamp) content(f pageFrame, img embeddedImage, imName, gsName string) string {
	page := f.shown()
	m := page.margin()
	iw := st.scale * page.width
	ih := iw * float64(img.height) / float64(img.width)
	rw, rh := rotatedSize(iw, ih, st.rotation)
	if fit := min(1, (page.width-2*m)/rw, (page.height-2*m)/rh); fit > 0 {
		iw, ih, rw, rh = iw*fit, ih*fit, rw*fit, rh*fit
	}
	cx := page.width/2 + float64(st.spot.x)*(page.width/2-m-rw/2)
	cy := page.height/2 + float64(st.spot.y)*(page.height/2-m-rh/2)
	sin, cos := math.Sincos(st.rotation * math.Pi / 180)
	var b strings.Builder
	cm := func(m [6]float64) {
		for _, v := range m {
			b.WriteString(fmtContentNum(v))
			b.WriteByte(' ')
		}
		b.WriteString("cm\n")
	}
	b.WriteString("Q q\n/" + gsName + " gs\n")
	cm(f.toUser())
	cm([6]float64{1, 0, 0, 1, cx, cy})
	cm([6]float64{cos, sin, -sin, cos, 0, 0})
	cm([6]float64{iw, 0, 0, ih, -iw / 2, -ih / 2})
	b.WriteString("/" + imName + " Do\nQ\n")
	return b.String()
}

// fmtContentNum writes v for a content stream: fixed point, as PDF
// numbers have no exponent.
func fmtContentNum(v float64) string {
	s := fmt.Sprintf("%.4f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}

// newContentStream adds a content stream holding s to doc.
func newContentStream(doc *model.Context, s string) (*types.IndirectRef, error) {
	sd, err := doc.NewStreamDictForBuf([]byte(s))
	if err == nil {
		err = sd.Encode()
	}
	if err != nil {
		return nil, fmt.Errorf("pdfops: content stream: %w", err)
	}
	return doc.IndRefForNewObject(*sd)
}

// addStampResources gives the page d resources of its own (a copy of
// those it has or inherits, so that pages sharing a dictionary are not
// changed) that also name the image and the graphics state, and returns
// the names, chosen not to clash with the page's own.
func addStampResources(doc *model.Context, d types.Dict, attrs *model.InheritedPageAttrs, img, gs types.IndirectRef) (string, string, error) {
	own, err := ownPageResources(doc, d, attrs)
	if err != nil {
		return "", "", err
	}
	xobjects, err := ownSubDict(doc, own, "XObject")
	if err != nil {
		return "", "", err
	}
	states, err := ownSubDict(doc, own, "ExtGState")
	if err != nil {
		return "", "", err
	}
	imName, gsName := freeName(xobjects, "DmStampImage"), freeName(states, "DmStampState")
	xobjects[imName] = img
	states[gsName] = gs
	return imName, gsName, nil
}

// ownPageResources gives page d resources of its own, a copy of those it
// has or inherits (attrs), so that pages sharing a dictionary are not
// changed, and returns them.
func ownPageResources(doc *model.Context, d types.Dict, attrs *model.InheritedPageAttrs) (types.Dict, error) {
	res := attrs.Resources
	if o, found := d.Find("Resources"); found && o != nil {
		var err error
		if res, err = doc.DereferenceDict(o); err != nil {
			return nil, err
		}
	}
	own := types.Dict{}
	for k, v := range res {
		own[k] = v
	}
	d["Resources"] = own
	return own, nil
}

// ownSubDict replaces res[key] with a copy of the dictionary it holds (an
// empty one when absent) and returns the copy.
func ownSubDict(doc *model.Context, res types.Dict, key string) (types.Dict, error) {
	sub := types.Dict{}
	if o, found := res.Find(key); found && o != nil {
		d, err := doc.DereferenceDict(o)
		if err != nil {
			return nil, err
		}
		for k, v := range d {
			sub[k] = v
		}
	}
	res[key] = sub
	return sub, nil
}

// freeName returns base, or base with a number, that d does not hold.
func freeName(d types.Dict, base string) string {
	name := base
	for i := 1; ; i++ {
		if _, taken := d[name]; !taken {
			return name
		}
		name = fmt.Sprintf("%s%d", base, i)
	}
}

// wrapPageContents makes the page d's content open, its own content
// streams, then draw. A page without content gets open and draw only.
func wrapPageContents(doc *model.Context, d types.Dict, open, draw types.IndirectRef) error {
	streams := types.Array{open}
	if o, found := d.Find("Contents"); found && o != nil {
		if ir, ok := o.(types.IndirectRef); ok {
			deref, err := doc.Dereference(ir)
			if err != nil {
				return err
			}
			if _, isStream := deref.(types.StreamDict); isStream {
				o = types.Array{ir}
			} else {
				o = deref
			}
		}
		a, ok := o.(types.Array)
		if !ok {
			return fmt.Errorf("contents of type %T", o)
		}
		streams = append(streams, a...)
	}
	d["Contents"] = append(streams, draw)
	return nil
}
