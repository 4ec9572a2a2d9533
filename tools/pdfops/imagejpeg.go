package pdfops

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// A JPEG is embedded as it is: its bytes become a DCTDecode image stream,
// which every PDF reader decodes itself. It is never decoded here, so it
// costs no pixel memory and loses no quality; what is checked instead is
// its marker structure (scanJPEG).

// jpegInfo is what a structural scan of a JPEG finds on the way.
type jpegInfo struct {
	meta imageMeta
	// icc is the embedded ICC profile, reassembled from its APP2 chunks;
	// nil when absent or incomplete.
	icc []byte
	// adobe is set when an Adobe APP14 segment is present: Adobe
	// applications store CMYK JPEG samples inverted.
	adobe bool
}

// errJPEGStructure is the internal cause of a JPEG refused by scanJPEG.
var errJPEGStructure = errors.New("broken JPEG marker structure")

// scanJPEG walks the marker structure of the whole JPEG b and gathers its
// metadata. It fails when the structure is broken: a missing start
// marker, an invalid marker, a segment running past the end, a restart
// marker out of sequence, a second frame, a scan before the frame, or no
// end-of-image marker (truncation). Entropy-coded data is not decoded,
// so damage that leaves the structure intact goes unnoticed: such a JPEG
// is embedded and shows its damage in the PDF as it would in any viewer.
// Bytes after the end-of-image marker (phones append previews there) are
// ignored.
func scanJPEG(b []byte) (jpegInfo, error) {
	info := jpegInfo{meta: imageMeta{orientation: 1}}
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return info, fmt.Errorf("%w: no start-of-image marker", errJPEGStructure)
	}
	var frame, scan bool
	var exif []byte
	var icc iccChunks
	for i := 2; ; {
		// Stray bytes before a marker are skipped, as libjpeg and Go's
		// decoder skip them (with a warning): real files have them.
		for i < len(b) && b[i] != 0xFF {
			i++
		}
		for i < len(b) && b[i] == 0xFF { // fill bytes may precede a marker
			i++
		}
		if i >= len(b) {
			return info, fmt.Errorf("%w: truncated", errJPEGStructure)
		}
		m := b[i]
		i++
		if m == 0xD9 { // end of image
			if !frame || !scan {
				return info, fmt.Errorf("%w: no frame or no scan", errJPEGStructure)
			}
			break
		}
		// Every other marker allowed here starts a segment with a length.
		if m < 0xC0 || (m >= 0xD0 && m <= 0xD8) || m == 0xFF || i+2 > len(b) {
			return info, fmt.Errorf("%w: invalid marker 0x%02X at offset %d", errJPEGStructure, m, i-1)
		}
		n := int(b[i])<<8 | int(b[i+1])
		if n < 2 || i+n > len(b) {
			return info, fmt.Errorf("%w: segment 0x%02X runs past the end", errJPEGStructure, m)
		}
		seg := b[i+2 : i+n]
		i += n
		switch {
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC: // start of frame
			if frame {
				return info, fmt.Errorf("%w: second frame", errJPEGStructure)
			}
			frame = true
		case m == 0xDA: // start of scan, followed by entropy-coded data
			if !frame {
				return info, fmt.Errorf("%w: scan before frame", errJPEGStructure)
			}
			scan = true
			var err error
			if i, err = skipEntropyData(b, i); err != nil {
				return info, err
			}
		case m == 0xE0 && bytes.HasPrefix(seg, []byte("JFIF\x00")) && len(seg) >= 12:
			info.meta.xDPI, info.meta.yDPI = jfifDensity(seg[7:12])
		case m == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) && exif == nil:
			exif = seg[6:]
		case m == 0xE2:
			icc.add(seg)
		case m == 0xEE && bytes.HasPrefix(seg, []byte("Adobe")):
			info.adobe = true
		}
	}
	if exif != nil {
		em := exifMeta(exif)
		info.meta.orientation = em.orientation
		if info.meta.xDPI == 0 || info.meta.yDPI == 0 { // JFIF's density comes first
			info.meta.xDPI, info.meta.yDPI = em.xDPI, em.yDPI
		}
	}
	info.icc = icc.profile()
	return info, nil
}

// skipEntropyData returns the offset of the marker that ends the
// entropy-coded data starting at i. Inside it, 0xFF is followed by 0x00
// (a stuffed byte), by more 0xFF (fill) or by a restart marker, and
// restart markers count RST0 to RST7 cyclically.
func skipEntropyData(b []byte, i int) (int, error) {
	next := byte(0)
	for {
		j := bytes.IndexByte(b[i:], 0xFF)
		if j < 0 || i+j+1 >= len(b) {
			return 0, fmt.Errorf("%w: truncated scan", errJPEGStructure)
		}
		i += j
		switch c := b[i+1]; {
		case c == 0x00:
			i += 2
		case c == 0xFF:
			i++
		case c >= 0xD0 && c <= 0xD7:
			if c-0xD0 != next {
				return 0, fmt.Errorf("%w: restart marker out of sequence at offset %d", errJPEGStructure, i)
			}
			next = (next + 1) % 8
			i += 2
		default:
			return i, nil
		}
	}
}

