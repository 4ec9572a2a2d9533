package toolstest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// imagePDF is a one-page PDF showing a 256 x 256 grey image whose pixels
// are pixels (uncompressed, so that qpdf's QDF form holds them as they
// are), with date as its creation date and an XMP stream of xmpSize bytes
// naming the same date.
func imagePDF(pixels []byte, date string, xmpSize int) []byte {
	xmp := fmt.Sprintf(`<x:xmpmeta><xmp:CreateDate>%s</xmp:CreateDate></x:xmpmeta>`, date)
	xmp += strings.Repeat(" ", max(0, xmpSize-len(xmp)))
	return PDF(
		"<< /Type /Catalog /Pages 2 0 R /Metadata 6 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 256 256] /Resources << /XObject << /Im1 4 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width 256 /Height 256 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length %d >>\nstream\n%s\nendstream", len(pixels), pixels),
		"<< /Length 30 >>\nstream\nq 256 0 0 256 0 0 cm /Im1 Do Q\nendstream",
		fmt.Sprintf("<< /Type /Metadata /Subtype /XML /Length %d >>\nstream\n%s\nendstream", len(xmp), xmp),
		fmt.Sprintf("<< /CreationDate (D:%s) >>", date),
	)
}

// TestFingerprintPDF: a PDF's fingerprint leaves out its dates, in its
// objects and in a text stream however large, and tells apart two
// images (large binary streams, compared by their hash) that differ in
// one pixel.
func TestFingerprintPDF(t *testing.T) {
	Need(t, "qpdf")
	pixels := bytes.Repeat([]byte{0xff, 0x80, 0x00, 0x7f}, 256*256/4)
	dot := bytes.Clone(pixels)
	dot[len(dot)/2] ^= 1
	print := func(name string, b []byte) []byte { return Fingerprint(t, WriteTemp(t, name, b)) }
	for _, xmpSize := range []int{100, hashedStream + 1} {
		a := print("a.pdf", imagePDF(pixels, "20260101000000", xmpSize))
		if b := print("b.pdf", imagePDF(pixels, "20261129120000", xmpSize)); !bytes.Equal(a, b) {
			t.Errorf("XMP of %d bytes: the same document made at another time has another fingerprint", xmpSize)
		}
		if c := print("c.pdf", imagePDF(dot, "20260101000000", xmpSize)); bytes.Equal(a, c) {
			t.Errorf("XMP of %d bytes: an image one pixel apart has the same fingerprint", xmpSize)
		}
		if !bytes.Contains(a, []byte("binary stream sha256:")) {
			t.Errorf("the %d-byte image is not fingerprinted by its hash", len(pixels))
		}
	}
}
