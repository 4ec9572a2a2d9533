package pdfops

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"math"
	"testing"
)

// tiffEntry is one IFD entry for tiffBlock; rational values go after the
// IFD and the entry points to them.
type tiffEntry struct {
	tag, typ uint16
	count    uint32
	value    uint32   // SHORT values in the first two bytes, as TIFF stores them
	rational []uint32 // numerator, denominator
}

// tiffOrder is binary.LittleEndian or binary.BigEndian.
type tiffOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// tiffBlock builds a TIFF structure (a TIFF header and one IFD), the
// layout of an EXIF block.
func tiffBlock(bo tiffOrder, entries ...tiffEntry) []byte {
	var b []byte
	if bo == binary.LittleEndian {
		b = []byte("II*\x00")
	} else {
		b = []byte("MM\x00*")
	}
	b = bo.AppendUint32(b, 8)
	b = bo.AppendUint16(b, uint16(len(entries)))
	extra := 8 + 2 + 12*len(entries) + 4
	var tail []byte
	for _, e := range entries {
		b = bo.AppendUint16(b, e.tag)
		b = bo.AppendUint16(b, e.typ)
		b = bo.AppendUint32(b, e.count)
		switch {
		case e.rational != nil:
			b = bo.AppendUint32(b, uint32(extra+len(tail)))
			tail = bo.AppendUint32(tail, e.rational[0])
			tail = bo.AppendUint32(tail, e.rational[1])
		case e.typ == 3:
			b = bo.AppendUint16(b, uint16(e.value))
			b = append(b, 0, 0)
		default:
			b = bo.AppendUint32(b, e.value)
		}
	}
	b = bo.AppendUint32(b, 0) // no next IFD
	return append(b, tail...)
}

func orientationEntry(v uint32) tiffEntry {
	return tiffEntry{tag: tagOrientation, typ: 3, count: 1, value: v}
}

func TestReadTIFFMeta(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	res := func(tag uint16, num, den uint32) tiffEntry {
		return tiffEntry{tag: tag, typ: 5, count: 1, rational: []uint32{num, den}}
	}
	unit := func(u uint32) tiffEntry { return tiffEntry{tag: tagResolutionUnit, typ: 3, count: 1, value: u} }
	full := tiffBlock(be, orientationEntry(8), res(tagXResolution, 300, 1), res(tagYResolution, 600, 2), unit(2))
	tests := []struct {
		name       string
		b          []byte
		orient     int
		xDPI, yDPI float64
	}{
		{"little-endian orientation", tiffBlock(le, orientationEntry(6)), 6, 0, 0},
		{"big-endian, all fields", full, 8, 300, 300},
		{"default unit is inches", tiffBlock(le, res(tagXResolution, 72, 1), res(tagYResolution, 72, 1)), 1, 72, 72},
		{"centimetres", tiffBlock(le, res(tagXResolution, 100, 1), res(tagYResolution, 100, 1), unit(3)), 1, 254, 254},
		{"no absolute unit", tiffBlock(le, res(tagXResolution, 1, 1), res(tagYResolution, 1, 1), unit(1)), 1, 0, 0},
		{"orientation out of range", tiffBlock(le, orientationEntry(9)), 1, 0, 0},
		{"orientation zero", tiffBlock(le, orientationEntry(0)), 1, 0, 0},
		{"orientation not a SHORT", tiffBlock(le, tiffEntry{tag: tagOrientation, typ: 4, count: 1, value: 6}), 1, 0, 0},
		{"orientation with count 0", tiffBlock(le, tiffEntry{tag: tagOrientation, typ: 3, count: 0, value: 6}), 1, 0, 0},
		{"zero denominator", tiffBlock(le, res(tagXResolution, 300, 0), res(tagYResolution, 300, 1)), 1, 0, 300},
		{"empty", nil, 1, 0, 0},
		{"header only", full[:8], 1, 0, 0},
		{"not TIFF", []byte("JFIF\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09"), 1, 0, 0},
		{"IFD offset past the end", append([]byte("II*\x00"), 0xFF, 0xFF, 0xFF, 0x7F, 0, 0), 1, 0, 0},
		{"IFD offset inside the header", append([]byte("II*\x00"), 4, 0, 0, 0, 1, 0), 1, 0, 0},
		{"entry count beyond the data", full[:10+12], 8, 0, 0},
		{"rational past the end", full[:len(full)-8], 8, 300, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := exifMeta(tt.b)
			if m.orientation != tt.orient || math.Abs(m.xDPI-tt.xDPI) > 1e-9 || math.Abs(m.yDPI-tt.yDPI) > 1e-9 {
				t.Errorf("got %+v, want orientation %d, dpi %gx%g", m, tt.orient, tt.xDPI, tt.yDPI)
			}
		})
	}
	// An EXIF payload that kept its "Exif\0\0" prefix reads the same.
	if m := exifMeta(append([]byte("Exif\x00\x00"), full...)); m.orientation != 8 {
		t.Errorf("prefixed EXIF: orientation %d, want 8", m.orientation)
	}
}

