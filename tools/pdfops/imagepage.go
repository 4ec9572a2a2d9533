package pdfops

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"math"
	"os"
	"strconv"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// embeddedImage is an image XObject added to a document, with what is
// needed to place it.
type embeddedImage struct {
	ref           *types.IndirectRef
	width, height int // stored pixel dimensions
	meta          imageMeta
}

// addImagePage embeds the image at path and appends a page showing it,
// upright, to the page tree pages (whose reference is pagesRef).
func addImagePage(doc *model.Context, pagesRef types.IndirectRef, pages types.Dict, path string, p imageProbe, lay imageLayout, label string) (err error) {
	defer recoverImagePanic(&err, label)
	var img embeddedImage
	if p.format == "jpeg" {
		img, err = embedJPEG(doc.XRefTable, path, label)
	} else {
		img, err = embedRaster(doc.XRefTable, path, p.format, label)
	}
	if err != nil {
		return err
	}
	w, h := displaySize(img.width, img.height, img.meta)
	pl := lay.place(w, h)

	content, err := doc.XRefTable.NewStreamDictForBuf(imageContent(pl, img.meta.orientation))
	if err == nil {
		err = content.Encode()
	}
	var contentRef, pageRef *types.IndirectRef
	if err == nil {
		contentRef, err = doc.XRefTable.IndRefForNewObject(*content)
	}
	if err == nil {
		pageRef, err = doc.XRefTable.IndRefForNewObject(types.Dict(map[string]types.Object{
			"Type":      types.Name("Page"),
			"Parent":    pagesRef,
			"MediaBox":  types.NewNumberArray(0, 0, pl.pageW, pl.pageH),
			"Resources": types.Dict(map[string]types.Object{"XObject": types.Dict(map[string]types.Object{"Im0": *img.ref})}),
			"Contents":  *contentRef,
		}))
	}
	if err == nil {
		err = model.AppendPageTree(pageRef, 1, pages)
	}
	if err != nil {
		return fmt.Errorf("pdfops: image page: %w", err)
	}
	doc.PageCount++
	return nil
}

// embedJPEG adds the JPEG at path without decoding it.
func embedJPEG(xt *model.XRefTable, path, label string) (embeddedImage, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return embeddedImage{}, fmt.Errorf("pdfops: read input: %w", err)
	}
	info, err := scanJPEG(b)
	if err != nil {
		return embeddedImage{}, unreadableImage(err, label, "jpeg")
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return embeddedImage{}, unreadableImage(err, label, "jpeg")
	}
	ref, err := jpegXObject(xt, b, cfg, info)
	if err != nil {
		return embeddedImage{}, err
	}
	return embeddedImage{ref: ref, width: cfg.Width, height: cfg.Height, meta: info.meta}, nil
}

