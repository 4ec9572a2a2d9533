package vips

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

func TestConvert(t *testing.T) {
	tool := testTool(t, "convert-image")
	p, _ := tool.Param("format")
	for _, want := range []string{"jpg", "png", "webp", "tiff", "gif"} {
		if !slices.Contains(p.Enum, want) {
			t.Errorf("format enum %v lacks %s", p.Enum, want)
		}
	}
	for _, file := range []string{"photo.jpg", "map.png", "smile.tiff"} {
		for _, to := range p.Enum {
			t.Run(file+"/"+to, func(t *testing.T) {
				out := mustRunTool(t, tool, corpusImage(t, file), map[string]string{"format": to})
				fm, _ := formatByExt(to)
				if out.ContentType != fm.contentType || out.Filename != baseName(file)+"."+to {
					t.Errorf("output %q %s", out.Filename, out.ContentType)
				}
				iw, ih, _ := goSize(fileOf(corpusImage(t, file)))
				if to == "avif" {
					b, err := os.ReadFile(out.Path)
					if err != nil {
						t.Fatal(err)
					}
					if len(b) < 12 || !bytes.Equal(b[4:12], []byte("ftypavif")) {
						t.Errorf("not an AVIF file: % x", b[:min(len(b), 12)])
					}
					if out.Meta["width"] != iw || out.Meta["height"] != ih {
						t.Errorf("meta %v, want %dx%d", out.Meta, iw, ih)
					}
					return
				}
				wantDecodedSize(t, out, iw, ih)
			})
		}
	}
}

func TestConvertOrientation(t *testing.T) {
	path := toolstest.WriteTemp(t, "turned.jpg", orientedJPEG(t, 40, 20, 6))
	out := mustRunTool(t, testTool(t, "convert-image"), path, map[string]string{"format": "png"})
	wantDecodedSize(t, out, 20, 40)
}

func TestConvertParams(t *testing.T) {
	tool := testTool(t, "convert-image")
	for field, raw := range map[string]map[string]string{
		"format":  {"format": "bmp"},
		"quality": {"format": "jpg", "quality": "-1"},
	} {
		_, err := runTool(t, tool, generatedJPEG(t), raw)
		toolstest.WantCode(t, err, "invalid_parameter", field)
	}
	_, err := runTool(t, tool, generatedJPEG(t), nil)
	toolstest.WantCode(t, err, "invalid_parameter", "format")
}
