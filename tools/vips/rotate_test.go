package vips

import (
	"bytes"
	"image"
	"image/color"
	"os"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// decodeOutput decodes a result fully with Go's decoders.
func decodeOutput(t *testing.T, path string) image.Image {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s does not decode: %v", path, err)
	}
	return img
}

// markedCorners names the corners of img whose pixel 3 px in from both
// edges is toolstest.Marker.
func markedCorners(img image.Image) []string {
	r := img.Bounds()
	var out []string
	for _, c := range []struct {
		name string
		x, y int
	}{
		{"top-left", r.Min.X + 3, r.Min.Y + 3}, {"top-right", r.Max.X - 4, r.Min.Y + 3},
		{"bottom-left", r.Min.X + 3, r.Max.Y - 4}, {"bottom-right", r.Max.X - 4, r.Max.Y - 4},
	} {
		if toolstest.Near(img.At(c.x, c.y), toolstest.Marker, 40) {
			out = append(out, c.name)
		}
	}
	return out
}

func TestRotateCorner(t *testing.T) {
	tool := testTool(t, "rotate-image")
	// 60x40 with the marker square top-left; turned clockwise.
	path := toolstest.WriteTemp(t, "corner.png", toolstest.Corner(t, 60, 40, 10))
	for _, tt := range []struct {
		angle  string
		w, h   int
		corner string
	}{
		{"90", 40, 60, "top-right"},
		{"180", 60, 40, "bottom-right"},
		{"270", 40, 60, "bottom-left"},
		{"auto", 60, 40, "top-left"}, // no EXIF: unchanged
	} {
		t.Run(tt.angle, func(t *testing.T) {
			out := mustRunTool(t, tool, path, map[string]string{"angle": tt.angle})
			img := decodeOutput(t, out.Path)
			if b := img.Bounds(); b.Dx() != tt.w || b.Dy() != tt.h || out.Meta["width"] != tt.w || out.Meta["height"] != tt.h {
				t.Errorf("size %v (meta %v), want %dx%d", b, out.Meta, tt.w, tt.h)
			}
			if got := markedCorners(img); len(got) != 1 || got[0] != tt.corner {
				t.Errorf("marker in %v, want %s", got, tt.corner)
			}
			if out.ContentType != "image/png" || out.Filename != "corner-rotated.png" {
				t.Errorf("result %s %s", out.Filename, out.ContentType)
			}
		})
	}
}

// TestRotateOrientation: a JPEG stored 40x20 (left half red, right half
// blue) with EXIF orientation 6 is seen 20x40, red on top. auto makes
// the pixels so and drops the tag; 90 turns the image as seen.
func TestRotateOrientation(t *testing.T) {
	tool := testTool(t, "rotate-image")
	path := toolstest.WriteTemp(t, "turned.jpg", orientedJPEG(t, 40, 20, 6))
	red, blue := color.RGBA{200, 0, 0, 255}, color.RGBA{0, 0, 200, 255}
	for _, tt := range []struct {
		angle                   string
		w, h                    int
		first, second           image.Point // pixels that must be red, then blue
		firstColor, secondColor color.RGBA
	}{
		{"auto", 20, 40, image.Pt(10, 5), image.Pt(10, 34), red, blue},
		{"90", 40, 20, image.Pt(34, 10), image.Pt(5, 10), red, blue},
		{"180", 20, 40, image.Pt(10, 34), image.Pt(10, 5), red, blue},
	} {
		t.Run(tt.angle, func(t *testing.T) {
			out := mustRunTool(t, tool, path, map[string]string{"angle": tt.angle})
			b, err := os.ReadFile(out.Path)
			if err != nil {
				t.Fatal(err)
			}
			if o := toolstest.JPEGOrientation(b); o > 1 {
				t.Errorf("result keeps EXIF orientation %d", o)
			}
			img := decodeOutput(t, out.Path)
			if s := img.Bounds().Size(); s.X != tt.w || s.Y != tt.h {
				t.Fatalf("size %v, want %dx%d", s, tt.w, tt.h)
			}
			if !toolstest.Near(img.At(tt.first.X, tt.first.Y), tt.firstColor, 40) ||
				!toolstest.Near(img.At(tt.second.X, tt.second.Y), tt.secondColor, 40) {
				t.Errorf("pixels %v at %v and %v at %v", img.At(tt.first.X, tt.first.Y), tt.first, img.At(tt.second.X, tt.second.Y), tt.second)
			}
		})
	}
}

// TestRotateKeepsFormat: each input format comes back in its own format,
// turned (a 300x200 photo becomes 200x300).
func TestRotateKeepsFormat(t *testing.T) {
	tool := testTool(t, "rotate-image")
	for _, name := range []string{"photo.jpg", "smile.tiff", "map.png"} {
		t.Run(name, func(t *testing.T) {
			in := corpusImage(t, name)
			w, h, err := goSize(fileOf(in))
			if err != nil {
				t.Fatal(err)
			}
			out := mustRunTool(t, tool, in, map[string]string{"angle": "270"})
			if out.ContentType != fileOf(in).ContentType {
				t.Errorf("content type %s", out.ContentType)
			}
			wantDecodedSize(t, out, h, w)
		})
	}
}
