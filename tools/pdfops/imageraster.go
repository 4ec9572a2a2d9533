package pdfops

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"
	"io"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// PNG, GIF, TIFF and WebP images are decoded and their pixels embedded
// losslessly as Flate image streams: 8 or 16 bits per component as
// decoded, palettes as Indexed colour spaces, an alpha channel as a soft
// mask (SMask). Lossy WebP is decoded to RGB: PDF has no WebP filter.
// Only the first frame of an animated GIF and the first page of a
// multi-page TIFF are used. Rows are compressed as they are produced, so
// besides the decoded image only the compressed streams are held.

// decodeRaster decodes the image of the given format in f; tiff.Decode
// reads through ReadAt, the others through a buffer.
func decodeRaster(f io.ReaderAt, format string) (image.Image, error) {
	r := bufio.NewReader(io.NewSectionReader(f, 0, 1<<62))
	switch format {
	case "png":
		return png.Decode(r)
	case "gif":
		return gif.Decode(r)
	case "webp":
		return webp.Decode(r)
	case "tiff":
		return tiff.Decode(io.NewSectionReader(f, 0, 1<<62))
	}
	return nil, fmt.Errorf("pdfops: no decoder for %s", format)
}

// rasterXObject adds img as a Flate image XObject, with an SMask when
// it has transparent pixels. Rows pass through PNG predictors, except
// palette indices, which predict badly.
func rasterXObject(xt *model.XRefTable, img image.Image) (*types.IndirectRef, error) {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	s := rasterSamplesOf(img)
	samples := newFlateBuffer(s.comps, s.bpc, w, s.predict)
	var mask *flateBuffer
	var maskRows io.Writer // nil: no alpha samples wanted
	if !isOpaque(img) {
		mask = newFlateBuffer(1, s.bpc, w, true)
		maskRows = mask.rows
	}
	if err := s.write(samples.rows, maskRows); err != nil {
		return nil, fmt.Errorf("pdfops: image samples: %w", err)
	}
	d := imageDict(w, h, s.bpc, s.cs)
	if mask != nil {
		sm, err := mask.streamDict(imageDict(w, h, s.bpc, types.Name(model.DeviceGrayCS)))
		if err != nil {
			return nil, err
		}
		ref, err := xt.IndRefForNewObject(*sm)
		if err != nil {
			return nil, fmt.Errorf("pdfops: soft mask object: %w", err)
		}
		d.Insert("SMask", *ref)
	}
	sd, err := samples.streamDict(d)
	if err != nil {
		return nil, err
	}
	return xt.IndRefForNewObject(*sd)
}

// imageDict is the dictionary of a w x h image XObject.
func imageDict(w, h, bpc int, cs types.Object) types.Dict {
	return types.Dict(map[string]types.Object{
		"Type":             types.Name("XObject"),
		"Subtype":          types.Name("Image"),
		"Width":            types.Integer(w),
		"Height":           types.Integer(h),
		"BitsPerComponent": types.Integer(bpc),
		"ColorSpace":       cs,
	})
}

// isOpaque reports whether img has no transparent pixel. Every image type
// of the standard library has an Opaque method that scans the pixels.
func isOpaque(img image.Image) bool {
	o, ok := img.(interface{ Opaque() bool })
	return ok && o.Opaque()
}

// flateBuffer compresses rows of samples into memory as they are
// written to rows.
type flateBuffer struct {
	buf  bytes.Buffer
	zw   *zlib.Writer
	rows io.Writer
	// parms are the DecodeParms of the predictor, nil without one.
	parms types.Dict
}

