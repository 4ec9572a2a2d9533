package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// upload is an in-memory file to send.
func upload(name string, b []byte) []client.File {
	return []client.File{{Name: name, Body: bytes.NewReader(b)}}
}

// decodeImage decodes a result with Go's decoders (not vips, which made
// it) and returns it with its format name.
func decodeImage(t *testing.T, data []byte) (image.Image, string) {
	t.Helper()
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("result does not decode: %v", err)
	}
	return img, format
}

// markerAt reports whether the pixel 3 px in from corner (x, y) of img,
// counted from the edges that corner touches, is toolstest.Marker.
func markerAt(img image.Image, right, bottom bool) bool {
	r := img.Bounds()
	x, y := r.Min.X+3, r.Min.Y+3
	if right {
		x = r.Max.X - 4
	}
	if bottom {
		y = r.Max.Y - 4
	}
	return toolstest.Near(img.At(x, y), toolstest.Marker, 40)
}

func TestRotateImageE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	t.Run("corner", func(t *testing.T) {
		// 60x40, marker top-left; 90 clockwise: 40x60, marker top-right.
		j, data := runTool(t, c, "rotate-image", upload("corner.png", toolstest.Corner(t, 60, 40, 10)), map[string]string{"angle": "90"})
		img, format := decodeImage(t, data)
		if format != "png" || j.Result.Filename != "corner-rotated.png" || img.Bounds().Dx() != 40 || img.Bounds().Dy() != 60 {
			t.Fatalf("%s %s %v", j.Result.Filename, format, img.Bounds())
		}
		if !markerAt(img, true, false) || markerAt(img, false, false) || markerAt(img, false, true) || markerAt(img, true, true) {
			t.Error("the marker is not (only) in the top-right corner")
		}
	})
	t.Run("auto", func(t *testing.T) {
		// Stored 40x20 with EXIF orientation 6: seen 20x40; auto makes it
		// so and drops the tag.
		_, data := runTool(t, c, "rotate-image", upload("sideways.jpg", toolstest.OrientedJPEG(t, 40, 20, 6)), map[string]string{"angle": "auto"})
		cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil || format != "jpeg" || cfg.Width != 20 || cfg.Height != 40 {
			t.Fatalf("%v %s %dx%d", err, format, cfg.Width, cfg.Height)
		}
		if o := toolstest.JPEGOrientation(data); o > 1 {
			t.Errorf("EXIF orientation %d kept", o)
		}
	})
	t.Run("photo", func(t *testing.T) {
		j, data := runTool(t, c, "rotate-image", []client.File{file(t, "image", "photo.jpg")}, map[string]string{"angle": "270"})
		cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width != 200 || cfg.Height != 300 || !metaIs(j.Meta, "width", 200) {
			t.Fatalf("%v %dx%d meta %v", err, cfg.Width, cfg.Height, j.Meta)
		}
	})
	t.Run("damaged", func(t *testing.T) {
		_, _, err := c.Process(context.Background(), "rotate-image", []client.File{file(t, "image", "corrupted.jpg")}, client.ProcessOptions{})
		apiError(t, err, 400, "invalid_document")
	})
	t.Run("bad angle", func(t *testing.T) {
		_, _, err := c.Process(context.Background(), "rotate-image", []client.File{file(t, "image", "photo.jpg")}, client.ProcessOptions{Params: map[string]string{"angle": "45"}})
		apiErrorDetail(t, err, 400, "invalid_parameter", "angle")
	})
}

// metaIs reports whether a job's meta figure name is the integer want.
func metaIs(m client.Meta, name string, want int64) bool {
	n, ok := m.Int(name)
	return ok && n == want
}

