package pdfops_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/docmill/docmill/tools/toolstest"
)

// These tests check what a reader shows: pages are rendered by poppler
// (pdftoppm) and their pixels compared with what the images should look
// like, so the tool's own geometry code is not used to compute what is
// expected.

// imgUpright is a 64x32 image with a different colour in each quadrant.
func imgUpright() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 64, 32))
	quad := []color.NRGBA{{255, 0, 0, 255}, {0, 160, 0, 255}, {0, 0, 255, 255}, {255, 255, 0, 255}}
	for y := range 32 {
		for x := range 64 {
			img.SetNRGBA(x, y, quad[(y/16)*2+x/32])
		}
	}
	return img
}

// imgStored returns the pixels a camera stores for the upright image u
// when it records EXIF orientation o: showing them as o says gives u
// back. The mapping is written from the EXIF definition of each value.
func imgStored(u *image.NRGBA, o int) *image.NRGBA {
	dw, dh := u.Bounds().Dx(), u.Bounds().Dy()
	sw, sh := dw, dh
	if o >= 5 {
		sw, sh = dh, dw
	}
	s := image.NewNRGBA(image.Rect(0, 0, sw, sh))
	for v := range sh {
		for x := range sw {
			var X, Y int // where stored pixel (x, v) is shown
			switch o {
			case 1:
				X, Y = x, v
			case 2: // mirrored left-right
				X, Y = sw-1-x, v
			case 3: // rotated 180
				X, Y = sw-1-x, sh-1-v
			case 4: // mirrored top-bottom
				X, Y = x, sh-1-v
			case 5: // transposed
				X, Y = v, x
			case 6: // stored rotated 90 counter-clockwise: show it turned clockwise
				X, Y = sh-1-v, x
			case 7: // transversed
				X, Y = sh-1-v, sw-1-x
			case 8: // stored rotated 90 clockwise: show it turned counter-clockwise
				X, Y = v, sw-1-x
			}
			s.SetNRGBA(x, v, u.NRGBAAt(X, Y))
		}
	}
	return s
}

// imgEXIF is a big-endian EXIF TIFF block holding only an orientation.
func imgEXIF(o int) []byte {
	b := []byte("MM\x00*\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01")
	return append(b, 0, byte(o), 0, 0, 0, 0, 0, 0)
}

// imgJPEGWithEXIF encodes img as a JPEG whose APP1 segment holds o.
func imgJPEGWithEXIF(t testing.TB, img image.Image, o int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	payload := append([]byte("Exif\x00\x00"), imgEXIF(o)...)
	app1 := append([]byte{0xFF, 0xE1, byte((len(payload) + 2) >> 8), byte(len(payload) + 2)}, payload...)
	b := buf.Bytes()
	return append(append(append([]byte{}, b[:2]...), app1...), b[2:]...)
}

// imgPNGWithEXIF encodes img as a PNG with an eXIf chunk holding o.
func imgPNGWithEXIF(t testing.TB, img image.Image, o int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	data := imgEXIF(o)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	chunk = append(append(chunk, "eXIf"...), data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(append([]byte("eXIf"), data...)))
	b := buf.Bytes()
	at := bytes.Index(b, []byte("IDAT")) - 4
	return append(append(append([]byte{}, b[:at]...), chunk...), b[at:]...)
}

