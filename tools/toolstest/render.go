package toolstest

import (
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// RenderPage renders page n of the PDF at path at dpi with poppler's
// pdftoppm, a renderer independent of the tools under test, and decodes
// it; options (such as "-gray") are passed on. Any failure, pdftoppm
// missing included, fails t: a caller that would rather skip checks for
// pdftoppm first.
func RenderPage(t testing.TB, path string, n, dpi int, options ...string) image.Image {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "page")
	page := strconv.Itoa(n)
	args := append(options, "-r", strconv.Itoa(dpi), "-f", page, "-l", page, "-singlefile", "-png", path, prefix)
	if out, err := exec.Command("pdftoppm", args...).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm %s: %v\n%s", filepath.Base(path), err, out)
	}
	return DecodePNG(t, prefix+".png")
}

// DecodePNG reads the PNG file at path, failing t if it cannot.
func DecodePNG(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// MeanDiff is the mean difference of two renders' grey levels, from 0
// (the same) to 1; renders of different sizes differ by 1.
func MeanDiff(a, b image.Image) float64 {
	if a.Bounds() != b.Bounds() {
		return 1
	}
	var sum float64
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ar, ag, ab, _ := a.At(x, y).RGBA()
			br, bg, bb, _ := b.At(x, y).RGBA()
			ga, gb := float64(ar+ag+ab)/3, float64(br+bg+bb)/3
			if ga > gb {
				sum += ga - gb
			} else {
				sum += gb - ga
			}
		}
	}
	return sum / 0xffff / float64(r.Dx()*r.Dy())
}