// newFlateBuffer returns a buffer for rows of w pixels of comps
// components of bpc bits, predicted when predict is set.
func newFlateBuffer(comps, bpc, w int, predict bool) *flateBuffer {
	f := &flateBuffer{}
	// BestSpeed: after prediction it compresses about as well as the
	// default level (within 10 to 20 %) in a fraction of the time, which
	// the total pixel cap and the tool's timeout are sized for.
	f.zw, _ = zlib.NewWriterLevel(&f.buf, zlib.BestSpeed)
	f.rows = f.zw
	if predict {
		f.rows = newPNGRowFilter(f.zw, max(1, comps*bpc/8), w*comps*bpc/8)
		f.parms = types.Dict(map[string]types.Object{
			"Predictor":        types.Integer(15),
			"Colors":           types.Integer(comps),
			"BitsPerComponent": types.Integer(bpc),
			"Columns":          types.Integer(w),
		})
	}
	return f
}

// streamDict finishes the compression and returns a FlateDecode stream
// of d holding it. pdfcpu writes Raw as it is.
func (f *flateBuffer) streamDict(d types.Dict) (*types.StreamDict, error) {
	if err := f.zw.Close(); err != nil {
		return nil, fmt.Errorf("pdfops: compress image: %w", err)
	}
	raw := f.buf.Bytes()
	n := int64(len(raw))
	d.Insert("Filter", types.Name(filter.Flate))
	d.Insert("Length", types.Integer(n))
	pf := types.PDFFilter{Name: filter.Flate}
	if f.parms != nil {
		d.Insert("DecodeParms", f.parms)
		pf.DecodeParms = f.parms
	}
	return &types.StreamDict{Dict: d, StreamLength: &n, Raw: raw, FilterPipeline: []types.PDFFilter{pf}}, nil
}

// rasterSamples says how a decoded image becomes PDF samples.
type rasterSamples struct {
	cs         types.Object
	bpc, comps int
	predict    bool
	// write writes the colour samples, one row per Write, to c and, when
	// a is not nil, the alpha samples to a.
	write func(c, a io.Writer) error
}

// rasterSamplesOf keeps gray, CMYK and 16-bit images as they are and
// turns everything else into 8-bit RGB.
func rasterSamplesOf(img image.Image) rasterSamples {
	b := img.Bounds()
	// opaque writes the rows of an image without alpha whose pixels of
	// bytesPerPixel bytes start at pix.
	opaque := func(bytesPerPixel int, pix []byte, stride int) func(c, a io.Writer) error {
		return func(c, _ io.Writer) error {
			for y := range b.Dy() {
				if _, err := c.Write(pix[y*stride : y*stride+b.Dx()*bytesPerPixel]); err != nil {
					return err
				}
			}
			return nil
		}
	}
	gray, rgb := types.Name(model.DeviceGrayCS), types.Name(model.DeviceRGBCS)
	switch m := img.(type) {
	case *image.Gray:
		return rasterSamples{gray, 8, 1, true, opaque(1, m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride)}
	case *image.Gray16: // Pix is big-endian, as PDF wants it
		return rasterSamples{gray, 16, 1, true, opaque(2, m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride)}
	case *image.CMYK:
		return rasterSamples{types.Name(model.DeviceCMYKCS), 8, 4, true, opaque(4, m.Pix[m.PixOffset(b.Min.X, b.Min.Y):], m.Stride)}
	case *image.Paletted:
		return rasterSamples{palettedColorSpace(m), 8, 1, false, func(c, a io.Writer) error { return writePalettedRows(m, c, a) }}
	}
	switch img.ColorModel() {
	case color.RGBA64Model, color.NRGBA64Model:
		return rasterSamples{rgb, 16, 3, true, func(c, a io.Writer) error { return writeRGB16Rows(img, c, a) }}
	}
	return rasterSamples{rgb, 8, 3, true, func(c, a io.Writer) error { return writeRGB8Rows(img, c, a) }}
}

// palettedColorSpace returns the Indexed colour space of m. Indices
// beyond the palette, which decoders may leave, show black.
func palettedColorSpace(m *image.Paletted) types.Array {
	n := min(len(m.Palette), 256)
	for _, idx := range m.Pix {
		n = max(n, int(idx)+1)
	}
	lookup := make([]byte, 3*max(n, 1))
	for i, pc := range m.Palette[:min(len(m.Palette), 256)] {
		c := color.NRGBAModel.Convert(pc).(color.NRGBA)
		lookup[3*i], lookup[3*i+1], lookup[3*i+2] = c.R, c.G, c.B
	}
	return types.Array{types.Name(model.IndexedCS), types.Name(model.DeviceRGBCS),
		types.Integer(len(lookup)/3 - 1), types.NewHexLiteral(lookup)}
}

