package ocr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	_ "golang.org/x/image/tiff" // registers TIFF with image.DecodeConfig

	docmill "github.com/docmill/docmill"
)

// fallbackDPI is the resolution assumed for an image that states none (or
// one too low to be a scan's): the usual scanning resolution.
const fallbackDPI = 300

// a4Inches is the long side of an A4 page. An image with no credible
// resolution gets at least the one that fits its long side on it, so a
// large photo does not become a poster-sized page.
const a4Inches = 11.69

// preparedImage is an image ready for OCRmyPDF and the resolution to give
// it with --image-dpi.
type preparedImage struct {
	path string
	dpi  int
}

// prepareImage checks an input image against maxPixels (docmill.Limits'
// ImagePixels) and makes what OCRmyPDF refuses
// acceptable: an alpha channel is flattened onto white (a PNG), and a CMYK
// JPEG, which rarely carries the ICC profile OCRmyPDF needs, is converted
// to RGB. Other images are used as they are, so a JPEG is not re-encoded
// and every page of a multi-page TIFF is kept. path is the input's
// absolute path; a converted copy is written to workDir.
//
// The pixel cap is checked on the image's header before anything decodes
// it, so a decompression bomb is refused before it can fill the memory of
// the worker or of OCRmyPDF.
func prepareImage(f docmill.LocalFile, path, workDir string, maxPixels int64) (*preparedImage, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, docmill.Internal(fmt.Errorf("ocr: open input: %w", err))
	}
	defer file.Close()
	cfg, format, err := image.DecodeConfig(file)
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file could not be read as an image; it may be damaged.")
	}
	megapixels := strconv.FormatFloat(math.Round(float64(maxPixels)/1e5)/10, 'f', -1, 64)
	if px := int64(cfg.Width) * int64(cfg.Height); px <= 0 || px > maxPixels {
		return nil, docmill.InvalidDocument(nil, "The image is %d x %d pixels; at most %s megapixels are allowed.",
			cfg.Width, cfg.Height, megapixels)
	}
	if format == "tiff" {
		// image.DecodeConfig reads the first page only; the engines read
		// them all.
		pages, err := tiffPageSizes(file)
		if err != nil {
			return nil, err
		}
		for i, s := range pages {
			if px := s[0] * s[1]; px <= 0 || px > maxPixels {
				return nil, docmill.InvalidDocument(nil, "Page %d of the image is %d x %d pixels; at most %s megapixels are allowed.",
					i+1, s[0], s[1], megapixels)
			}
		}
	}
	out := &preparedImage{path: path, dpi: imageDPI(file, format, max(cfg.Width, cfg.Height))}
	convert := ""
	switch {
	case format == "png" && pngHasAlpha(file):
		convert = "png"
	case format == "jpeg" && cfg.ColorModel == color.CMYKModel:
		convert = "jpeg"
	}
	if convert == "" {
		return out, nil
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return nil, docmill.Internal(fmt.Errorf("ocr: rewind input: %w", err))
	}
	img, _, err := image.Decode(file)
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file could not be read as an image; it may be damaged.")
	}
	out.path = filepath.Join(workDir, "ocr-image."+convert)
	if err := writeOpaque(img, out.path, convert); err != nil {
		return nil, docmill.Internal(err)
	}
	return out, nil
}

// writeOpaque draws img over white and writes it as format (png or jpeg).
func writeOpaque(img image.Image, path, format string) error {
	b := img.Bounds()
	rgba := image.NewRGBA(b)
	draw.Draw(rgba, b, image.White, image.Point{}, draw.Src)
	draw.Draw(rgba, b, img, b.Min, draw.Over)
	w, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("ocr: create image: %w", err)
	}
	if format == "jpeg" {
		err = jpeg.Encode(w, rgba, &jpeg.Options{Quality: 92})
	} else {
		// An opaque RGBA is written as RGB, without an alpha channel.
		err = png.Encode(w, rgba)
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("ocr: write image: %w", err)
	}
	return nil
}