// embedRaster decodes the image at path and adds its pixels.
func embedRaster(xt *model.XRefTable, path, format, label string) (embeddedImage, error) {
	f, err := os.Open(path)
	if err != nil {
		return embeddedImage{}, fmt.Errorf("pdfops: open input: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return embeddedImage{}, fmt.Errorf("pdfops: stat input: %w", err)
	}
	meta := imageMeta{orientation: 1}
	switch format {
	case "png":
		meta = readPNGMeta(f, st.Size())
	case "tiff":
		meta = readTIFFMeta(f, st.Size())
	case "webp":
		meta = readWebPMeta(f, st.Size())
	}
	img, err := decodeRaster(f, format)
	if err == nil && img.Bounds().Empty() {
		err = fmt.Errorf("empty image")
	}
	if err != nil {
		return embeddedImage{}, unreadableImage(err, label, format)
	}
	ref, err := rasterXObject(xt, img)
	if err != nil {
		return embeddedImage{}, err
	}
	return embeddedImage{ref: ref, width: img.Bounds().Dx(), height: img.Bounds().Dy(), meta: meta}, nil
}

// Declared densities outside these bounds are not believed: below 72 dpi
// pages would grow beyond a point per pixel (such values are almost
// always placeholders), above 1200 dpi they would shrink to slivers.
const (
	minImageDPI     = 72
	maxImageDPI     = 1200
	defaultImageDPI = 72
)

// displaySize returns the size in points of a w x h pixel image shown
// upright (sides swapped for orientations 5 to 8) at its declared
// density, clamped to [minImageDPI, maxImageDPI], or at defaultImageDPI
// when it declares none.
func displaySize(w, h int, m imageMeta) (float64, float64) {
	xDPI, yDPI := float64(defaultImageDPI), float64(defaultImageDPI)
	if m.xDPI > 0 && m.yDPI > 0 && !math.IsInf(m.xDPI, 0) && !math.IsInf(m.yDPI, 0) {
		xDPI = min(max(m.xDPI, minImageDPI), maxImageDPI)
		yDPI = min(max(m.yDPI, minImageDPI), maxImageDPI)
	}
	dw, dh := float64(w)*72/xDPI, float64(h)*72/yDPI
	if m.orientation >= 5 {
		dw, dh = dh, dw
	}
	return dw, dh
}

// imageLayout is the page layout the params ask for.
type imageLayout struct {
	pageSize    string  // "fit" or a key of imagePageSizes
	orientation string  // "auto", "portrait" or "landscape"
	margin      float64 // border on every side, in points
}

// imagePlacement is a page size and where on it the upright image goes,
// in points from the page's lower left corner.
type imagePlacement struct {
	pageW, pageH float64
	x, y, w, h   float64
}

// place lays out a page for an upright image of w x h points. fit makes
// the page the image plus margins (scaled down to maxPageSide if needed,
// padded to minPageSide); a fixed size scales the image, up or down, to
// the largest size that fits inside the margins, keeping its aspect
// ratio, and centres it.
func (l imageLayout) place(w, h float64) imagePlacement {
	m := l.margin
	size, fixed := imagePageSizes[l.pageSize]
	if !fixed {
		s := min(1, (maxPageSide-2*m)/w, (maxPageSide-2*m)/h)
		w, h = w*s, h*s
		pw, ph := max(round2(w+2*m), minPageSide), max(round2(h+2*m), minPageSide)
		return imagePlacement{pageW: pw, pageH: ph, x: (pw - w) / 2, y: (ph - h) / 2, w: w, h: h}
	}
	pw, ph := size[0], size[1]
	if l.orientation == "landscape" || (l.orientation == "auto" && w > h) {
		pw, ph = ph, pw
	}
	s := min((pw-2*m)/w, (ph-2*m)/h)
	w, h = w*s, h*s
	return imagePlacement{pageW: pw, pageH: ph, x: (pw - w) / 2, y: (ph - h) / 2, w: w, h: h}
}

// round2 rounds a page side to hundredths of a point, as page sizes are
// usually written.
func round2(v float64) float64 { return math.Round(v*100) / 100 }

// imageContent is the page content that draws image /Im0 into the
// placement's rectangle, upright. An image XObject fills the unit square
// with its first stored row at the top; the matrix for each EXIF
// orientation maps that square onto the rectangle rotated and mirrored as
// the orientation says the stored pixels must be shown, so the JPEG
// itself is never re-encoded.
func imageContent(p imagePlacement, orientation int) []byte {
	x, y, w, h := p.x, p.y, p.w, p.h
	var m [6]float64
	switch orientation {
	case 2: // mirrored horizontally
		m = [6]float64{-w, 0, 0, h, x + w, y}
	case 3: // rotated 180
		m = [6]float64{-w, 0, 0, -h, x + w, y + h}
	case 4: // mirrored vertically
		m = [6]float64{w, 0, 0, -h, x, y + h}
	case 5: // mirrored along the top-left to bottom-right diagonal
		m = [6]float64{0, -h, -w, 0, x + w, y + h}
	case 6: // to be rotated 90 clockwise
		m = [6]float64{0, -h, w, 0, x, y + h}
	case 7: // mirrored along the top-right to bottom-left diagonal
		m = [6]float64{0, h, w, 0, x, y}
	case 8: // to be rotated 90 counter-clockwise
		m = [6]float64{0, h, -w, 0, x + w, y}
	default:
		m = [6]float64{w, 0, 0, h, x, y}
	}
	b := []byte("q")
	for _, v := range m {
		v = math.Round(v*1e4) / 1e4
		if v == 0 {
			v = 0 // no "-0"
		}
		b = append(b, ' ')
		b = strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	return append(b, " cm /Im0 Do Q"...)
}
