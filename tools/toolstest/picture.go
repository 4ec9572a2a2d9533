package toolstest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"testing"
)

// Marker is the colour of the corner Corner paints.
var Marker = color.RGBA{220, 20, 20, 255}

// Corner returns a w x h white PNG with a side x side Marker square in
// its top-left corner, for tests that follow where pixels go (a turn
// moves the square to another corner, a crop keeps or loses it).
func Corner(t testing.TB, w, h, side int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 255, 255, 255}
			if x < side && y < side {
				c = Marker
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Near reports whether c is within tol of want in each of R, G and B
// (lossy formats move colours a little).
func Near(c color.Color, want color.RGBA, tol int) bool {
	r, g, b, _ := c.RGBA()
	d := func(got uint32, w uint8) bool {
		n := int(got>>8) - int(w)
		return n <= tol && n >= -tol
	}
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

// MaxChroma returns the largest difference between two 8-bit channels
// of any pixel of img: 0 for pure grey.
func MaxChroma(img image.Image) int {
	most := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			most = max(most, int(max(r, g, bl)>>8)-int(min(r, g, bl)>>8))
		}
	}
	return most
}

// JPEGOrientation returns the EXIF orientation tag of the JPEG b (1-8),
// 0 when it has none, read here rather than by the engine under test. It
// reads the first APP1 Exif segment's IFD0 only, which is where the tag
// lives.
func JPEGOrientation(b []byte) int {
	if len(b) < 4 || b[0] != 0xff || b[1] != 0xd8 {
		return 0
	}
	for i := 2; i+4 <= len(b) && b[i] == 0xff; {
		marker, n := b[i+1], int(binary.BigEndian.Uint16(b[i+2:]))
		if marker == 0xda || i+2+n > len(b) { // start of scan: no more metadata
			return 0
		}
		seg := b[i+4 : i+2+n]
		if marker == 0xe1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return tiffOrientation(seg[6:])
		}
		i += 2 + n
	}
	return 0
}

// tiffOrientation reads tag 0x0112 of the first IFD of a TIFF structure.
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 0
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if t[0] == 'M' {
		bo = binary.BigEndian
	}
	off := int(bo.Uint32(t[4:]))
	if off+2 > len(t) {
		return 0
	}
	n := int(bo.Uint16(t[off:]))
	for i := range n {
		e := off + 2 + 12*i
		if e+12 > len(t) {
			return 0
		}
		if bo.Uint16(t[e:]) == 0x0112 {
			return int(bo.Uint16(t[e+8:]))
		}
	}
	return 0
}

// OrientedJPEG returns a w x h JPEG (left half red, right half blue) with
// an EXIF block whose orientation is orient: viewers show it turned.
func OrientedJPEG(t testing.TB, w, h int, orient uint16) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{200, 0, 0, 255}
			if x >= w/2 {
				c = color.RGBA{0, 0, 200, 255}
			}
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	tiffIFD := []byte("II*\x00")
	tiffIFD = le.AppendUint32(tiffIFD, 8)
	tiffIFD = le.AppendUint16(tiffIFD, 1)
	tiffIFD = le.AppendUint16(tiffIFD, 0x0112) // Orientation
	tiffIFD = le.AppendUint16(tiffIFD, 3)      // SHORT
	tiffIFD = le.AppendUint32(tiffIFD, 1)
	tiffIFD = le.AppendUint16(tiffIFD, orient)
	tiffIFD = append(tiffIFD, 0, 0)
	tiffIFD = le.AppendUint32(tiffIFD, 0)
	app1 := append([]byte("Exif\x00\x00"), tiffIFD...)
	seg := append([]byte{0xff, 0xe1}, binary.BigEndian.AppendUint16(nil, uint16(len(app1)+2))...)
	jpg := buf.Bytes()
	return append(append(append([]byte{}, jpg[:2]...), append(seg, app1...)...), jpg[2:]...)
}

// BombPNG returns a valid PNG header declaring w x h RGB pixels, followed
// by a tiny IDAT and IEND: a few dozen bytes that would need gigabytes to
// decode.
func BombPNG(w, h uint32) []byte {
	chunk := func(typ string, data []byte) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		b = append(append(b, typ...), data...)
		return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0) // 8-bit RGB, no interlace
	b := []byte("\x89PNG\r\n\x1a\n")
	b = append(b, chunk("IHDR", ihdr)...)
	b = append(b, chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})...)
	return append(b, chunk("IEND", nil)...)
}