// jfifDensity decodes the units, X density and Y density fields of a JFIF
// header; units 0 declares only an aspect ratio, which is not a density.
func jfifDensity(f []byte) (float64, float64) {
	x, y := float64(int(f[1])<<8|int(f[2])), float64(int(f[3])<<8|int(f[4]))
	switch f[0] {
	case 1:
		return x, y
	case 2: // per centimetre
		return x * 2.54, y * 2.54
	}
	return 0, 0
}

// iccChunks collects the APP2 chunks of an ICC profile, which a JPEG
// splits into numbered segments of up to 64 KB.
type iccChunks struct {
	count  int
	chunks map[int][]byte
}

func (c *iccChunks) add(seg []byte) {
	const sig = "ICC_PROFILE\x00"
	if !bytes.HasPrefix(seg, []byte(sig)) || len(seg) < len(sig)+2 {
		return
	}
	seq, count := int(seg[len(sig)]), int(seg[len(sig)+1])
	if count == 0 || seq == 0 || seq > count || (c.count != 0 && c.count != count) {
		return
	}
	if c.chunks == nil {
		c.chunks = map[int][]byte{}
	}
	c.count = count
	c.chunks[seq] = seg[len(sig)+2:]
}

// profile returns the reassembled profile, or nil if a chunk is missing.
func (c *iccChunks) profile() []byte {
	if c.count == 0 || len(c.chunks) != c.count {
		return nil
	}
	var p []byte
	for seq := 1; seq <= c.count; seq++ {
		p = append(p, c.chunks[seq]...)
	}
	return p
}

// jpegXObject adds the JPEG b, already scanned, as a DCTDecode image
// XObject whose stream is b unchanged. cfg comes from jpeg.DecodeConfig
// on the same bytes, which also refuses the variants PDF readers do not
// reliably decode either (lossless, hierarchical, arithmetic-coded).
func jpegXObject(xt *model.XRefTable, b []byte, cfg image.Config, info jpegInfo) (*types.IndirectRef, error) {
	cs, comps := model.DeviceRGBCS, 3
	switch cfg.ColorModel {
	case color.GrayModel:
		cs, comps = model.DeviceGrayCS, 1
	case color.CMYKModel:
		cs, comps = model.DeviceCMYKCS, 4
	}
	// pdfcpu keeps b as the raw stream: no decoding, no re-encoding.
	sd, err := model.CreateDCTImageStreamDict(xt, b, cfg.Width, cfg.Height, 8, cs)
	if err != nil {
		return nil, fmt.Errorf("pdfops: JPEG image stream: %w", err)
	}
	// pdfcpu assumes Adobe's inverted CMYK; other CMYK JPEGs are not.
	if cs == model.DeviceCMYKCS && !info.adobe {
		sd.Delete("Decode")
	}
	if iccCS, err := iccColorSpace(xt, info.icc, comps); err != nil {
		return nil, err
	} else if iccCS != nil {
		sd.Update("ColorSpace", iccCS)
	}
	return xt.IndRefForNewObject(*sd)
}

// iccColorSpace returns an ICCBased colour space for profile, or nil when
// there is no profile or it does not describe comps components (a
// mismatched profile would make readers refuse the image).
func iccColorSpace(xt *model.XRefTable, profile []byte, comps int) (types.Object, error) {
	if len(profile) < 128 {
		return nil, nil
	}
	want := map[int]string{1: "GRAY", 3: "RGB ", 4: "CMYK"}[comps]
	if string(profile[16:20]) != want {
		return nil, nil
	}
	alt := map[int]string{1: model.DeviceGrayCS, 3: model.DeviceRGBCS, 4: model.DeviceCMYKCS}[comps]
	sd, err := xt.NewStreamDictForBuf(profile)
	if err != nil {
		return nil, fmt.Errorf("pdfops: ICC stream: %w", err)
	}
	sd.Insert("N", types.Integer(comps))
	sd.Insert("Alternate", types.Name(alt))
	if err := sd.Encode(); err != nil {
		return nil, fmt.Errorf("pdfops: ICC stream: %w", err)
	}
	ref, err := xt.IndRefForNewObject(*sd)
	if err != nil {
		return nil, fmt.Errorf("pdfops: ICC stream: %w", err)
	}
	return types.Array{types.Name("ICCBased"), *ref}, nil
}