// imageDPI is the resolution to give OCRmyPDF: the image's own when it
// states a credible one (above 96 dpi, the screen default that scanners
// never write), else fallbackDPI, raised so the long side fits A4.
func imageDPI(r io.ReaderAt, format string, longSide int) int {
	var dpi float64
	switch format {
	case "png":
		dpi = pngDPI(r)
	case "jpeg":
		dpi = jpegDPI(r)
	case "tiff":
		dpi = tiffDPI(io.NewSectionReader(r, 0, 1<<40))
	}
	if dpi > 96 && dpi <= 4800 {
		return int(math.Round(dpi))
	}
	return max(fallbackDPI, int(math.Ceil(float64(longSide)/a4Inches)))
}

// pngChunks calls fn with each chunk's type and data offset and length,
// up to the first IDAT (where pHYs and tRNS must have come), until fn
// returns false.
func pngChunks(r io.ReaderAt, fn func(typ string, off int64, n uint32) bool) {
	var hdr [8]byte
	for off := int64(8); ; {
		if _, err := r.ReadAt(hdr[:], off); err != nil {
			return
		}
		n, typ := binary.BigEndian.Uint32(hdr[:4]), string(hdr[4:])
		if typ == "IDAT" || !fn(typ, off+8, n) {
			return
		}
		off += 12 + int64(n)
	}
}

// pngHasAlpha reports whether a PNG has an alpha channel or a tRNS chunk.
func pngHasAlpha(r io.ReaderAt) bool {
	var ct [1]byte
	if _, err := r.ReadAt(ct[:], 25); err != nil { // IHDR colour type
		return false
	}
	alpha := ct[0] == 4 || ct[0] == 6
	pngChunks(r, func(typ string, _ int64, _ uint32) bool {
		alpha = alpha || typ == "tRNS"
		return !alpha
	})
	return alpha
}

// pngDPI reads the horizontal resolution of a pHYs chunk in metres.
func pngDPI(r io.ReaderAt) float64 {
	var dpi float64
	pngChunks(r, func(typ string, off int64, n uint32) bool {
		if typ != "pHYs" || n != 9 {
			return true
		}
		var b [9]byte
		if _, err := r.ReadAt(b[:], off); err == nil && b[8] == 1 {
			dpi = float64(binary.BigEndian.Uint32(b[:4])) * 0.0254
		}
		return false
	})
	return dpi
}

// jpegDPI reads the density of a JFIF APP0 segment, or else the
// resolution in an Exif APP1 segment, from the markers before the image
// data.
func jpegDPI(r io.ReaderAt) float64 {
	var m [4]byte
	for off := int64(2); ; {
		if _, err := r.ReadAt(m[:], off); err != nil || m[0] != 0xFF || m[1] == 0xDA {
			return 0
		}
		n := int64(binary.BigEndian.Uint16(m[2:]))
		if n < 2 {
			return 0
		}
		seg := make([]byte, min(n-2, 64<<10))
		if _, err := r.ReadAt(seg, off+4); err != nil {
			return 0
		}
		switch {
		case m[1] == 0xE0 && len(seg) >= 12 && bytes.HasPrefix(seg, []byte("JFIF\x00")):
			x := float64(binary.BigEndian.Uint16(seg[8:10]))
			switch seg[7] {
			case 1:
				return x
			case 2:
				return x * 2.54
			}
		case m[1] == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")):
			if dpi := tiffDPI(bytes.NewReader(seg[6:])); dpi > 0 {
				return dpi
			}
		}
		off += 2 + n
	}
}

// maxTIFFPages bounds the pages of a TIFF read by tiffPageSizes: a bound
// on hostile structure (a chain of page headers made to be walked
// forever), not a cost, since each page's pixels are held to
// Limits.ImagePixels.
const maxTIFFPages = 10_000