func TestCropImageE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	corner := func() []client.File { return upload("corner.png", toolstest.Corner(t, 60, 40, 10)) }
	t.Run("marker kept", func(t *testing.T) {
		// The top-left 30x20 of a 60x40 image with a 10x10 marker there.
		j, data := runTool(t, c, "crop-image", corner(), map[string]string{"width": "30", "height": "20"})
		img, format := decodeImage(t, data)
		if format != "png" || j.Result.Filename != "corner-cropped.png" || img.Bounds().Dx() != 30 || img.Bounds().Dy() != 20 {
			t.Fatalf("%s %s %v", j.Result.Filename, format, img.Bounds())
		}
		if !markerAt(img, false, false) || markerAt(img, true, false) || markerAt(img, true, true) {
			t.Error("the marker is not (only) top-left")
		}
	})
	t.Run("marker cut off", func(t *testing.T) {
		_, data := runTool(t, c, "crop-image", corner(), map[string]string{"left": "10", "top": "10", "width": "50", "height": "30"})
		img, _ := decodeImage(t, data)
		if img.Bounds().Dx() != 50 || img.Bounds().Dy() != 30 || markerAt(img, false, false) {
			t.Fatalf("%v, marker top-left %v", img.Bounds(), markerAt(img, false, false))
		}
	})
	t.Run("photo", func(t *testing.T) {
		_, data := runTool(t, c, "crop-image", []client.File{file(t, "image", "photo.jpg")}, map[string]string{"left": "100", "top": "50", "width": "200", "height": "150"})
		cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
		if err != nil || format != "jpeg" || cfg.Width != 200 || cfg.Height != 150 {
			t.Fatalf("%v %s %dx%d", err, format, cfg.Width, cfg.Height)
		}
	})
	t.Run("outside", func(t *testing.T) {
		// photo.jpg is 300x200: a box from 250 wide 51 runs past its edge.
		_, _, err := c.Process(context.Background(), "crop-image", []client.File{file(t, "image", "photo.jpg")},
			client.ProcessOptions{Params: map[string]string{"left": "250", "width": "51", "height": "10"}})
		apiErrorDetail(t, err, 400, "invalid_parameter", "width")
	})
	t.Run("damaged", func(t *testing.T) {
		_, _, err := c.Process(context.Background(), "crop-image", []client.File{file(t, "image", "corrupted.jpg")},
			client.ProcessOptions{Params: map[string]string{"width": "10", "height": "10"}})
		apiError(t, err, 400, "invalid_document")
	})
	t.Run("bomb", func(t *testing.T) {
		// A few dozen bytes declaring 50000x50000 pixels: refused by its
		// header, before anything decodes it.
		_, _, err := c.Process(context.Background(), "crop-image", upload("bomb.png", toolstest.BombPNG(50000, 50000)),
			client.ProcessOptions{Params: map[string]string{"width": "10", "height": "10"}})
		apiErrorDetail(t, err, 400, "invalid_document", "the limit is 100 MP")
	})
}

// imageReport is the part of image-info's report the test reads.
type imageReport struct {
	Format        string            `json:"format"`
	Width         int               `json:"width"`
	Height        int               `json:"height"`
	DisplayWidth  int               `json:"display_width"`
	DisplayHeight int               `json:"display_height"`
	Bands         int               `json:"bands"`
	HasAlpha      bool              `json:"has_alpha"`
	Orientation   int               `json:"orientation"`
	Pages         int               `json:"pages"`
	EXIF          map[string]string `json:"exif"`
}

