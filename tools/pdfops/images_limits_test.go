package pdfops_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/gif"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// imgPNGHeader is the start of a PNG claiming w x h RGB pixels: a valid
// signature and header chunk, and no image data.
func imgPNGHeader(w, h uint32) []byte {
	ihdr := binary.BigEndian.AppendUint32(nil, w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 2, 0, 0, 0)
	b := append([]byte("\x89PNG\r\n\x1a\n"), 0, 0, 0, 13)
	b = append(append(b, "IHDR"...), ihdr...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(append([]byte("IHDR"), ihdr...)))
}

// imgJPEGHeader is the start of a baseline JPEG claiming w x h pixels:
// a JFIF header (after which Go reads the configuration from the frame
// header alone) and a frame header.
func imgJPEGHeader(w, h uint16) []byte {
	return []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
		0xFF, 0xC0, 0x00, 0x11, 0x08, byte(h >> 8), byte(h), byte(w >> 8), byte(w),
		0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01}
}

func TestImagesToPDFBadInput(t *testing.T) {
	c := imageCorpus(t)
	half := func(path, name string) string {
		b := imgReadFile(t, path)
		return toolstest.WriteTemp(t, name, b[:len(b)/2])
	}
	var gifBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, image.NewGray(image.Rect(0, 0, 64, 64)), nil); err != nil {
		t.Fatal(err)
	}
	headers := func(n int, w, h uint32) []string {
		var paths []string
		for i := range n {
			paths = append(paths, toolstest.WriteTemp(t, fmt.Sprintf("big-%d.png", i), imgPNGHeader(w, h)))
		}
		return paths
	}
	many := make([]string, 201)
	for i := range many {
		many[i] = c + "smile.png"
	}
	tests := []struct {
		name     string
		files    []string
		code     docmill.Code
		contains []string
	}{
		{"damaged JPEG", []string{c + "corrupted.jpg"}, docmill.CodeInvalidDocument, []string{"The file", `"corrupted.jpg"`, "JPEG", "damaged"}},
		{"damaged JPEG second", []string{c + "photo.jpg", c + "corrupted.jpg"}, docmill.CodeInvalidDocument, []string{"File 2", `"corrupted.jpg"`}},
		{"empty", []string{c + "photo.jpg", toolstest.WriteTemp(t, "empty.png", nil)}, docmill.CodeInvalidDocument, []string{"File 2", `"empty.png"`, "empty"}},
		{"truncated PNG", []string{half(c+"map.png", "map.png")}, docmill.CodeInvalidDocument, []string{`"map.png"`, "PNG", "truncated"}},
		{"truncated JPEG", []string{half(c+"photo.jpg", "photo.jpg")}, docmill.CodeInvalidDocument, []string{`"photo.jpg"`, "JPEG"}},
		{"JPEG headers only", []string{toolstest.WriteTemp(t, "head.jpg", imgReadFile(t, c+"phone-photo.jpg")[:1200])}, docmill.CodeInvalidDocument, []string{"JPEG"}},
		{"truncated TIFF", []string{toolstest.WriteTemp(t, "smile.tiff", imgReadFile(t, c+"smile.tiff")[:100])}, docmill.CodeInvalidDocument, []string{"TIFF"}},
		{"truncated WebP", []string{half(imageTestdata+"blue-purple-pink.lossy.webp", "pink.webp")}, docmill.CodeInvalidDocument, []string{"WebP"}},
		{"truncated GIF", []string{toolstest.WriteTemp(t, "g.gif", gifBuf.Bytes()[:gifBuf.Len()/2])}, docmill.CodeInvalidDocument, []string{"GIF"}},
		{"text", []string{toolstest.WriteTemp(t, "notes.png", []byte("not an image\n"))}, docmill.CodeInvalidDocument, []string{`"notes.png"`, "not a JPEG, PNG, GIF, TIFF or WebP image"}},
		{"PDF", []string{c + "photo.jpg", onePagePDF(t)}, docmill.CodeInvalidDocument, []string{"File 2", "not a JPEG"}},
		{"PNG bomb", []string{toolstest.WriteTemp(t, "bomb.png", imgPNGHeader(50000, 50000))}, docmill.CodeInvalidDocument, []string{"50000 x 50000 pixels", "PNG images of up to 50 megapixels"}},
		{"JPEG bomb", []string{toolstest.WriteTemp(t, "bomb.jpg", imgJPEGHeader(65000, 65000))}, docmill.CodeInvalidDocument, []string{"65000 x 65000 pixels", "JPEG images of up to 200 megapixels"}},
		// 7 images of 49 megapixels: each is allowed, together they are
		// not. They hold no image data, so decoding any would fail first.
		{"decoded pixels together", headers(7, 7000, 7000), docmill.CodeInvalidDocument, []string{"343 megapixels", "up to 300"}},
		{"one file too large", []string{c + "photo.jpg", sparseFile(t, pdfops.MaxInputBytes+1)}, docmill.CodeFileTooLarge, []string{"File 2", "513 MB", "images of up to 512 MB"}},
		{"too large together", []string{sparseFile(t, pdfops.MaxInputBytes/2), sparseFile(t, pdfops.MaxInputBytes/2+1)}, docmill.CodeFileTooLarge, []string{"in total"}},
		{"too many files", many, docmill.CodeTooManyFiles, []string{"at most 200"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := runImages(t, nil, tt.files...)
			wantRefused(t, out, err, tt.code, tt.contains...)
		})
	}
}

// TestImagesToPDFLimitsAdmit checks images at the edge of the caps are
// converted: a JPEG over the decoded-image cap (JPEGs are not decoded)
// and the maximum number of files.
func TestImagesToPDFLimitsAdmit(t *testing.T) {
	t.Run("200 files", func(t *testing.T) {
		t.Parallel()
		files := make([]string, 200)
		for i := range files {
			files[i] = imageCorpus(t) + []string{"smile.png", "photo.jpg"}[i%2]
		}
		out, err := runImages(t, map[string]string{"page_size": "a4"}, files...)
		if err != nil {
			t.Fatal(err)
		}
		if doc := readBack(t, out.Path); doc.PageCount != 200 || out.Meta["pages"] != 200 {
			t.Errorf("%d pages (meta %v), want 200", doc.PageCount, out.Meta)
		}
	})
	t.Run("JPEG of 60 megapixels", func(t *testing.T) {
		t.Parallel()
		// The structural check needs a whole JPEG, so write one: a tiny
		// image whose frame header is patched to claim 10000 x 6000.
		b := imgJPEGWithEXIF(t, image.NewGray(image.Rect(0, 0, 8, 8)), 1)
		sof := bytes.Index(b, []byte{0xFF, 0xC0})
		copy(b[sof+5:], []byte{6000 >> 8, 6000 & 0xFF, 10000 >> 8, 10000 & 0xFF})
		out, err := runImages(t, nil, toolstest.WriteTemp(t, "large.jpg", b))
		if err != nil {
			t.Fatal(err)
		}
		if got := imgPageSizes(t, out.Path); !imgSameSizes(got, [][2]float64{{10000, 6000}}) {
			t.Errorf("page size = %v, want 10000 x 6000", got)
		}
	})
}
