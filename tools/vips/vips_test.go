package vips

import (
	"bytes"
	"context"
	"errors"
	"image"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/image/tiff"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/toolstest"
)

// corpusImage returns the path of an image of the corpus, skipping
// t when the corpus is absent (toolstest.Corpus).
func corpusImage(t testing.TB, name string) string {
	t.Helper()
	return toolstest.Corpus(t, "image", name)
}

// generatedJPEG writes a 300x200 JPEG (orientation 1) for tests that need
// some photo, not a real-world one.
func generatedJPEG(t *testing.T) string {
	t.Helper()
	return toolstest.WriteTemp(t, "photo.jpg", orientedJPEG(t, 300, 200, 1))
}

// toolsOnce builds the tools with the default limits once for the whole
// test binary: Tools probes the savable formats with a few vips runs.
var toolsOnce = sync.OnceValues(func() ([]*docmill.Tool, error) {
	return limitedTools(docmill.Limits{})
})

// limitedTools builds the tools on the real engines with limits (the
// format probe is made once per binary, whatever the limits).
func limitedTools(limits docmill.Limits) ([]*docmill.Tool, error) {
	vips := sandbox.Find("vips", []string{"--version"}, sandbox.Options{})
	vipsheader := sandbox.Find("vipsheader", []string{"--version"}, sandbox.Options{})
	if !vips.Available() || !vipsheader.Available() {
		return nil, errors.New("libvips-tools is not installed")
	}
	return Tools(vips, vipsheader, limits, ""), nil
}

// testTool returns the tool with slug, built on the real engines.
func testTool(t testing.TB, slug string) *docmill.Tool {
	t.Helper()
	tools, err := toolsOnce()
	if err != nil {
		toolstest.Lacking(t, "%v (or no jail)", err)
	}
	return toolstest.Find(t, tools, slug)
}

// contentTypes maps test file extensions to the type the upload sniffer
// would give.
var contentTypes = map[string]string{
	".jpg": "image/jpeg", ".png": "image/png", ".webp": "image/webp", ".tiff": "image/tiff", ".gif": "image/gif",
	".avif": "image/avif", ".heic": "image/heif",
}

// runTool validates raw params as the API does and runs tool on path
// (toolstest.Run).
func runTool(t testing.TB, tool *docmill.Tool, path string, raw map[string]string) (*docmill.RunOutput, error) {
	t.Helper()
	return toolstest.Run(t, tool, path, fileOf(path).ContentType, raw)
}

// mustRunTool is runTool that fails t on an error.
func mustRunTool(t testing.TB, tool *docmill.Tool, path string, raw map[string]string) *docmill.RunOutput {
	t.Helper()
	return toolstest.MustRun(t, tool, path, fileOf(path).ContentType, raw)
}

// wantDecodedSize fails t unless out decodes fully to a w x h image
// (decodeSize).
func wantDecodedSize(t *testing.T, out *docmill.RunOutput, w, h int) {
	t.Helper()
	if gw, gh := decodeSize(t, out); gw != w || gh != h {
		t.Errorf("%s: size %dx%d, want %dx%d", out.Filename, gw, gh, w, h)
	}
}

// inputFile places the image at path in workDir (toolstest.Input).
func inputFile(t testing.TB, workDir, path string) docmill.LocalFile {
	return toolstest.Input(t, workDir, path, fileOf(path).ContentType)
}

// decodeSize decodes an output fully with Go's decoders (which proves it
// is a sound file of its type) and returns its size.
func decodeSize(t *testing.T, out *docmill.RunOutput) (int, int) {
	t.Helper()
	dec, ok := configDecoders[out.ContentType]
	if out.ContentType == "image/tiff" {
		// The tools read a TIFF's header with tiffHeader (tiffsize.go); a
		// result is checked with x/image's whole decoder.
		dec, ok = tiff.DecodeConfig, true
	}
	if !ok {
		t.Fatalf("no decoder for %s", out.ContentType)
	}
	b, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := dec(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", out.Filename, err)
	}
	if _, _, err := image.Decode(bytes.NewReader(b)); err != nil {
		t.Fatalf("%s does not decode: %v", out.Filename, err)
	}
	return cfg.Width, cfg.Height
}

// bombPNG is toolstest.BombPNG.
func bombPNG(w, h uint32) []byte { return toolstest.BombPNG(w, h) }

// orientedJPEG is toolstest.OrientedJPEG.
func orientedJPEG(t *testing.T, w, h int, orient uint16) []byte {
	return toolstest.OrientedJPEG(t, w, h, orient)
}

