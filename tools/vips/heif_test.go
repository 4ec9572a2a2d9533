package vips

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// heifSample converts a 60x40 PNG with the marker top-left to ext (heic
// or avif) with vips run directly, skipping t, with vips' reason, when
// this libvips cannot write it (libheif or its encoder missing).
func heifSample(t *testing.T, ext string) string {
	t.Helper()
	png := toolstest.WriteTemp(t, "corner.png", toolstest.Corner(t, 60, 40, 10))
	out := filepath.Join(t.TempDir(), "corner."+ext)
	if b, err := exec.Command("vips", "copy", png, out).CombinedOutput(); err != nil {
		t.Skipf("this libvips cannot write .%s: %v: %s", ext, err, b)
	}
	return out
}

// externalSize reads an image's size with vipsheader run directly: Go
// has no HEIF or AVIF decoder.
func externalSize(t *testing.T, path string) (int, int) {
	t.Helper()
	var dims [2]int
	for i, f := range []string{"width", "height"} {
		b, err := exec.Command("vipsheader", "-f", f, path).Output()
		if err != nil {
			t.Fatalf("vipsheader %s: %v", f, err)
		}
		if dims[i], err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
			t.Fatal(err)
		}
	}
	return dims[0], dims[1]
}

// TestHEIFInputs: HEIC goes to image-info and convert-image; AVIF to
// every tool, and the tools that keep the format write AVIF back.
func TestHEIFInputs(t *testing.T) {
	heic, avif := heifSample(t, "heic"), heifSample(t, "avif")
	for path, format := range map[string]string{heic: "heic", avif: "avif"} {
		r, out := readReport(t, path)
		if r.Format != format || r.Width != 60 || r.Height != 40 || r.Bands != 3 || out.Meta["format"] != format {
			t.Errorf("%s report %+v", format, r)
		}
		// To PNG, checked by Go: the marker is still top-left.
		png := mustRunTool(t, testTool(t, "convert-image"), path, map[string]string{"format": "png"})
		img := decodeOutput(t, png.Path)
		if got := markedCorners(img); img.Bounds().Dx() != 60 || len(got) != 1 || got[0] != "top-left" {
			t.Errorf("%s to png: %v, marker in %v", format, img.Bounds(), got)
		}
	}
	for _, tt := range []struct {
		slug string
		raw  map[string]string
		w, h int
	}{
		{"rotate-image", map[string]string{"angle": "90"}, 40, 60},
		{"crop-image", map[string]string{"width": "30", "height": "20"}, 30, 20},
		{"resize-image", map[string]string{"width": "30"}, 30, 20},
		{"watermark-image", map[string]string{"text": "x"}, 60, 40},
	} {
		t.Run(tt.slug, func(t *testing.T) {
			out := mustRunTool(t, testTool(t, tt.slug), avif, tt.raw)
			if out.ContentType != "image/avif" || !strings.HasSuffix(out.Filename, ".avif") {
				t.Errorf("result %s %s", out.Filename, out.ContentType)
			}
			if w, h := externalSize(t, out.Path); w != tt.w || h != tt.h {
				t.Errorf("size %dx%d, want %dx%d", w, h, tt.w, tt.h)
			}
		})
	}
}

// TestHEIFDamaged: a HEIC or AVIF cut after its first boxes is
// invalid_document for the tools that take it.
func TestHEIFDamaged(t *testing.T) {
	for _, ext := range []string{"heic", "avif"} {
		b, err := os.ReadFile(heifSample(t, ext))
		if err != nil {
			t.Fatal(err)
		}
		cut := toolstest.WriteTemp(t, "cut."+ext, b[:len(b)/3])
		for slug, raw := range map[string]map[string]string{"image-info": nil, "convert-image": {"format": "jpg"}} {
			_, err := runTool(t, testTool(t, slug), cut, raw)
			e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
			if strings.Contains(e.Message, "/") {
				t.Errorf("%s %s: message leaks a path: %q", slug, ext, e.Message)
			}
		}
	}
}

// TestCompressAVIF: an AVIF written at quality 95 comes back smaller, in
// AVIF, at its size.
func TestCompressAVIF(t *testing.T) {
	out := filepath.Join(t.TempDir(), "photo.avif")
	if b, err := exec.Command("vips", "copy", corpusImage(t, "photo.jpg"), out+"[Q=95]").CombinedOutput(); err != nil {
		t.Skipf("this libvips cannot write AVIF: %v: %s", err, b)
	}
	res := mustRunTool(t, testTool(t, "compress-image"), out, map[string]string{"preset": "extreme"})
	in, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.Stat(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	if res.ContentType != "image/avif" || got.Size() >= in.Size() || res.Meta["saved_bytes"] == int64(0) {
		t.Errorf("%s %s: %d -> %d bytes, meta %v", res.Filename, res.ContentType, in.Size(), got.Size(), res.Meta)
	}
	if w, h := externalSize(t, res.Path); w != 300 || h != 200 {
		t.Errorf("size %dx%d", w, h)
	}
}