// writePalettedRows writes palette indices; the alpha of each pixel is
// its palette entry's.
func writePalettedRows(m *image.Paletted, c, a io.Writer) error {
	b := m.Bounds()
	var alphaOf [256]byte
	for i := range alphaOf {
		alphaOf[i] = 0xFF
	}
	for i, pc := range m.Palette[:min(len(m.Palette), len(alphaOf))] {
		alphaOf[i] = color.NRGBAModel.Convert(pc).(color.NRGBA).A
	}
	arow := make([]byte, b.Dx())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		off := m.PixOffset(b.Min.X, y)
		row := m.Pix[off : off+b.Dx()]
		for x, idx := range row {
			arow[x] = alphaOf[idx]
		}
		if err := writeRows(c, row, a, arow); err != nil {
			return err
		}
	}
	return nil
}

// writeRGB8Rows writes 8-bit RGB and alpha, without premultiplication.
// NRGBA pixels are copied; others are drawn row by row into an RGBA
// buffer (fast for YCbCr and RGBA) and un-premultiplied.
func writeRGB8Rows(img image.Image, c, a io.Writer) error {
	b := img.Bounds()
	w := b.Dx()
	nrgba, _ := img.(*image.NRGBA)
	line := image.NewRGBA(image.Rect(0, 0, w, 1))
	crow, arow := make([]byte, 3*w), make([]byte, w)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		var px []byte
		if nrgba != nil {
			off := nrgba.PixOffset(b.Min.X, y)
			px = nrgba.Pix[off : off+4*w]
		} else {
			draw.Draw(line, line.Rect, img, image.Pt(b.Min.X, y), draw.Src)
			px = line.Pix
		}
		for x := range w {
			r, g, bl, al := px[4*x], px[4*x+1], px[4*x+2], px[4*x+3]
			if nrgba == nil && al != 0xFF && al != 0 {
				r, g, bl = unpremultiply(r, al), unpremultiply(g, al), unpremultiply(bl, al)
			}
			crow[3*x], crow[3*x+1], crow[3*x+2], arow[x] = r, g, bl, al
		}
		if err := writeRows(c, crow, a, arow); err != nil {
			return err
		}
	}
	return nil
}

// unpremultiply undoes the premultiplication of v by alpha a (0 < a < 255).
func unpremultiply(v, a uint8) uint8 {
	return uint8(min(255, (uint32(v)*255+uint32(a)/2)/uint32(a)))
}

// writeRGB16Rows writes 16-bit big-endian RGB and alpha, without
// premultiplication.
func writeRGB16Rows(img image.Image, c, a io.Writer) error {
	b := img.Bounds()
	w := b.Dx()
	crow, arow := make([]byte, 6*w), make([]byte, 2*w)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := range w {
			p := color.NRGBA64Model.Convert(img.At(b.Min.X+x, y)).(color.NRGBA64)
			crow[6*x], crow[6*x+1] = uint8(p.R>>8), uint8(p.R)
			crow[6*x+2], crow[6*x+3] = uint8(p.G>>8), uint8(p.G)
			crow[6*x+4], crow[6*x+5] = uint8(p.B>>8), uint8(p.B)
			arow[2*x], arow[2*x+1] = uint8(p.A>>8), uint8(p.A)
		}
		if err := writeRows(c, crow, a, arow); err != nil {
			return err
		}
	}
	return nil
}

// writeRows writes a colour row to c and an alpha row to a, if a is set.
func writeRows(c io.Writer, crow []byte, a io.Writer, arow []byte) error {
	if _, err := c.Write(crow); err != nil {
		return err
	}
	if a != nil {
		_, err := a.Write(arow)
		return err
	}
	return nil
}
