package vips

import (
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// inkBox returns the bounds of the pixels of img that are not white, and
// the darkest value of any channel among them.
func inkBox(img image.Image) (image.Rectangle, uint8) {
	box, darkest := image.Rectangle{}, uint8(255)
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if toolstest.Near(img.At(x, y), color.RGBA{255, 255, 255, 255}, 0) {
				continue
			}
			box = box.Union(image.Rect(x, y, x+1, y+1))
			r, g, bl, _ := img.At(x, y).RGBA()
			darkest = min(darkest, uint8(min(r, g, bl)>>8))
		}
	}
	return box, darkest
}

// TestWatermarkPositions draws black text on a white 600x300 PNG at each
// position and checks that every changed pixel lies in the matching
// cell of a 3x3 grid, and nowhere else.
func TestWatermarkPositions(t *testing.T) {
	tool := testTool(t, "watermark-image")
	white := toolstest.WriteTemp(t, "white.png", toolstest.Corner(t, 600, 300, 0))
	for _, pos := range watermarkPositions {
		t.Run(pos, func(t *testing.T) {
			out := mustRunTool(t, tool, white, map[string]string{"text": "WM", "position": pos, "font_size": "40",
				"color": "#000000", "opacity": "1"})
			if out.ContentType != "image/png" || out.Filename != "white-watermarked.png" || out.Meta["font_size"] != 40 {
				t.Errorf("result %s %s meta %v", out.Filename, out.ContentType, out.Meta)
			}
			img := decodeOutput(t, out.Path)
			box, darkest := inkBox(img)
			if box.Empty() || darkest > 40 {
				t.Fatalf("ink %v, darkest %d: no black text drawn", box, darkest)
			}
			col, row := 1, 1
			if strings.HasSuffix(pos, "left") {
				col = 0
			} else if strings.HasSuffix(pos, "right") {
				col = 2
			}
			if strings.HasPrefix(pos, "top") {
				row = 0
			} else if strings.HasPrefix(pos, "bottom") {
				row = 2
			}
			cell := image.Rect(col*200, row*100, col*200+200, row*100+100)
			if !box.In(cell) {
				t.Errorf("ink %v is not inside cell %v", box, cell)
			}
		})
	}
}

func TestWatermarkOpacityAndColour(t *testing.T) {
	tool := testTool(t, "watermark-image")
	white := toolstest.WriteTemp(t, "white.png", toolstest.Corner(t, 300, 100, 0))
	out := mustRunTool(t, tool, white, map[string]string{"text": "HALF", "color": "#000000", "opacity": "0.5", "font_size": "40"})
	if _, darkest := inkBox(decodeOutput(t, out.Path)); darkest < 108 || darkest > 148 {
		t.Errorf("half-opaque black on white: darkest %d, want about 128", darkest)
	}
	out = mustRunTool(t, tool, white, map[string]string{"text": "RED", "color": "#ff0000", "opacity": "1", "font_size": "40"})
	img := decodeOutput(t, out.Path)
	box, _ := inkBox(img)
	red := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if toolstest.Near(img.At(x, y), color.RGBA{255, 0, 0, 255}, 10) {
				red++
			}
		}
	}
	if red < 50 {
		t.Errorf("%d red pixels in %v", red, box)
	}
}

// TestWatermarkText: markup and option-like text is drawn as typed; bad
// text is refused naming the param.
func TestWatermarkText(t *testing.T) {
	tool := testTool(t, "watermark-image")
	photo := corpusImage(t, "photo.jpg")
	for _, text := range []string{"<b>bold</b> & </span><span size='900000'>x", "--help", "-o /etc/passwd", "Привет, мир", `two\nlines`, "[Q=1]"} {
		t.Run(text, func(t *testing.T) {
			out := mustRunTool(t, tool, photo, map[string]string{"text": text})
			wantDecodedSize(t, out, 300, 200)
		})
	}
	for name, raw := range map[string]map[string]string{
		"bell":      {"text": "a\x07b"},
		"invisible": {"text": "\u200b\u200b"},
		"long":      {"text": strings.Repeat("x", 201)},
		"huge font": {"text": "W", "font_size": "1000"},
		"missing":   {"position": "top"},
		"position":  {"text": "x", "position": "middle"},
		"opacity":   {"text": "x", "opacity": "0"},
		"colour":    {"text": "x", "color": "red"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runTool(t, tool, photo, raw)
			field := map[string]string{"huge font": "font_size", "position": "position", "opacity": "opacity", "colour": "color"}[name]
			if field == "" {
				field = "text"
			}
			toolstest.WantCode(t, err, "invalid_parameter", field)
		})
	}
}

func TestWatermarkMarkup(t *testing.T) {
	got := watermarkMarkup(map[string]string{"text": `<i>a</i> & "b" 'c'\nd`, "color": "#ff8000", "opacity": "0.5"})
	want := `<span foreground="#ff8000" fgalpha="32768">&lt;i&gt;a&lt;/i&gt; &amp; &#34;b&#34; &#39;c&#39;` + "\nd</span>"
	if got != want {
		t.Errorf("markup\n%s, want\n%s", got, want)
	}
}

// TestWatermarkOrientation: the text goes on the image as seen.
func TestWatermarkOrientation(t *testing.T) {
	out := mustRunTool(t, testTool(t, "watermark-image"), toolstest.WriteTemp(t, "turned.jpg", orientedJPEG(t, 40, 20, 6)),
		map[string]string{"text": "x"})
	wantDecodedSize(t, out, 20, 40)
}
