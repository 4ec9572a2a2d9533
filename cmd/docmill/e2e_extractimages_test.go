package main

import (
	"bytes"
	"image"
	_ "image/jpeg" // decoders of the extracted images
	_ "image/png"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"testing"

	_ "golang.org/x/image/tiff"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// listedPicture is a picture (not a mask) as pdfimages -list reports it.
type listedPicture struct{ page, w, h int }

// listPictures returns the pictures pdfimages -list reports of a corpus
// PDF, by their number in the listing.
func listPictures(t *testing.T, name string) map[int]listedPicture {
	t.Helper()
	out, err := exec.Command("pdfimages", "-list", corpus(t, "pdf", name)).Output()
	if err != nil {
		t.Fatalf("pdfimages -list: %v", err)
	}
	pics := map[int]listedPicture{}
	for _, line := range strings.Split(string(out), "\n")[2:] {
		f := strings.Fields(line)
		if len(f) < 5 || f[2] == "smask" || f[2] == "mask" {
			continue
		}
		n := make([]int, 5)
		for _, i := range []int{0, 1, 3, 4} {
			n[i], _ = strconv.Atoi(f[i])
		}
		pics[n[1]] = listedPicture{page: n[0], w: n[3], h: n[4]}
	}
	return pics
}

// checkExtractImagesE2E: extract-images' zip holds one entry per picture
// pdfimages -list reports (at min_size 0), each of which Go's decoders
// read as an image of the listed size; a PDF without images gives an
// empty zip.
func checkExtractImagesE2E(t *testing.T, c *client.Client) {
	for _, name := range []string{"GeoTopo-komprimiert.pdf", "base64image.pdf", "imagemagick-images.pdf", "cmyk-image.pdf"} {
		t.Run(name, func(t *testing.T) {
			want := listPictures(t, name)
			j, data := runTool(t, c, "extract-images", []client.File{file(t, "pdf", name)}, map[string]string{"min_size": "0"})
			got := toolstest.Unzip(t, data)
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
				}
			}
		})
	}
	j, data := runTool(t, c, "extract-images", []client.File{file(t, "pdf", fourPages)}, nil)
	if len(toolstest.Unzip(t, data)) != 0 || j.Meta["images"] != float64(0) {
		t.Fatalf("no images: %d entries, meta %v", len(toolstest.Unzip(t, data)), j.Meta)
	}
}
