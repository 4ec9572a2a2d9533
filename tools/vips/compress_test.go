package vips

import (
	"bytes"
	"os"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

func TestCompressShrinks(t *testing.T) {
	tool := testTool(t, "compress-image")
	for _, name := range []string{"phone-photo.jpg", "map.png", "photo.jpg"} {
		st, err := os.Stat(corpusImage(t, name))
		if err != nil {
			t.Fatal(err)
		}
		sizes := map[string]int64{}
		for _, preset := range []string{"low", "recommended", "extreme"} {
			t.Run(name+"/"+preset, func(t *testing.T) {
				out := mustRunTool(t, tool, corpusImage(t, name), map[string]string{"preset": preset})
				got, err := os.Stat(out.Path)
				if err != nil {
					t.Fatal(err)
				}
				if out.Meta["output_size"] != got.Size() || out.Meta["input_size"] != st.Size() ||
					out.Meta["saved_bytes"] != st.Size()-got.Size() {
					t.Errorf("meta %v, file %d bytes, input %d", out.Meta, got.Size(), st.Size())
				}
				if got.Size() >= st.Size() {
					t.Errorf("%d bytes, input %d: did not shrink", got.Size(), st.Size())
				}
				wantName := name[:len(name)-4] + "-compressed" + name[len(name)-4:]
				if out.Filename != wantName || out.ContentType != contentTypes[name[len(name)-4:]] {
					t.Errorf("output %q %s", out.Filename, out.ContentType)
				}
				ow, oh := decodeSize(t, out)
				iw, ih, _ := goSize(fileOf(corpusImage(t, name)))
				if ow != iw || oh != ih {
					t.Errorf("size %dx%d, input %dx%d", ow, oh, iw, ih)
				}
				sizes[preset] = got.Size()
				t.Logf("%s %s: %d -> %d bytes (%.0f%%)", name, preset, st.Size(), got.Size(), 100*out.Meta["ratio"].(float64))
			})
		}
		if !(sizes["extreme"] <= sizes["recommended"] && sizes["recommended"] <= sizes["low"]) {
			t.Errorf("%s: sizes by preset %v are not ordered", name, sizes)
		}
	}
}

func TestCompressStripsMetadata(t *testing.T) {
	out := mustRunTool(t, testTool(t, "compress-image"), corpusImage(t, "phone-photo.jpg"), nil)
	b, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("Exif\x00\x00")) {
		t.Error("the output still has an EXIF block")
	}
}

func TestCompressOrientation(t *testing.T) {
	// Big enough that re-encoding shrinks it, so the result is vips' own.
	path := toolstest.WriteTemp(t, "turned.jpg", orientedJPEG(t, 400, 200, 6))
	out := mustRunTool(t, testTool(t, "compress-image"), path, map[string]string{"quality": "40"})
	if out.Meta["saved_bytes"].(int64) <= 0 {
		t.Fatalf("did not shrink: %v", out.Meta)
	}
	wantDecodedSize(t, out, 200, 400)
}

func TestCompressNeverLarger(t *testing.T) {
	// A 16x16 PNG of 579 bytes: no re-encoding beats it.
	in := toolstest.ReadCorpus(t, "image", "smile.png")
	out := mustRunTool(t, testTool(t, "compress-image"), corpusImage(t, "smile.png"), map[string]string{"preset": "low"})
	got, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	if out.Meta["saved_bytes"].(int64) == 0 && !bytes.Equal(got, in) {
		t.Error("saved_bytes 0 but the output is not the input")
	}
	if len(got) > len(in) {
		t.Errorf("output %d bytes > input %d", len(got), len(in))
	}
}

func TestCompressParams(t *testing.T) {
	tool := testTool(t, "compress-image")
	for field, raw := range map[string]map[string]string{
		"preset":  {"preset": "max"},
		"quality": {"quality": "0"},
	} {
		_, err := runTool(t, tool, generatedJPEG(t), raw)
		toolstest.WantCode(t, err, "invalid_parameter", field)
	}
}
