package vips

import (
	"bytes"
	"image/jpeg"
	"os"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// TestCompressGenerated: compress-image on a generated photo-like JPEG
// (fine detail at quality 95) and on one with an EXIF block,
// TestCompressShrinks' and TestCompressStripsMetadata's checks without
// the corpus: every preset shrinks it, the stronger ones more, the
// size stays, and no EXIF block is left.
func TestCompressGenerated(t *testing.T) {
	tool := testTool(t, "compress-image")
	var b bytes.Buffer
	if err := jpeg.Encode(&b, toolstest.Picture(900, 600, 7), &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	photo := toolstest.WriteTemp(t, "photo.jpg", b.Bytes())
	sizes := map[string]int64{}
	for _, preset := range []string{"low", "recommended", "extreme"} {
		out := mustRunTool(t, tool, photo, map[string]string{"preset": preset})
		got, err := os.Stat(out.Path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Size() >= int64(b.Len()) || out.Meta["output_size"] != got.Size() || out.Filename != "photo-compressed.jpg" {
			t.Errorf("%s: %d bytes from %d, meta %v, %s", preset, got.Size(), b.Len(), out.Meta, out.Filename)
		}
		if w, h := decodeSize(t, out); w != 900 || h != 600 {
			t.Errorf("%s: size %dx%d, want 900x600", preset, w, h)
		}
		sizes[preset] = got.Size()
	}
	if !(sizes["extreme"] <= sizes["recommended"] && sizes["recommended"] <= sizes["low"]) {
		t.Errorf("sizes by preset %v are not ordered", sizes)
	}

	exif := toolstest.WriteTemp(t, "exif.jpg", orientedJPEG(t, 600, 400, 1))
	out := mustRunTool(t, tool, exif, map[string]string{"quality": "40"})
	data, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("Exif\x00\x00")) {
		t.Error("the output still has an EXIF block")
	}
}