func imgNear(c color.Color, want color.NRGBA, tol int) bool {
	r, g, b, _ := c.RGBA()
	d := func(v uint32, w uint8) bool { return math.Abs(float64(v>>8)-float64(w)) <= float64(tol) }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

// TestImagesToPDFOrientationRendered stores the same upright image under
// each of the eight EXIF orientations, in a JPEG and in a PNG, and checks
// that every page is rendered upright.
func TestImagesToPDFOrientationRendered(t *testing.T) {
	u := imgUpright()
	for _, format := range []string{"jpg", "png"} {
		for o := 1; o <= 8; o++ {
			t.Run(fmt.Sprintf("%s orientation %d", format, o), func(t *testing.T) {
				t.Parallel()
				var b []byte
				if format == "jpg" {
					b = imgJPEGWithEXIF(t, imgStored(u, o), o)
				} else {
					b = imgPNGWithEXIF(t, imgStored(u, o), o)
				}
				out, err := runImages(t, nil, toolstest.WriteTemp(t, "o."+format, b))
				if err != nil {
					t.Fatal(err)
				}
				if got := imgPageSizes(t, out.Path); !imgSameSizes(got, [][2]float64{{64, 32}}) {
					t.Fatalf("page size = %v, want 64 x 32", got)
				}
				page := imgRender(t, out.Path, 1, 72)
				for _, p := range []image.Point{{16, 8}, {48, 8}, {16, 24}, {48, 24}} {
					if want := u.NRGBAAt(p.X, p.Y); !imgNear(page.At(p.X, p.Y), want, 60) {
						t.Errorf("pixel %v = %v, want %v", p, page.At(p.X, p.Y), want)
					}
				}
			})
		}
	}
}

// TestImagesToPDFPlacement renders a black image on pages of each layout
// and checks the page is white just outside the expected rectangle and
// black just inside it.
func TestImagesToPDFPlacement(t *testing.T) {
	black := func(w, h int) string {
		var buf bytes.Buffer
		if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
			t.Fatal(err)
		}
		return toolstest.WriteTemp(t, fmt.Sprintf("black-%dx%d.png", w, h), buf.Bytes())
	}
	wide, tall := black(100, 50), black(50, 100)
	tests := []struct {
		name       string
		params     map[string]string
		file       string
		page       [2]float64
		x, y, w, h float64 // expected image rectangle, from the top left
	}{
		{"fit, small margin", map[string]string{"margin": "small"}, wide, [2]float64{140, 90}, 20, 20, 100, 50},
		{"fit, big margin", map[string]string{"margin": "big"}, tall, [2]float64{150, 200}, 50, 50, 50, 100},
		// 741.89 x 495.28 inside the margins; width limits: 741.89 x 370.945.
		{"a4 auto, big margin", map[string]string{"page_size": "a4", "margin": "big"}, wide,
			[2]float64{841.89, 595.28}, 50, (595.28 - 370.945) / 2, 741.89, 370.945},
		{"letter portrait, small margin", map[string]string{"page_size": "letter", "orientation": "portrait", "margin": "small"}, wide,
			[2]float64{612, 792}, 20, (792 - 286) / 2.0, 572, 286},
		// Scaled up until the height fills the page: 841.89 / 100.
		{"a4 auto, no margin, tall", map[string]string{"page_size": "a4"}, tall,
			[2]float64{595.28, 841.89}, (595.28 - 420.945) / 2, 0, 420.945, 841.89},
		{"a4 landscape forced, tall", map[string]string{"page_size": "a4", "orientation": "landscape", "margin": "small"}, tall,
			[2]float64{841.89, 595.28}, (841.89 - 277.64) / 2, 20, 277.64, 555.28},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := runImages(t, tt.params, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if got := imgPageSizes(t, out.Path); !imgSameSizes(got, [][2]float64{tt.page}) {
				t.Fatalf("page size = %v, want %v", got, tt.page)
			}
			page := imgRender(t, out.Path, 1, 72)
			white, dark := color.NRGBA{255, 255, 255, 255}, color.NRGBA{0, 0, 0, 255}
			cx, cy := tt.x+tt.w/2, tt.y+tt.h/2
			for _, p := range []struct {
				x, y   float64
				inside bool
			}{
				{tt.x - 3, cy, false}, {tt.x + 3, cy, true}, {tt.x + tt.w - 3, cy, true}, {tt.x + tt.w + 3, cy, false},
				{cx, tt.y - 3, false}, {cx, tt.y + 3, true}, {cx, tt.y + tt.h - 3, true}, {cx, tt.y + tt.h + 3, false},
			} {
				pt := image.Pt(int(p.x), int(p.y))
				if !pt.In(page.Bounds()) {
					continue // outside the page: the image touches its edge
				}
				want := white
				if p.inside {
					want = dark
				}
				if !imgNear(page.At(pt.X, pt.Y), want, 10) {
					t.Errorf("pixel %v = %v, want %v", pt, page.At(pt.X, pt.Y), want)
				}
			}
		})
	}
}

