package ocr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
)

// byteOrder reads and appends.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// tiffBytes is a TIFF header and a first IFD holding only XResolution
// (num/den) and ResolutionUnit, in byte order bo.
func tiffBytes(bo byteOrder, num, den uint32, unit uint16) []byte {
	b := []byte("II*\x00")
	if bo == binary.BigEndian {
		b = []byte("MM\x00*")
	}
	b = bo.AppendUint32(b, 8)
	b = bo.AppendUint16(b, 2)
	b = bo.AppendUint16(b, 282)
	b = bo.AppendUint16(b, 5)
	b = bo.AppendUint32(b, 1)
	b = bo.AppendUint32(b, 8+2+2*12+4) // after the IFD
	b = bo.AppendUint16(b, 296)
	b = bo.AppendUint16(b, 3)
	b = bo.AppendUint32(b, 1)
	b = bo.AppendUint16(b, unit)
	b = bo.AppendUint16(b, 0)
	b = bo.AppendUint32(b, 0) // no next IFD
	b = bo.AppendUint32(b, num)
	return bo.AppendUint32(b, den)
}

// pngBytes is a PNG's signature, an IHDR of colour type ct, the given
// extra chunks and an empty IDAT.
func pngBytes(ct byte, chunks ...[]byte) []byte {
	chunk := func(typ string, data []byte) []byte {
		c := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
		c = append(append(c, typ...), data...)
		return binary.BigEndian.AppendUint32(c, crc32.ChecksumIEEE(c[4:]))
	}
	b := append([]byte("\x89PNG\r\n\x1a\n"), chunk("IHDR", []byte{0, 0, 0, 1, 0, 0, 0, 1, 8, ct, 0, 0, 0})...)
	for _, c := range chunks {
		b = append(b, chunk(string(c[:4]), c[4:])...)
	}
	return append(b, chunk("IDAT", nil)...)
}

func phys(ppm uint32, unit byte) []byte {
	b := binary.BigEndian.AppendUint32([]byte("pHYs"), ppm)
	return append(binary.BigEndian.AppendUint32(b, ppm), unit)
}

// jpegBytes is SOI, one APPn segment and SOS.
func jpegBytes(marker byte, seg []byte) []byte {
	b := []byte{0xFF, 0xD8, 0xFF, marker}
	b = binary.BigEndian.AppendUint16(b, uint16(len(seg)+2))
	return append(append(b, seg...), 0xFF, 0xDA, 0, 2)
}

func jfif(units byte, density uint16) []byte {
	b := append([]byte("JFIF\x00"), 1, 2, units)
	b = binary.BigEndian.AppendUint16(b, density)
	b = binary.BigEndian.AppendUint16(b, density)
	return append(b, 0, 0)
}

