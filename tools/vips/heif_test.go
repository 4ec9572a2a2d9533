package vips

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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
		toolstest.NeedCapability(t, "write ."+ext+" with libvips (libheif and its encoder: make test-deps)", fmt.Errorf("%v: %s", err, b))
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

// TestHEIFInputs: HEIC and AVIF go to every tool; the tools that keep
// the format write AVIF back and a HEIC as a JPEG, which Go decodes with
// the marker still top-left after a crop.
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
		{"compress-image", nil, 60, 40},
	} {
		t.Run(tt.slug, func(t *testing.T) {
			for path, want := range map[string]string{avif: "avif", heic: "jpg"} {
				out := mustRunTool(t, testTool(t, tt.slug), path, tt.raw)
				if ct := map[string]string{"avif": "image/avif", "jpg": "image/jpeg"}[want]; out.ContentType != ct || !strings.HasSuffix(out.Filename, "."+want) {
					t.Errorf("%s: result %s %s", want, out.Filename, out.ContentType)
				}
				if w, h := externalSize(t, out.Path); w != tt.w || h != tt.h {
					t.Errorf("%s: size %dx%d, want %dx%d", want, w, h, tt.w, tt.h)
				}
				if want == "jpg" {
					img := decodeOutput(t, out.Path)
					if tt.slug == "crop-image" && !slices.Equal(markedCorners(img), []string{"top-left"}) {
						t.Errorf("heic cropped: marker in %v", markedCorners(img))
					}
				}
			}
		})
	}
}

// TestHEIFBomb: a HEIC or AVIF whose boxes declare 16000x16000 pixels
// (256 MP, within libheif's own limit of 16384 a side) over a 64x48
// picture is refused from its header by every tool, in well under a
// second of decoding.
func TestHEIFBomb(t *testing.T) {
	for _, ext := range []string{"heic", "avif"} {
		bomb := toolstest.WriteTemp(t, "bomb."+ext, heifBomb(t, heifSample(t, ext), 16000))
		for _, slug := range []string{"convert-image", "resize-image", "compress-image", "rotate-image"} {
			raw := map[string]map[string]string{"convert-image": {"format": "png"}, "resize-image": {"width": "10"}}[slug]
			start := time.Now()
			_, err := runTool(t, testTool(t, slug), bomb, raw)
			if e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, ""); !strings.Contains(e.Message, "16000×16000") {
				t.Errorf("%s %s: %q", slug, ext, e.Message)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("%s %s: refused after %v", slug, ext, d)
			}
		}
	}
}

// heifBomb returns the file at path with the width and height of every
// ispe (image spatial extents) box set to side.
func heifBomb(t *testing.T, path string, side uint32) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i := bytes.Index(b, []byte("ispe")); i >= 0 && i+16 <= len(b); {
		binary.BigEndian.PutUint32(b[i+8:], side)
		binary.BigEndian.PutUint32(b[i+12:], side)
		n++
		j := bytes.Index(b[i+4:], []byte("ispe"))
		if j < 0 {
			break
		}
		i += 4 + j
	}
	if n == 0 {
		t.Fatal("no ispe box")
	}
	return b
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
		toolstest.NeedCapability(t, "write AVIF with libvips (libheif and aomenc: make test-deps)", fmt.Errorf("%v: %s", err, b))
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
