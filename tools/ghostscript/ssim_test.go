package ghostscript_test

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// grayPlane is an image's luma as float64, row-major.
type grayPlane struct {
	w, h int
	pix  []float64
}

// toGray converts img to its luma plane (color.GrayModel's weights).
func toGray(img image.Image) grayPlane {
	r := img.Bounds()
	g := grayPlane{w: r.Dx(), h: r.Dy(), pix: make([]float64, r.Dx()*r.Dy())}
	for y := range g.h {
		for x := range g.w {
			c := color.GrayModel.Convert(img.At(r.Min.X+x, r.Min.Y+y)).(color.Gray)
			g.pix[y*g.w+x] = float64(c.Y)
		}
	}
	return g
}

// ssimWindow is the side of SSIM's Gaussian window and ssimSigma its
// standard deviation: the 11x11, sigma 1.5 window of Wang et al. (2004).
const (
	ssimWindow = 11
	ssimSigma  = 1.5
)

// ssim returns the mean structural similarity of two grey images (Wang,
// Bovik, Sheikh, Simoncelli 2004): 1 for identical images, lower the more
// they differ in local mean, contrast and structure. Images whose sizes
// differ by a pixel (a rounding of the page size) are compared on their
// common area; larger differences are an error.
func ssim(a, b image.Image) (float64, error) {
	x, y := toGray(a), toGray(b)
	if abs(x.w-y.w) > 1 || abs(x.h-y.h) > 1 {
		return 0, fmt.Errorf("ssim: sizes %dx%d and %dx%d differ", x.w, x.h, y.w, y.h)
	}
	w, h := min(x.w, y.w), min(x.h, y.h)
	if w < ssimWindow || h < ssimWindow {
		return 0, fmt.Errorf("ssim: %dx%d is smaller than the window", w, h)
	}
	x, y = x.crop(w, h), y.crop(w, h)
	xy := grayPlane{w: w, h: h, pix: make([]float64, w*h)}
	xx := grayPlane{w: w, h: h, pix: make([]float64, w*h)}
	yy := grayPlane{w: w, h: h, pix: make([]float64, w*h)}
	for i := range xy.pix {
		xy.pix[i] = x.pix[i] * y.pix[i]
		xx.pix[i] = x.pix[i] * x.pix[i]
		yy.pix[i] = y.pix[i] * y.pix[i]
	}
	k := gaussianKernel()
	mx, my := x.blur(k), y.blur(k)
	sxx, syy, sxy := xx.blur(k), yy.blur(k), xy.blur(k)
	const c1, c2 = (0.01 * 255) * (0.01 * 255), (0.03 * 255) * (0.03 * 255)
	var sum float64
	for i := range mx.pix {
		ux, uy := mx.pix[i], my.pix[i]
		vx, vy, cov := sxx.pix[i]-ux*ux, syy.pix[i]-uy*uy, sxy.pix[i]-ux*uy
		sum += (2*ux*uy + c1) * (2*cov + c2) / ((ux*ux + uy*uy + c1) * (vx + vy + c2))
	}
	return sum / float64(len(mx.pix)), nil
}

// crop returns the top-left w x h of g.
func (g grayPlane) crop(w, h int) grayPlane {
	if w == g.w && h == g.h {
		return g
	}
	c := grayPlane{w: w, h: h, pix: make([]float64, 0, w*h)}
	for y := range h {
		c.pix = append(c.pix, g.pix[y*g.w:y*g.w+w]...)
	}
	return c
}