// tiffPageSizes reads the width and height of every page (IFD) of a
// TIFF from its headers, decoding nothing: a TIFF whose first page is
// small may hold a huge second one. A chain of IFDs that loops, leaves
// the file or has more than maxTIFFPages pages, or a page without its
// sizes, is refused as invalid_document.
func tiffPageSizes(r io.ReaderAt) ([][2]int64, error) {
	damaged := func() ([][2]int64, error) {
		return nil, docmill.InvalidDocument(nil, "The TIFF image's pages could not be read; it may be damaged.")
	}
	bo, ifd, ok := tiffHeader(r)
	if !ok {
		return damaged()
	}
	var pages [][2]int64
	seen := map[int64]bool{}
	for ifd != 0 {
		if seen[ifd] {
			return damaged()
		}
		if len(pages) == maxTIFFPages {
			return nil, docmill.LimitExceeded(fmt.Sprintf("The TIFF image has more than %d pages", maxTIFFPages))
		}
		seen[ifd] = true
		var cnt [2]byte
		if _, err := r.ReadAt(cnt[:], ifd); err != nil {
			return damaged()
		}
		n := int64(bo.Uint16(cnt[:]))
		entries := make([]byte, 12*n+4) // the entries, then the next IFD's offset
		if _, err := r.ReadAt(entries, ifd+2); err != nil {
			return damaged()
		}
		var size [2]int64 // ImageWidth (256), ImageLength (257)
		for i := range n {
			e := entries[12*i:]
			tag := bo.Uint16(e)
			if tag != 256 && tag != 257 {
				continue
			}
			var v int64
			switch bo.Uint16(e[2:]) {
			case 3: // SHORT, in the entry
				v = int64(bo.Uint16(e[8:]))
			case 4: // LONG, in the entry
				v = int64(bo.Uint32(e[8:]))
			default:
				return damaged()
			}
			size[tag-256] = v
		}
		if size[0] == 0 || size[1] == 0 {
			return damaged()
		}
		pages = append(pages, size)
		ifd = int64(bo.Uint32(entries[12*n:]))
	}
	return pages, nil
}

// tiffHeader reads a TIFF's header: its byte order and the offset of its
// first IFD; ok is false when it is no TIFF header.
func tiffHeader(r io.ReaderAt) (bo binary.ByteOrder, ifd int64, ok bool) {
	var h [8]byte
	if _, err := r.ReadAt(h[:], 0); err != nil {
		return nil, 0, false
	}
	switch string(h[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return nil, 0, false
	}
	return bo, int64(bo.Uint32(h[4:])), true
}

// tiffDPI reads XResolution and ResolutionUnit from a TIFF's first IFD
// (the layout Exif uses too).
func tiffDPI(r io.ReaderAt) float64 {
	bo, ifd, ok := tiffHeader(r)
	if !ok {
		return 0
	}
	var cnt [2]byte
	if _, err := r.ReadAt(cnt[:], ifd); err != nil {
		return 0
	}
	res, unit := 0.0, uint16(2) // TIFF's default unit is the inch
	for i := range int64(min(bo.Uint16(cnt[:]), 1000)) {
		var e [12]byte
		if _, err := r.ReadAt(e[:], ifd+2+12*i); err != nil {
			return 0
		}
		switch bo.Uint16(e[:2]) {
		case 282: // XResolution, a RATIONAL stored at an offset
			var v [8]byte
			if _, err := r.ReadAt(v[:], int64(bo.Uint32(e[8:]))); err == nil && bo.Uint32(v[4:]) != 0 {
				res = float64(bo.Uint32(v[:4])) / float64(bo.Uint32(v[4:]))
			}
		case 296: // ResolutionUnit, a SHORT stored in the entry
			unit = bo.Uint16(e[8:])
		}
	}
	switch unit {
	case 2:
		return res
	case 3:
		return res * 2.54
	}
	return 0
}