// TestImagesToPDFLossless renders pages and compares every pixel with
// the input composited over white: decoded formats are embedded without
// loss, alpha included.
func TestImagesToPDFLossless(t *testing.T) {
	const w, h = 24, 16
	nrgba := image.NewNRGBA(image.Rect(0, 0, w, h))
	gray := image.NewGray(image.Rect(0, 0, w, h))
	gray16 := image.NewGray16(image.Rect(0, 0, w, h))
	rgba64 := image.NewRGBA64(image.Rect(0, 0, w, h))
	nrgba64 := image.NewNRGBA64(image.Rect(0, 0, w, h))
	pal := color.Palette{color.NRGBA{0, 0, 0, 0}, color.NRGBA{200, 30, 30, 255}, color.NRGBA{30, 30, 200, 128}, color.NRGBA{250, 250, 20, 255}}
	paletted := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	for y := range h {
		for x := range w {
			r, g, b, a := uint8(x*10), uint8(y*15), uint8((x+y)*5), uint8(255-x*8)
			nrgba.SetNRGBA(x, y, color.NRGBA{r, g, b, a})
			gray.SetGray(x, y, color.Gray{uint8(x * 10)})
			gray16.SetGray16(x, y, color.Gray16{uint16(y) * 4000})
			rgba64.SetRGBA64(x, y, color.RGBA64{uint16(x) * 2700, uint16(y) * 4000, 30000, 0xFFFF})
			nrgba64.SetNRGBA64(x, y, color.NRGBA64{uint16(y) * 4000, 50000, uint16(x) * 2700, 0xFFFF - uint16(x)*2000})
			paletted.SetColorIndex(x, y, uint8((x/6+y/4)%4))
		}
	}
	encode := func(name string, img image.Image) string {
		var buf bytes.Buffer
		var err error
		switch name[len(name)-3:] {
		case "png":
			err = png.Encode(&buf, img)
		case "gif":
			err = gif.Encode(&buf, img, nil)
		case "iff":
			err = tiff.Encode(&buf, img, &tiff.Options{Compression: tiff.Deflate})
		}
		if err != nil {
			t.Fatal(err)
		}
		return toolstest.WriteTemp(t, name, buf.Bytes())
	}
	tests := map[string]image.Image{
		"nrgba.png": nrgba, "gray.png": gray, "gray16.png": gray16, "rgba64.png": rgba64, "nrgba64.png": nrgba64,
		"paletted.png": paletted, "paletted.gif": paletted, "nrgba.tiff": nrgba, "gray.tiff": gray,
	}
	for name, img := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := encode(name, img)
			out, err := runImages(t, nil, path)
			if err != nil {
				t.Fatal(err)
			}
			// What the file holds: GIF keeps no partial transparency.
			img, _, err = image.Decode(bytes.NewReader(imgReadFile(t, path)))
			if err != nil {
				t.Fatal(err)
			}
			// At 4 pixels a point, the centre of each 4x4 block shows one
			// image pixel whatever smoothing the renderer applies.
			page := imgRender(t, out.Path, 1, 4*72)
			if page.Bounds().Dx() != 4*w || page.Bounds().Dy() != 4*h {
				t.Fatalf("rendered %v, want %dx%d", page.Bounds(), 4*w, 4*h)
			}
			bad := 0
			for y := range h {
				for x := range w {
					c := color.NRGBA64Model.Convert(img.At(x, y)).(color.NRGBA64)
					over := func(v uint16) uint8 { // composited over white, 8 bits
						return uint8((float64(v)*float64(c.A)/65535 + 65535 - float64(c.A)) / 257)
					}
					want := color.NRGBA{over(c.R), over(c.G), over(c.B), 255}
					if got := page.At(4*x+2, 4*y+2); !imgNear(got, want, 3) {
						if bad++; bad <= 3 {
							t.Errorf("pixel (%d,%d) = %v, want %v", x, y, got, want)
						}
					}
				}
			}
		})
	}
}

// TestImagesToPDFCMYKJPEG checks that an Adobe CMYK JPEG, whose samples
// are stored inverted, renders with the colours Go's decoder sees in it.
func TestImagesToPDFCMYKJPEG(t *testing.T) {
	path := imageTestdata + "video-001.cmyk.jpeg"
	out, err := runImages(t, nil, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := imgPDFImages(t, out.Path); fmt.Sprint(got) != "[image jpeg]" {
		t.Errorf("pdfimages -list: %v, want one JPEG", got)
	}
	img, err := jpeg.Decode(bytes.NewReader(imgReadFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	page := imgRender(t, out.Path, 1, 72)
	var diff, n float64
	for y := 2; y < img.Bounds().Dy()-2; y += 4 {
		for x := 2; x < img.Bounds().Dx()-2; x += 4 {
			r1, g1, b1, _ := img.At(x, y).RGBA()
			r2, g2, b2, _ := page.At(x, y).RGBA()
			for _, d := range []float64{float64(r1) - float64(r2), float64(g1) - float64(g2), float64(b1) - float64(b2)} {
				diff += math.Abs(d) / 257
				n++
			}
		}
	}
	if mean := diff / n; mean > 20 {
		t.Errorf("rendered colours differ from the decoded JPEG by %.1f on average (inverted CMYK?)", mean)
	}
}
