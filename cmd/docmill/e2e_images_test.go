package main

import (
	"bytes"
	"context"
	"image"
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
	_ "image/jpeg" // decoders of the extracted images
	_ "image/png"
	"os/exec"
	"path"
	"strconv"
	"strings"
	_ "golang.org/x/image/tiff"
// listedPicture is a picture (not a mask) as pdfimages -list reports it.
type listedPicture struct{ page, w, h int }
// listPictures returns the pictures pdfimages -list reports of a corpus
// PDF, by their number in the listing.
func listPictures(t *testing.T, name string) map[int]listedPicture {
	out, err := exec.Command("pdfimages", "-list", corpus(t, "pdf", name)).Output()
		t.Fatalf("pdfimages -list: %v", err)
	pics := map[int]listedPicture{}
	for _, line := range strings.Split(string(out), "\n")[2:] {
		f := strings.Fields(line)
		if len(f) < 5 || f[2] == "smask" || f[2] == "mask" {
			continue
		n := make([]int, 5)
		for _, i := range []int{0, 1, 3, 4} {
			n[i], _ = strconv.Atoi(f[i])
		pics[n[1]] = listedPicture{page: n[0], w: n[3], h: n[4]}
	return pics
// checkExtractImagesE2E: extract-images' zip holds one entry per picture
// pdfimages -list reports (at min_size 0), each of which Go's decoders
// read as an image of the listed size; a PDF without images gives an
// empty zip.
func checkExtractImagesE2E(t *testing.T, c *client.Client) {
	for _, name := range []string{"GeoTopo-komprimiert.pdf", "base64image.pdf", "imagemagick-images.pdf", "cmyk-image.pdf"} {
		t.Run(name, func(t *testing.T) {
			want := listPictures(t, name)
			j, data := runTool(t, c, "extract-images", []client.File{file(t, "pdf", name)}, map[string]string{"min_size": "0"})
			got := unzip(t, data)
			if len(want) == 0 || len(got) != len(want) || j.Meta["images"] != float64(len(want)) || j.Result.ContentType != "application/zip" {
				t.Fatalf("%d entries, pdfimages lists %d pictures; meta %v", len(got), len(want), j.Meta)
			}
			for entry, b := range got {
				// <name>-p<page>-<num>.<ext>
				parts := strings.Split(strings.TrimSuffix(entry, path.Ext(entry)), "-")
				page, _ := strconv.Atoi(strings.TrimPrefix(parts[len(parts)-2], "p"))
				num, _ := strconv.Atoi(parts[len(parts)-1])
				img, format, err := image.Decode(bytes.NewReader(b))
				if err != nil {
					t.Fatalf("%s: %v", entry, err)
				}
				l, ok := want[num]
				if !ok || l.page != page || img.Bounds().Dx() != l.w || img.Bounds().Dy() != l.h {
					t.Fatalf("%s: a %s of %v, pdfimages lists %+v (%v)", entry, format, img.Bounds().Size(), l, ok)
		})
	j, data := runTool(t, c, "extract-images", []client.File{file(t, "pdf", fourPages)}, nil)
	if len(unzip(t, data)) != 0 || j.Meta["images"] != float64(0) {
		t.Fatalf("no images: %d entries, meta %v", len(unzip(t, data)), j.Meta)
}

func TestCropImageE2E(t *testing.T) {
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
}
