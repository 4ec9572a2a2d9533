package toolstest

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"strings"
)

// ImagePDF returns a well-formed PDF of pages, each drawing its pictures
// side by side, every picture as a JPEG (quality 95) in a 144 pt square:
// a picture of 600x600 pixels is at 300 dpi. It is a generated stand-in
// for tests whose tools act on a PDF's images (compress-pdf,
// extract-images), not a real-world one from the corpus.
func ImagePDF(pages ...[]image.Image) []byte {
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", ""}
	var kids []string
	for _, pics := range pages {
		page := len(objects) + 1 // then its content, then its pictures
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
		var xobjects, content strings.Builder
		var pictures []string
		for i, pic := range pics {
			var b bytes.Buffer
			jpeg.Encode(&b, pic, &jpeg.Options{Quality: 95}) // cannot fail on an in-memory image
			r := pic.Bounds()
			fmt.Fprintf(&xobjects, "/Im%d %d 0 R ", i, page+2+i)
			fmt.Fprintf(&content, "q 144 0 0 144 %d 600 cm /Im%d Do Q ", 36+150*i, i)
			pictures = append(pictures, fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "+
				"/BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream", r.Dx(), r.Dy(), b.Len(), b.Bytes()))
		}
		c := content.String()
		objects = append(objects,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << %s>> >> /Contents %d 0 R >>", xobjects.String(), page+1),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c), c))
		objects = append(objects, pictures...)
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages))
	return PDF(objects...)
}

// Picture returns a w x h picture of fine detail (gradients crossed by a
// fixed pattern of dots), which JPEG at quality 95 stores large and a
// lower quality or resolution stores much smaller; seed varies it.
func Picture(w, h, seed int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	x32 := uint32(2463534242 + seed)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			x32 ^= x32 << 13
			x32 ^= x32 >> 17
			x32 ^= x32 << 5
			dot := uint8(x32 & 0x3f)
			img.Set(x, y, color.RGBA{uint8(x*255/max(w, 1)) ^ dot, uint8(y*255/max(h, 1)) ^ dot, uint8((x+y+seed*40)%256) ^ dot, 255})
		}
	}
	return img
}