// badInputs writes inputs every tool must refuse as invalid_document.
func badInputs(t *testing.T) map[string]string {
	t.Helper()
	whole := toolstest.ReadCorpus(t, "image", "map.png")
	return map[string]string{
		"corrupted":    corpusImage(t, "corrupted.jpg"),
		"zero-byte":    toolstest.WriteTemp(t, "zero.jpg", nil),
		"bomb":         toolstest.WriteTemp(t, "bomb.png", bombPNG(50000, 50000)),
		"truncated":    toolstest.WriteTemp(t, "truncated.png", whole[:len(whole)/3]),
		"not-an-image": toolstest.WriteTemp(t, "text.jpg", []byte("hello, this is not an image\n")),
		"bomb-tall":    toolstest.WriteTemp(t, "tall.png", bombPNG(1, 200_000_000)),
	}
}

func TestInvalidDocuments(t *testing.T) {
	params := map[string]map[string]string{
		"compress-image": nil, "resize-image": {"width": "100"}, "convert-image": {"format": "png"},
		"rotate-image": nil, "crop-image": {"width": "10", "height": "10"}, "watermark-image": {"text": "x"},
	}
	for slug, raw := range params { // image-info reads headers only: TestImageInfoBadInput
		tool := testTool(t, slug)
		for name, path := range badInputs(t) {
			t.Run(slug+"/"+name, func(t *testing.T) {
				_, err := runTool(t, tool, path, raw)
				e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
				if strings.Contains(e.Message, "/") {
					t.Errorf("message leaks a path: %q", e.Message)
				}
				if strings.HasPrefix(name, "bomb") && !strings.Contains(e.Message, "limit is 100 MP") {
					t.Errorf("bomb message = %q", e.Message)
				}
			})
		}
	}
}

// TestBombRefusedBeforeDecoding runs the tools with vips missing: a bomb
// must be refused by its header alone, never reaching vips (which would
// answer engine_unavailable here).
func TestBombRefusedBeforeDecoding(t *testing.T) {
	missing := sandbox.Find("no-such-program", nil, sandbox.Options{})
	bomb := toolstest.WriteTemp(t, "bomb.png", bombPNG(50000, 50000))
	for _, tool := range Tools(missing, missing, docmill.Limits{}, "") {
		if tool.Slug == "image-info" {
			continue // it decodes nothing, and reports a bomb (TestImageInfoBomb)
		}
		params := map[string]map[string]string{"resize-image": {"width": "10"}, "convert-image": {"format": "jpg"},
			"crop-image": {"width": "10", "height": "10"}, "watermark-image": {"text": "x"}}[tool.Slug]
		_, err := runTool(t, tool, bomb, params)
		toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
	}
}

func TestMissingEngine(t *testing.T) {
	missing := sandbox.Find("no-such-program", nil, sandbox.Options{})
	for _, tool := range Tools(missing, missing, docmill.Limits{}, "") {
		t.Run(tool.Slug, func(t *testing.T) {
			if tool.IsAvailable() {
				t.Error("available with its engine missing")
			}
			for _, st := range tool.Engines() {
				if st.Available {
					t.Errorf("engine %s reported available", st.Name)
				}
			}
			raw := map[string]string{}
			switch tool.Slug {
			case "resize-image":
				raw["width"] = "10"
			case "convert-image":
				raw["format"] = "png"
			case "crop-image":
				raw["width"], raw["height"] = "10", "10"
			case "watermark-image":
				raw["text"] = "x"
			}
			_, err := runTool(t, tool, generatedJPEG(t), raw)
			toolstest.WantCode(t, err, docmill.CodeEngineUnavailable, "")
		})
	}
}

// TestDeclarations checks each tool's declaration, and that every type
// it accepts has a format, which oneImage relies on.
func TestDeclarations(t *testing.T) {
	tools, err := toolsOnce()
	if err != nil {
		toolstest.Lacking(t, "%v (or no jail)", err)
	}
	for _, tool := range tools {
		if !tool.IsAvailable() || tool.Engine != engineName || tool.Long || tool.Timeout <= 0 ||
			tool.MinFiles != 1 || tool.MaxFiles != 1 || !tool.AcceptsType("image/jpeg") ||
			!tool.AcceptsType("image/png") || !tool.AcceptsType("image/webp") {
			t.Errorf("%s: unexpected declaration %+v", tool.Slug, tool)
		}
		if len(tool.Engines()) != 2 {
			t.Errorf("%s: engines %v", tool.Slug, tool.Engines())
		}
		for _, ct := range tool.Accepts { // oneImage looks the format up without a check
			if _, ok := formatOf(ct); !ok {
				t.Errorf("%s accepts %s, which has no format", tool.Slug, ct)
			}
		}
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for slug, raw := range map[string]map[string]string{
		"compress-image": nil, "resize-image": {"width": "100"}, "convert-image": {"format": "png"},
		"rotate-image": nil, "crop-image": {"width": "10", "height": "10"}, "image-info": nil,
		"watermark-image": {"text": "x"},
	} {
		_, err := toolstest.RunContext(ctx, t, testTool(t, slug), generatedJPEG(t), "image/jpeg", raw)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error = %v, want context.Canceled", slug, err)
		}
	}
}