func TestImageInfoE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	info := func(t *testing.T, files []client.File) imageReport {
		t.Helper()
		j, data := runTool(t, c, "image-info", files, nil)
		if j.Result.ContentType != "application/json" || !strings.HasSuffix(j.Result.Filename, "-info.json") {
			t.Fatalf("result %+v", j.Result)
		}
		var r imageReport
		if err := json.Unmarshal(data, &r); err != nil {
			t.Fatalf("%v: %s", err, data)
		}
		return r
	}
	for _, name := range []string{"iphone-photo.jpg", "map.png", "smile.tiff"} {
		t.Run(name, func(t *testing.T) {
			r := info(t, []client.File{file(t, "image", name)})
			cfg, _, err := image.DecodeConfig(bytes.NewReader(corpusBytes(t, "image", name)))
			if err != nil {
				t.Fatal(err)
			}
			if r.Width != cfg.Width || r.Height != cfg.Height || r.Pages != 1 || r.Orientation != 1 {
				t.Errorf("report %+v; Go reads %dx%d", r, cfg.Width, cfg.Height)
			}
			// Go's decoders give a non-premultiplied model only to images
			// with an alpha channel (RGB PNGs and TIFFs get RGBAModel).
			if hasAlpha := cfg.ColorModel == color.NRGBAModel || cfg.ColorModel == color.NRGBA64Model; r.HasAlpha != hasAlpha {
				t.Errorf("has_alpha %v; Go's colour model %T", r.HasAlpha, cfg.ColorModel)
			}
		})
	}
	t.Run("exif", func(t *testing.T) {
		r := info(t, []client.File{file(t, "image", "iphone-photo.jpg")})
		if r.Format != "jpg" || r.EXIF["Make"] != "Apple" || r.EXIF["Model"] != "iPhone 6" {
			t.Errorf("format %s, EXIF %v", r.Format, r.EXIF)
		}
	})
	t.Run("orientation", func(t *testing.T) {
		r := info(t, upload("sideways.jpg", toolstest.OrientedJPEG(t, 40, 20, 6)))
		if r.Orientation != 6 || r.DisplayWidth != 20 || r.DisplayHeight != 40 {
			t.Errorf("report %+v", r)
		}
	})
	t.Run("cut", func(t *testing.T) {
		_, _, err := c.Process(context.Background(), "image-info", upload("cut.jpg", corpusBytes(t, "image", "photo.jpg")[:64]), client.ProcessOptions{})
		apiError(t, err, 400, "invalid_document")
	})
}

// inkBounds returns the bounds of the pixels of img that are not white.
func inkBounds(img image.Image) image.Rectangle {
	var box image.Rectangle
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if !toolstest.Near(img.At(x, y), color.RGBA{255, 255, 255, 255}, 0) {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return box
}

func TestWatermarkImageE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	white := func() []client.File { return upload("white.png", toolstest.Corner(t, 600, 300, 0)) }
	for _, tt := range []struct {
		position string
		cell     image.Rectangle // of a 3x3 grid
	}{
		{"bottom-right", image.Rect(400, 200, 600, 300)},
		{"top-left", image.Rect(0, 0, 200, 100)},
		{"center", image.Rect(200, 100, 400, 200)},
	} {
		t.Run(tt.position, func(t *testing.T) {
			j, data := runTool(t, c, "watermark-image", white(), map[string]string{"text": "WM", "position": tt.position,
				"font_size": "40", "color": "#000000", "opacity": "1"})
			img, format := decodeImage(t, data)
			if format != "png" || j.Result.Filename != "white-watermarked.png" || img.Bounds().Dx() != 600 {
				t.Fatalf("%s %s %v", j.Result.Filename, format, img.Bounds())
			}
			if box := inkBounds(img); box.Empty() || !box.In(tt.cell) {
				t.Errorf("ink %v, want it inside %v", box, tt.cell)
			}
		})
	}
	t.Run("markup drawn as typed", func(t *testing.T) {
		_, data := runTool(t, c, "watermark-image", []client.File{file(t, "image", "photo.jpg")},
			map[string]string{"text": "</span><span size='9999999'>&amp;", "opacity": "1"})
		if cfg, format, err := image.DecodeConfig(bytes.NewReader(data)); err != nil || format != "jpeg" || cfg.Width != 300 {
			t.Fatalf("%v %s %d", err, format, cfg.Width)
		}
	})
	t.Run("bomb", func(t *testing.T) {
		_, _, err := c.Process(context.Background(), "watermark-image", upload("bomb.png", toolstest.BombPNG(1, 200_000_000)),
			client.ProcessOptions{Params: map[string]string{"text": "x"}})
		apiError(t, err, 400, "invalid_document")
	})
	t.Run("control character", func(t *testing.T) {
		_, _, err := c.Process(context.Background(), "watermark-image", []client.File{file(t, "image", "photo.jpg")},
			client.ProcessOptions{Params: map[string]string{"text": "a\x1bb"}})
		apiErrorDetail(t, err, 400, "invalid_parameter", "text")
	})
	t.Run("damaged", func(t *testing.T) {
		_, _, err := c.Process(context.Background(), "watermark-image", []client.File{file(t, "image", "corrupted.jpg")},
			client.ProcessOptions{Params: map[string]string{"text": "x"}})
		apiError(t, err, 400, "invalid_document")
	})
}

