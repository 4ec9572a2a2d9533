package vips

import (
	"strings"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

func TestResize(t *testing.T) {
	tool := testTool(t, "resize-image")
	tests := []struct {
		file  string
		raw   map[string]string
		w, h  int
		ctype string
	}{
		{"phone-photo.jpg", map[string]string{"width": "1280"}, 1280, 549, "image/jpeg"},
		{"phone-photo.jpg", map[string]string{"height": "500"}, 1166, 500, "image/jpeg"},
		{"phone-photo.jpg", map[string]string{"width": "1000", "height": "1000"}, 1000, 429, "image/jpeg"},
		{"phone-photo.jpg", map[string]string{"width": "300", "height": "300", "fit": "cover"}, 300, 300, "image/jpeg"},
		{"phone-photo.jpg", map[string]string{"width": "300", "height": "100", "fit": "fill"}, 300, 100, "image/jpeg"},
		{"phone-photo.jpg", map[string]string{"percent": "25"}, 1152, 494, "image/jpeg"},
		{"map.png", map[string]string{"width": "100"}, 100, 100, "image/png"},
		{"scan.png", map[string]string{"percent": "200"}, 1562, 1254, "image/png"},
		{"smile.tiff", map[string]string{"percent": "200"}, 32, 32, "image/tiff"},
		{"photo.jpg", map[string]string{"width": "600"}, 600, 400, "image/jpeg"},
		{"photo.jpg", map[string]string{"width": "600", "enlarge": "false"}, 300, 200, "image/jpeg"},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+paramString(tt.raw), func(t *testing.T) {
			out := mustRunTool(t, tool, corpusImage(t, tt.file), tt.raw)
			w, h := decodeSize(t, out)
			if w != tt.w || h != tt.h || out.Meta["width"] != w || out.Meta["height"] != h {
				t.Errorf("size %dx%d (meta %v), want %dx%d", w, h, out.Meta, tt.w, tt.h)
			}
			if out.ContentType != tt.ctype {
				t.Errorf("content type %s, want %s", out.ContentType, tt.ctype)
			}
			base := tt.file[:strings.LastIndexByte(tt.file, '.')]
			if want := base + "-" + itoa(w) + "x" + itoa(h) + tt.file[len(base):]; out.Filename != want {
				t.Errorf("filename %q, want %q", out.Filename, want)
			}
		})
	}
}

func TestResizeOrientation(t *testing.T) {
	// Stored 40x20, shown 20x40: sizes are as the image is seen.
	path := toolstest.WriteTemp(t, "turned.jpg", orientedJPEG(t, 40, 20, 6))
	out := mustRunTool(t, testTool(t, "resize-image"), path, map[string]string{"width": "10"})
	wantDecodedSize(t, out, 10, 20)
	out = mustRunTool(t, testTool(t, "resize-image"), path, map[string]string{"percent": "50"})
	wantDecodedSize(t, out, 10, 20)
}

func TestResizeParams(t *testing.T) {
	tool := testTool(t, "resize-image")
	for _, tt := range []struct {
		raw   map[string]string
		field string
	}{
		{nil, "width"},
		{map[string]string{"fit": "cover"}, "width"},
		{map[string]string{"width": "0"}, "width"},
		{map[string]string{"height": "20001"}, "height"},
		{map[string]string{"width": "abc"}, "width"},
		{map[string]string{"percent": "1001"}, "percent"},
		{map[string]string{"percent": "50", "width": "100"}, "percent"},
		{map[string]string{"width": "100", "fit": "stretch"}, "fit"},
		{map[string]string{"width": "100", "quality": "101"}, "quality"},
		// 4608x1976 at 1000% is 910 MP: over the cap.
		{map[string]string{"percent": "1000"}, "percent"},
		// 20000 wide keeps the aspect ratio: 20000x8576, 171 MP.
		{map[string]string{"width": "20000"}, "width"},
		{map[string]string{"width": "20000", "height": "20000", "fit": "fill"}, "width"},
	} {
		t.Run(paramString(tt.raw), func(t *testing.T) {
			_, err := runTool(t, tool, corpusImage(t, "phone-photo.jpg"), tt.raw)
			toolstest.WantCode(t, err, "invalid_parameter", tt.field)
		})
	}
}

// paramString names a subtest by its params.
func paramString(raw map[string]string) string {
	var parts []string
	for _, k := range []string{"left", "top", "width", "height", "percent", "fit", "enlarge", "quality"} {
		if v, ok := raw[k]; ok {
			parts = append(parts, k+"="+v)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ",")
}
