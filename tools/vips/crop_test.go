package vips

import (
	"image/color"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

func TestCropCorner(t *testing.T) {
	tool := testTool(t, "crop-image")
	// 60x40, marker 10x10 top-left.
	path := toolstest.WriteTemp(t, "corner.png", toolstest.Corner(t, 60, 40, 10))
	for _, tt := range []struct {
		name   string
		raw    map[string]string
		w, h   int
		marked []string
	}{
		{"keeps the marker", map[string]string{"width": "20", "height": "20"}, 20, 20, []string{"top-left"}},
		{"16x16", map[string]string{"width": "16", "height": "16", "left": "0", "top": "0"}, 16, 16, []string{"top-left"}},
		{"off the marker", map[string]string{"left": "10", "top": "10", "width": "50", "height": "30"}, 50, 30, nil},
		{"whole", map[string]string{"width": "60", "height": "40"}, 60, 40, []string{"top-left"}},
		{"last pixel", map[string]string{"left": "59", "top": "39", "width": "1", "height": "1"}, 1, 1, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := mustRunTool(t, tool, path, tt.raw)
			img := decodeOutput(t, out.Path)
			if s := img.Bounds().Size(); s.X != tt.w || s.Y != tt.h || out.Meta["width"] != tt.w || out.Meta["height"] != tt.h {
				t.Fatalf("size %v (meta %v), want %dx%d", s, out.Meta, tt.w, tt.h)
			}
			if out.Filename != "corner-cropped.png" || out.ContentType != "image/png" {
				t.Errorf("result %s %s", out.Filename, out.ContentType)
			}
			if tt.w < 8 {
				return
			}
			if got := markedCorners(img); len(got) != len(tt.marked) || len(got) > 0 && got[0] != tt.marked[0] {
				t.Errorf("marker in %v, want %v", got, tt.marked)
			}
		})
	}
	// The marker's own pixels: a 10x10 box at 0,0 is all marker, one at
	// 10,0 has none.
	out := mustRunTool(t, tool, path, map[string]string{"width": "10", "height": "10"})
	img := decodeOutput(t, out.Path)
	for y := range 10 {
		for x := range 10 {
			if !toolstest.Near(img.At(x, y), toolstest.Marker, 2) {
				t.Fatalf("pixel %d,%d is %v, want the marker", x, y, img.At(x, y))
			}
		}
	}
}

// TestCropOrientation: the box is in pixels of the image as seen. Stored
// 40x20 (red left, blue right) with orientation 6 is seen 20x40, red on
// top: the top 20x20 is red, and a 40-wide box does not fit.
func TestCropOrientation(t *testing.T) {
	tool := testTool(t, "crop-image")
	path := toolstest.WriteTemp(t, "turned.jpg", orientedJPEG(t, 40, 20, 6))
	out := mustRunTool(t, tool, path, map[string]string{"width": "20", "height": "18"})
	img := decodeOutput(t, out.Path)
	if s := img.Bounds().Size(); s.X != 20 || s.Y != 18 {
		t.Fatalf("size %v", s)
	}
	if c := img.At(10, 9); !toolstest.Near(c, color.RGBA{200, 0, 0, 255}, 40) {
		t.Errorf("centre %v, want red", c)
	}
	_, err := runTool(t, tool, path, map[string]string{"width": "40", "height": "10"})
	toolstest.WantCode(t, err, "invalid_parameter", "width")
}

func TestCropOutside(t *testing.T) {
	tool := testTool(t, "crop-image")
	photo := corpusImage(t, "photo.jpg") // 300x200
	for _, tt := range []struct {
		raw   map[string]string
		field string
	}{
		{map[string]string{"left": "300", "width": "1", "height": "1"}, "left"},
		{map[string]string{"top": "200", "width": "1", "height": "1"}, "top"},
		{map[string]string{"left": "250", "width": "51", "height": "1"}, "width"},
		{map[string]string{"top": "100", "width": "1", "height": "101"}, "height"},
		{map[string]string{"width": "0", "height": "1"}, "width"},
		{map[string]string{"left": "-1", "width": "1", "height": "1"}, "left"},
		{map[string]string{"height": "1"}, "width"},
		{map[string]string{"width": "20001", "height": "1"}, "width"},
	} {
		t.Run(paramString(tt.raw)+","+tt.field, func(t *testing.T) {
			_, err := runTool(t, tool, photo, tt.raw)
			e := toolstest.WantCode(t, err, "invalid_parameter", tt.field)
			if len(e.Message) == 0 {
				t.Error("no message")
			}
		})
	}
	// Within bounds, right up to the edges.
	out := mustRunTool(t, tool, photo, map[string]string{"left": "250", "top": "100", "width": "50", "height": "100"})
	wantDecodedSize(t, out, 50, 100)
}