// pngChunk returns a PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(append(b, typ...), data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// pngWithChunks encodes img as a PNG with extra chunks before its image data.
func pngWithChunks(t testing.TB, img image.Image, chunks ...[]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	at := bytes.Index(b, []byte("IDAT")) - 4
	out := append([]byte{}, b[:at]...)
	for _, c := range chunks {
		out = append(out, c...)
	}
	return append(out, b[at:]...)
}

func TestReadPNGMeta(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 4, 4))
	phys := pngChunk("pHYs", []byte{0, 0, 0x2E, 0x23, 0, 0, 0x17, 0x12, 1}) // 11811 and 5906 per metre
	exif := pngChunk("eXIf", tiffBlock(binary.LittleEndian, orientationEntry(5)))
	b := pngWithChunks(t, img, phys, exif)
	m := readPNGMeta(bytes.NewReader(b), int64(len(b)))
	if m.orientation != 5 || math.Abs(m.xDPI-300) > 0.05 || math.Abs(m.yDPI-150) > 0.05 {
		t.Errorf("got %+v, want orientation 5, 300x150 dpi", m)
	}
	if _, err := png.Decode(bytes.NewReader(b)); err != nil {
		t.Fatalf("test PNG does not decode: %v", err)
	}
	unknownUnit := pngWithChunks(t, img, pngChunk("pHYs", []byte{0, 0, 0, 1, 0, 0, 0, 1, 0}))
	if m := readPNGMeta(bytes.NewReader(unknownUnit), int64(len(unknownUnit))); m.xDPI != 0 {
		t.Errorf("aspect-only pHYs read as %g dpi", m.xDPI)
	}
	for n := range len(b) {
		readPNGMeta(bytes.NewReader(b[:n]), int64(n)) // truncations must not panic
	}
}

func TestReadWebPMeta(t *testing.T) {
	chunk := func(typ string, data []byte) []byte {
		b := append([]byte(typ), binary.LittleEndian.AppendUint32(nil, uint32(len(data)))...)
		b = append(b, data...)
		if len(data)%2 == 1 {
			b = append(b, 0)
		}
		return b
	}
	webp := func(chunks ...[]byte) []byte {
		var body []byte
		for _, c := range chunks {
			body = append(body, c...)
		}
		b := append([]byte("RIFF"), binary.LittleEndian.AppendUint32(nil, uint32(4+len(body)))...)
		return append(append(b, "WEBP"...), body...)
	}
	exif := tiffBlock(binary.BigEndian, orientationEntry(7))
	tests := []struct {
		name   string
		b      []byte
		orient int
	}{
		{"EXIF after odd-sized image chunk", webp(chunk("VP8X", make([]byte, 10)), chunk("VP8L", []byte{1, 2, 3}), chunk("EXIF", exif)), 7},
		{"EXIF with prefix", webp(chunk("EXIF", append([]byte("Exif\x00\x00"), exif...))), 7},
		{"no EXIF", webp(chunk("VP8L", []byte{1, 2, 3})), 1},
		{"chunk size past the end", webp(append([]byte("VP8L\xFF\xFF\xFF\x7F"), 1, 2)), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if m := readWebPMeta(bytes.NewReader(tt.b), int64(len(tt.b))); m.orientation != tt.orient {
				t.Errorf("orientation %d, want %d", m.orientation, tt.orient)
			}
		})
	}
}