// heifUpload makes a 60x40 image with the marker top-left in ext (heic or
// avif) with vips run directly, skipping t with vips' reason when this
// libvips cannot write it.
func heifUpload(t *testing.T, ext string) []client.File {
	t.Helper()
	png := toolstest.WriteTemp(t, "corner.png", toolstest.Corner(t, 60, 40, 10))
	out := filepath.Join(t.TempDir(), "corner."+ext)
	if b, err := exec.Command("vips", "copy", png, out).CombinedOutput(); err != nil {
		toolstest.NeedCapability(t, "write ."+ext+" with libvips (libheif and its encoder: make test-deps)", fmt.Errorf("%v: %s", err, b))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return upload("corner."+ext, b)
}

// TestHEIFImagesE2E: uploads are sniffed as image/heif and image/avif by
// their ftyp brands; HEIC converts to a JPEG that Go decodes; AVIF goes
// through a tool that keeps its format; a tool that keeps the format
// writes a HEIC as a JPEG (HEIC is not written).
func TestHEIFImagesE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	t.Run("heic to jpg", func(t *testing.T) {
		j, data := runTool(t, c, "convert-image", heifUpload(t, "heic"), map[string]string{"format": "jpg"})
		// Accepted at all: sniffed as one of the tool's types.
		if j.Result.Filename != "corner.jpg" || j.Result.ContentType != "image/jpeg" {
			t.Fatalf("result %+v", j.Result)
		}
		img, format := decodeImage(t, data)
		if format != "jpeg" || img.Bounds().Dx() != 60 || img.Bounds().Dy() != 40 || !markerAt(img, false, false) || markerAt(img, true, true) {
			t.Errorf("%s %v, marker top-left %v", format, img.Bounds(), markerAt(img, false, false))
		}
	})
	t.Run("heic info", func(t *testing.T) {
		_, data := runTool(t, c, "image-info", heifUpload(t, "heic"), nil)
		var r imageReport
		if err := json.Unmarshal(data, &r); err != nil || r.Format != "heic" || r.Width != 60 || r.Height != 40 {
			t.Errorf("%v %+v", err, r)
		}
	})
	t.Run("avif rotated", func(t *testing.T) {
		j, _ := runTool(t, c, "rotate-image", heifUpload(t, "avif"), map[string]string{"angle": "90"})
		if j.Result.ContentType != "image/avif" || j.Result.Filename != "corner-rotated.avif" || !metaIs(j.Meta, "width", 40) || !metaIs(j.Meta, "height", 60) {
			t.Errorf("result %+v, meta %v", j.Result, j.Meta)
		}
	})
	t.Run("heic rotated as jpg", func(t *testing.T) {
		j, data := runTool(t, c, "rotate-image", heifUpload(t, "heic"), map[string]string{"angle": "90"})
		img, format := decodeImage(t, data)
		if j.Result.Filename != "corner-rotated.jpg" || format != "jpeg" || img.Bounds().Dx() != 40 || img.Bounds().Dy() != 60 {
			t.Errorf("result %+v: %s %v", j.Result, format, img.Bounds())
		}
	})
}