func TestBaseName(t *testing.T) {
	for in, want := range map[string]string{
		"photo.jpg": "photo", `a/b\Photo.JPG`: "Photo", ".jpg": "image", "x": "x", "a.b.png": "a.b", "": "image",
	} {
		if got := baseName(in); got != want {
			t.Errorf("baseName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStripOption(t *testing.T) {
	for version, want := range map[string]string{
		"vips-8.14.1": "strip", "vips-8.15.0": "keep=none", "vips-9.0.0": "keep=none", "": "strip",
	} {
		if got := stripOption(version); got != want {
			t.Errorf("stripOption(%q) = %q, want %q", version, got, want)
		}
	}
}

// fileOf describes a test file as the API would.
func fileOf(path string) docmill.LocalFile {
	return docmill.LocalFile{Path: path, Filename: filepath.Base(path), ContentType: contentTypes[filepath.Ext(path)]}
}

func TestCheckPixels(t *testing.T) {
	tests := []struct {
		w, h  int
		max   int64
		valid bool
		msg   string
	}{
		{10000, 10000, 100_000_000, true, ""},
		{10001, 10000, 100_000_000, false, "The image is 10001×10000 pixels (100 MP); the limit is 100 MP."},
		{50000, 50000, 100_000_000, false, "The image is 50000×50000 pixels (2500 MP); the limit is 100 MP."},
		{1000, 1000, 1_000_000, true, ""},
		{1600, 1000, 1_500_000, false, "The image is 1600×1000 pixels (1.6 MP); the limit is 1.5 MP."},
		{0, 10, 100, false, "The image declares no pixels."},
		{10, -1, 100, false, "The image declares no pixels."},
	}
	for _, tt := range tests {
		err := checkPixels(tt.w, tt.h, tt.max)
		if tt.valid {
			if err != nil {
				t.Errorf("%dx%d, max %d: %v", tt.w, tt.h, tt.max, err)
			}
			continue
		}
		var e *docmill.Error
		if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument || e.Message != tt.msg {
			t.Errorf("%dx%d, max %d: %v, want %q", tt.w, tt.h, tt.max, err, tt.msg)
		}
	}
}

// TestImagePixelsLimit builds the tools with a lowered pixel cap and
// checks that every tool refuses an input over it, and resize-image a
// size that would make an output over it, while smaller ones pass.
func TestImagePixelsLimit(t *testing.T) {
	tools, err := limitedTools(docmill.Limits{ImagePixels: 1_000_000})
	if err != nil {
		toolstest.Lacking(t, "%v (or no jail)", err)
	}
	params := map[string]map[string]string{
		"compress-image": nil, "resize-image": {"width": "100"}, "convert-image": {"format": "png"},
		"rotate-image": nil, "crop-image": {"width": "10", "height": "10"}, "image-info": nil,
		"watermark-image": {"text": "x"},
	}
	for _, tool := range tools {
		if tool.Slug == "image-info" {
			continue // it decodes nothing, and reports a bomb (TestImageInfoBomb)
		}
		t.Run(tool.Slug, func(t *testing.T) {
			// phone-photo.jpg is 4608x1976, 9.1 MP.
			_, err := runTool(t, tool, corpusImage(t, "phone-photo.jpg"), params[tool.Slug])
			e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
			if !strings.Contains(e.Message, "(9.1 MP); the limit is 1 MP") {
				t.Errorf("message = %q", e.Message)
			}
			// photo.jpg is 300x200.
			if _, err := runTool(t, tool, corpusImage(t, "photo.jpg"), params[tool.Slug]); err != nil {
				t.Fatal(err)
			}
			if tool.Slug != "resize-image" {
				return
			}
			// The cap holds for either EXIF orientation: 2000 wide is
			// 2000x1333 or 2000x3000, over it; 800 wide is 800x533 or
			// 800x1200 (0.96 MP), within it.
			_, err = runTool(t, tool, corpusImage(t, "photo.jpg"), map[string]string{"width": "2000"})
			toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "width")
			if _, err := runTool(t, tool, corpusImage(t, "photo.jpg"), map[string]string{"width": "800"}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