// gaussianKernel returns the normalised 1-D Gaussian of the SSIM window.
func gaussianKernel() []float64 {
	k := make([]float64, ssimWindow)
	var sum float64
	for i := range k {
		d := float64(i - ssimWindow/2)
		k[i] = math.Exp(-d * d / (2 * ssimSigma * ssimSigma))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	return k
}

// blur filters g with the separable kernel k, keeping only the positions
// where the whole window fits (the "valid" area), as the reference SSIM
// does.
func (g grayPlane) blur(k []float64) grayPlane {
	n := len(k)
	rows := grayPlane{w: g.w - n + 1, h: g.h, pix: make([]float64, (g.w-n+1)*g.h)}
	for y := range g.h {
		for x := range rows.w {
			var s float64
			for i, kv := range k {
				s += kv * g.pix[y*g.w+x+i]
			}
			rows.pix[y*rows.w+x] = s
		}
	}
	out := grayPlane{w: rows.w, h: g.h - n + 1, pix: make([]float64, rows.w*(g.h-n+1))}
	for y := range out.h {
		for x := range out.w {
			var s float64
			for i, kv := range k {
				s += kv * rows.pix[(y+i)*rows.w+x]
			}
			out.pix[y*out.w+x] = s
		}
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// renderFirstPage renders page 1 of the PDF at path in grey at dpi with
// pdftoppm and decodes it.
func renderFirstPage(tb testing.TB, path string, dpi int) image.Image {
	tb.Helper()
	return toolstest.RenderPage(tb, path, 1, dpi, "-gray")
}

// TestSSIM: identical images score 1; noise and blur score less, stronger
// noise less still; two flat images score the closed form of the
// luminance term, (2ab+C1)/(a²+b²+C1); sizes differing by more than a
// pixel are an error.
func TestSSIM(t *testing.T) {
	base := testPattern(64, 48)
	flat := func(v uint8) *image.Gray { return fill(base.Bounds(), color.Gray{Y: v}) }
	const c1 = (0.01 * 255) * (0.01 * 255)
	tests := []struct {
		name     string
		a, b     image.Image
		min, max float64
	}{
		{"identical", base, base, 1, 1},
		{"light noise", base, addNoise(base, 8), 0.95, 0.995},
		{"heavy noise", base, addNoise(base, 64), 0.4, 0.8},
		{"box blur", base, boxBlur(base), 0.6, 0.9},
		{"pattern and flat grey", base, flat(128), -0.1, 0.2},
		{"flat 100 and 110", flat(100), flat(110), (22000 + c1) / (22100 + c1), (22000 + c1) / (22100 + c1)},
		{"one pixel narrower", base, crop(base, 63, 48), 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ssim(tt.a, tt.b)
			if err != nil {
				t.Fatal(err)
			}
			if got < tt.min-1e-9 || got > tt.max+1e-9 {
				t.Errorf("ssim = %.6f, want in [%g, %g]", got, tt.min, tt.max)
			}
		})
	}
	if _, err := ssim(base, crop(base, 40, 48)); err == nil {
		t.Error("ssim of 64x48 and 40x48: no error")
	}
}

// testPattern is a grey image with edges, gradients and texture.
func testPattern(w, h int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := (x*255/w + y*3) % 256
			if (x/8+y/8)%2 == 0 {
				v = 255 - v
			}
			img.SetGray(x, y, color.Gray{Y: uint8(v)})
		}
	}
	return img
}

// addNoise adds a deterministic pseudo-random offset of up to ±amp to
// every pixel.
func addNoise(src *image.Gray, amp int) *image.Gray {
	dst := image.NewGray(src.Bounds())
	state := uint32(1)
	for i, v := range src.Pix {
		state = state*1664525 + 1013904223
		n := int(state>>24)%(2*amp+1) - amp
		dst.Pix[i] = uint8(min(max(int(v)+n, 0), 255))
	}
	return dst
}

// boxBlur averages every pixel with its 3x3 neighbourhood.
func boxBlur(src *image.Gray) *image.Gray {
	r := src.Bounds()
	dst := image.NewGray(r)
	for y := range r.Dy() {
		for x := range r.Dx() {
			var sum, n int
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if p := image.Pt(x+dx, y+dy); p.In(r) {
						sum += int(src.GrayAt(p.X, p.Y).Y)
						n++
					}
				}
			}
			dst.SetGray(x, y, color.Gray{Y: uint8(sum / n)})
		}
	}
	return dst
}

// crop returns the top-left w x h of src.
func crop(src *image.Gray, w, h int) *image.Gray {
	return src.SubImage(image.Rect(0, 0, w, h)).(*image.Gray)
}

// fill returns an image of bounds r in colour c.
func fill(r image.Rectangle, c color.Color) *image.Gray {
	img := image.NewGray(r)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			img.Set(x, y, c)
		}
	}
	return img
}
