package ghostscript_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

var imageHeavy = []string{"base64image.pdf", "GeoTopo-komprimiert.pdf", "cmyk-image.pdf"}

func TestCompress(t *testing.T) {
	for _, f := range imageHeavy {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			in := toolstest.ReadCorpus(t, "pdf", f)
			wantWords := firstWords(text(t, corpusPDF(t, f)), 5)
			sizes := map[string]int64{}
			for _, preset := range []string{"low", "recommended", "extreme"} {
				out, err := run(t, "compress-pdf", map[string]string{"preset": preset}, corpusPDF(t, f))
				if err != nil {
					t.Fatalf("%s: %v", preset, err)
				}
				size := out.Meta["output_size"].(int64)
				sizes[preset] = size
				t.Logf("%s: %d -> %d bytes (ratio %.3f)", preset, len(in), size, out.Meta["ratio"])
				if out.Meta["input_size"] != int64(len(in)) || out.Meta["saved_bytes"] != int64(len(in))-size {
					t.Errorf("%s: meta = %v", preset, out.Meta)
				}
				if out.Filename != strings.TrimSuffix(f, ".pdf")+"-compressed.pdf" {
					t.Errorf("filename = %q", out.Filename)
				}
				// low keeps colour unchanged, so the palette CMYK image of
				// cmyk-image.pdf cannot shrink: the input comes back.
				if size >= int64(len(in)) && !(preset == "low" && f == "cmyk-image.pdf") {
					t.Errorf("%s: output %d bytes, input %d", preset, size, len(in))
				}
				qpdfCheck(t, out.Path)
				if got := text(t, out.Path); !strings.Contains(got, wantWords) {
					t.Errorf("%s: text %.80q lost the first words %q", preset, got, wantWords)
				}
			}
			// Roughly ordered: allow 2% slack for equal-resolution cases.
			if float64(sizes["extreme"]) > 1.02*float64(sizes["recommended"]) ||
				float64(sizes["recommended"]) > 1.02*float64(sizes["low"]) {
				t.Errorf("sizes not ordered extreme <= recommended <= low: %v", sizes)
			}
		})
	}
}

// firstWords returns the first n words of s.
func firstWords(s string, n int) string {
	w := strings.Fields(s)
	return strings.Join(w[:min(n, len(w))], " ")
}

// TestCompressNeverLarger: a text-only PDF must not grow, and a file that
// Ghostscript would grow (cmyk-image.pdf at low, whose palette CMYK image
// pdfwrite can neither downsample nor JPEG-encode while colour is kept)
// comes back byte for byte with saved_bytes 0.
func TestCompressNeverLarger(t *testing.T) {
	tests := []struct {
		file, preset string
		unchanged    bool
	}{
		{"minimal-document.pdf", "low", false},
		{"cmyk-image.pdf", "low", true},
	}
	for _, tt := range tests {
		in := toolstest.ReadCorpus(t, "pdf", tt.file)
		out, err := run(t, "compress-pdf", map[string]string{"preset": tt.preset}, corpusPDF(t, tt.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(out.Path)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > len(in) {
			t.Errorf("%s: output %d bytes > input %d", tt.file, len(got), len(in))
		}
		saved := out.Meta["saved_bytes"].(int64)
		if (saved == 0) != bytes.Equal(got, in) || (tt.unchanged && saved != 0) {
			t.Errorf("%s: saved_bytes %d, output identical to input: %v", tt.file, saved, bytes.Equal(got, in))
		}
		t.Logf("%s: meta %v", tt.file, out.Meta)
	}
}

func TestCompressQuality(t *testing.T) {
	size := func(q string) int64 {
		out, err := run(t, "compress-pdf", map[string]string{"quality": q}, corpusPDF(t, "base64image.pdf"))
		if err != nil {
			t.Fatal(err)
		}
		return out.Meta["output_size"].(int64)
	}
	lo, mid, hi := size("20"), size("50"), size("95")
	t.Logf("quality 20: %d, 50: %d, 95: %d", lo, mid, hi)
	if !(lo < mid && mid < hi) {
		t.Errorf("quality does not order sizes: 20 -> %d, 50 -> %d, 95 -> %d", lo, mid, hi)
	}
}

func TestCompressBadInput(t *testing.T) {
	tests := []struct {
		name, path string
		corpus     string // instead of path: a corpus file, read only by its subtest
	}{
		{"encrypted", "", "libreoffice-writer-password.pdf"},
		{"not a pdf", toolstest.WriteTemp(t, "notes.pdf", []byte("hello (world) show showpage\n")), ""},
		{"header only", toolstest.WriteTemp(t, "empty.pdf", []byte("%PDF-1.7\n%%EOF\n")), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if tt.corpus != "" {
				path = corpusPDF(t, tt.corpus)
			}
			_, err := run(t, "compress-pdf", nil, path)
			wantCode(t, err, docmill.CodeInvalidDocument)
			if msg := docmill.AsError(err).Message; strings.Contains(msg, "/") {
				t.Errorf("message leaks a path: %q", msg)
			}
		})
	}
}

func TestCompressParams(t *testing.T) {
	tl := tool(t, "compress-pdf")
	for _, raw := range []map[string]string{{"preset": "max"}, {"quality": "0"}, {"quality": "101"}} {
		if _, err := tl.ParseParams(raw); docmill.ErrorCode(err) != docmill.CodeInvalidParameter {
			t.Errorf("ParseParams(%v) = %v, want invalid_parameter", raw, err)
		}
	}
}

// TestCompressKeepsCIDFonts: the embedded CID TrueType fonts of a Google
// Docs export survive the jailed Ghostscript run. Their Identity-H CMap is
// a link into /usr/share/poppler on Debian; outside the jail's view, gs
// substituted a font and the text came out garbled.
func TestCompressKeepsCIDFonts(t *testing.T) {
	path := corpusPDF(t, "google-doc-document.pdf")
	want := firstWords(text(t, path), 6)
	out, err := run(t, "compress-pdf", nil, path)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, out.Path); !strings.Contains(got, want) {
		t.Errorf("text %.80q lost the first words %q", got, want)
	}
}

// TestCompressKeepsOrientation: a page with /Rotate 90 and sideways text
// displays the same way round after compression (pdfwrite's default
// AutoRotatePages turned it to make the text upright).
func TestCompressKeepsOrientation(t *testing.T) {
	path := corpusPDF(t, "habibi-rotated.pdf")
	out, err := run(t, "compress-pdf", nil, path)
	if err != nil {
		t.Fatal(err)
	}
	want, got := renderFirstPage(t, path, 20).Bounds().Size(), renderFirstPage(t, out.Path, 20).Bounds().Size()
	if got != want {
		t.Errorf("page 1 renders %v, the original %v", got, want)
	}
}