func TestImageDPI(t *testing.T) {
	cases := []struct {
		name   string
		data   []byte
		format string
		long   int
		want   int
	}{
		{"png pHYs 200 dpi", pngBytes(2, phys(7874, 1)), "png", 2339, 200},
		{"png pHYs no unit", pngBytes(2, phys(7874, 0)), "png", 2339, 300},
		{"png without pHYs", pngBytes(2), "png", 2339, 300},
		{"png 72 dpi, large", pngBytes(2, phys(2835, 1)), "png", 7016, 601},
		{"jfif dpi", jpegBytes(0xE0, jfif(1, 400)), "jpeg", 100, 400},
		{"jfif dots per cm", jpegBytes(0xE0, jfif(2, 118)), "jpeg", 100, 300},
		{"jfif aspect only", jpegBytes(0xE0, jfif(0, 1)), "jpeg", 100, 300},
		{"exif big-endian", jpegBytes(0xE1, append([]byte("Exif\x00\x00"), tiffBytes(binary.BigEndian, 600, 1, 2)...)), "jpeg", 100, 600},
		{"tiff little-endian", tiffBytes(binary.LittleEndian, 300, 1, 2), "tiff", 100, 300},
		{"tiff 240 dpi", tiffBytes(binary.LittleEndian, 480, 2, 2), "tiff", 100, 240},
		{"tiff per cm", tiffBytes(binary.BigEndian, 1181, 10, 3), "tiff", 100, 300},
		{"tiff 72 dpi", tiffBytes(binary.LittleEndian, 72, 1, 2), "tiff", 100, 300},
		{"tiff zero denominator", tiffBytes(binary.LittleEndian, 72, 0, 2), "tiff", 100, 300},
		{"truncated", []byte("II*\x00\xff"), "tiff", 100, 300},
	}
	for _, c := range cases {
		if got := imageDPI(bytes.NewReader(c.data), c.format, c.long); got != c.want {
			t.Errorf("%s: dpi = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestPNGHasAlpha(t *testing.T) {
	for _, c := range []struct {
		data []byte
		want bool
	}{
		{pngBytes(2), false},
		{pngBytes(0), false},
		{pngBytes(6), true},
		{pngBytes(4), true},
		{pngBytes(3, []byte("tRNS\x00")), true},
	} {
		if got := pngHasAlpha(bytes.NewReader(c.data)); got != c.want {
			t.Errorf("colour type %d: alpha = %v", c.data[25], got)
		}
	}
}

func writeImage(t *testing.T, name string, img image.Image) docmill.LocalFile {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	var buf bytes.Buffer
	var err error
	if filepath.Ext(name) == ".png" {
		err = png.Encode(&buf, img)
	} else {
		err = jpeg.Encode(&buf, img, nil)
	}
	if err == nil {
		err = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return docmill.LocalFile{Path: path, Filename: name}
}

func TestPrepareImage(t *testing.T) {
	// A transparent image with one opaque black pixel: OCRmyPDF refuses
	// an alpha channel, so it must come out opaque, white where clear.
	alpha := image.NewNRGBA(image.Rect(0, 0, 40, 20))
	alpha.Set(1, 1, color.Black)
	f := writeImage(t, "alpha.png", alpha)
	dir := t.TempDir()
	got, err := prepareImage(f, f.Path, dir, docmill.DefaultLimits().ImagePixels)
	if err != nil {
		t.Fatal(err)
	}
	if got.path != filepath.Join(dir, "ocr-image.png") || got.dpi != fallbackDPI {
		t.Fatalf("prepared = %+v", got)
	}
	data, err := os.ReadFile(got.path)
	if err != nil {
		t.Fatal(err)
	}
	if pngHasAlpha(bytes.NewReader(data)) {
		t.Error("flattened PNG still has alpha")
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _, _ := img.At(5, 5).RGBA(); r != 0xffff {
		t.Errorf("clear pixel is not white: %v", img.At(5, 5))
	}
	if r, _, _, _ := img.At(1, 1).RGBA(); r != 0 {
		t.Errorf("black pixel is not black: %v", img.At(1, 1))
	}

	// An opaque JPEG is used as it is.
	f = writeImage(t, "photo.jpg", image.NewGray(image.Rect(0, 0, 10, 10)))
	if got, err := prepareImage(f, f.Path, t.TempDir(), docmill.DefaultLimits().ImagePixels); err != nil || got.path != f.Path {
		t.Errorf("opaque JPEG: %+v, %v", got, err)
	}
}

func TestPrepareImageRefuses(t *testing.T) {
	dir := t.TempDir()
	bomb := filepath.Join(dir, "bomb.png")
	// An IHDR claiming 20000 x 20000 pixels: refused from the header.
	data := pngBytes(2)
	binary.BigEndian.PutUint32(data[16:], 20000)
	binary.BigEndian.PutUint32(data[20:], 20000)
	binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29]))
	if _, err := png.DecodeConfig(bytes.NewReader(data)); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	if err := os.WriteFile(bomb, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := prepareImage(docmill.LocalFile{Path: bomb}, bomb, dir, docmill.DefaultLimits().ImagePixels)
	if docmill.ErrorCode(err) != docmill.CodeInvalidDocument {
		t.Errorf("bomb: %v", err)
	}
}

// TestPrepareImageLimit checks the pixel cap on a small image with lowered
// limits: 40 x 20 is 800 pixels.
func TestPrepareImageLimit(t *testing.T) {
	f := writeImage(t, "small.jpg", image.NewGray(image.Rect(0, 0, 40, 20)))
	for _, tt := range []struct {
		max int64
		ok  bool
	}{
		{800, true},
		{799, false},
		{100, false},
		{100_000_000, true},
	} {
		_, err := prepareImage(f, f.Path, t.TempDir(), tt.max)
		if tt.ok {
			if err != nil {
				t.Errorf("max %d: %v", tt.max, err)
			}
			continue
		}
		var e *docmill.Error
		if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument || !strings.HasPrefix(e.Message, "The image is 40 x 20 pixels;") {
			t.Errorf("max %d: %v, want invalid_document naming the size", tt.max, err)
		}
	}
	// The message states the limit in megapixels.
	big := writeImage(t, "big.jpg", image.NewGray(image.Rect(0, 0, 2000, 1000)))
	_, err := prepareImage(big, big.Path, t.TempDir(), 1_500_000)
	if e := (*docmill.Error)(nil); !errors.As(err, &e) || e.Message != "The image is 2000 x 1000 pixels; at most 1.5 megapixels are allowed." {
		t.Errorf("message: %v", err)
	}
}

func TestOutputName(t *testing.T) {
	for in, want := range map[string]string{
		"report.pdf":      "report-ocr.pdf",
		"scan.tiff":       "scan-ocr.pdf",
		"dir/photo.JPG":   "photo-ocr.pdf",
		".png":            "document-ocr.pdf",
		"":                "document-ocr.pdf",
		"archive.v2.scan": "archive.v2-ocr.pdf",
	} {
		if got := docmill.ResultName(in, "", "-ocr.pdf"); got != want {
			t.Errorf("ResultName(%q) = %q, want %q", in, got, want)
		}
	}
}
