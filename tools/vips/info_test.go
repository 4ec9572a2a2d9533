package vips

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/gif"
	"image/jpeg"
	"os"
	"os/exec"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// readReport runs image-info on path and decodes its report.
func readReport(t *testing.T, path string) (imageReport, *docmill.RunOutput) {
	t.Helper()
	out := mustRunTool(t, testTool(t, "image-info"), path, nil)
	if out.ContentType != "application/json" || !strings.HasSuffix(out.Filename, "-info.json") {
		t.Errorf("result %s %s", out.Filename, out.ContentType)
	}
	b, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	var r imageReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report %s: %v", b, err)
	}
	return r, out
}

// vipsheaderField reads one field of vipsheader -a's output, run
// directly (outside the jail and the tool).
func vipsheaderField(t *testing.T, path, field string) string {
	t.Helper()
	b, err := exec.Command("vipsheader", "-a", path).Output()
	if err != nil {
		t.Fatalf("vipsheader -a: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field+": "); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("vipsheader -a prints no %s", field)
	return ""
}

// TestImageInfo checks each report against Go's decoders (size, alpha)
// and vipsheader run directly (bands, interpretation).
func TestImageInfo(t *testing.T) {
	for _, tt := range []struct {
		name, format string
		alpha        bool
	}{
		{"photo.jpg", "jpg", false}, {"phone-photo.jpg", "jpg", false}, {"map.png", "png", true},
		{"scan.png", "png", true}, {"smile.png", "png", false}, {"smile.tiff", "tiff", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := corpusImage(t, tt.name)
			r, out := readReport(t, path)
			w, h, err := goSize(fileOf(path))
			if err != nil {
				t.Fatal(err)
			}
			if r.Width != w || r.Height != h || r.DisplayWidth != w || r.DisplayHeight != h || r.Format != tt.format || r.HasAlpha != tt.alpha {
				t.Errorf("report %+v; Go reads %dx%d", r, w, h)
			}
			if fmt.Sprint(r.Bands) != vipsheaderField(t, path, "bands") || r.Interpretation != vipsheaderField(t, path, "interpretation") {
				t.Errorf("bands %d, interpretation %s", r.Bands, r.Interpretation)
			}
			if r.BitDepth != 8 || r.SampleFormat != "uchar" || r.Pages != 1 || r.Orientation != 1 || r.DPI[0] <= 0 {
				t.Errorf("report %+v", r)
			}
			if out.Meta["width"] != w || out.Meta["format"] != tt.format || out.Meta["pages"] != 1 {
				t.Errorf("meta %v", out.Meta)
			}
		})
	}
	r, _ := readReport(t, corpusImage(t, "photo.jpg"))
	if r.EXIF["Make"] != "NIKON CORPORATION" || r.EXIF["Model"] != "NIKON D60" || r.EXIF["Orientation"] != "Top-left" {
		t.Errorf("photo.jpg EXIF %v", r.EXIF)
	}
	r, _ = readReport(t, corpusImage(t, "smile.png"))
	if !r.ICCProfile || len(r.EXIF) != 0 {
		t.Errorf("smile.png: icc %v, exif %v", r.ICCProfile, r.EXIF)
	}
}

func TestImageInfoOrientationAndPages(t *testing.T) {
	r, _ := readReport(t, toolstest.WriteTemp(t, "turned.jpg", orientedJPEG(t, 40, 20, 6)))
	if r.Orientation != 6 || r.Width != 40 || r.Height != 20 || r.DisplayWidth != 20 || r.DisplayHeight != 40 {
		t.Errorf("report %+v", r)
	}
	// An animated GIF of three frames.
	anim := &gif.GIF{}
	for i := range 3 {
		frame := image.NewPaletted(image.Rect(0, 0, 12, 8), palette.Plan9)
		frame.Set(i, i, color.White)
		anim.Image, anim.Delay = append(anim.Image, frame), append(anim.Delay, 10)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, anim); err != nil {
		t.Fatal(err)
	}
	r, _ = readReport(t, toolstest.WriteTemp(t, "anim.gif", b.Bytes()))
	if r.Pages != 3 || r.Format != "gif" || r.Width != 12 {
		t.Errorf("gif report %+v", r)
	}
}

// exifJPEG returns an 8x8 JPEG whose EXIF Make is make and orientation
// orient.
func exifJPEG(t *testing.T, make string, orient uint16) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	value := append([]byte(make), 0)
	ifd := le.AppendUint32([]byte("II*\x00"), 8)
	ifd = le.AppendUint16(ifd, 2)
	ifd = le.AppendUint16(le.AppendUint16(ifd, 0x010f), 2) // Make, ASCII
	ifd = le.AppendUint32(le.AppendUint32(ifd, uint32(len(value))), 8+2+2*12+4)
	ifd = le.AppendUint16(le.AppendUint16(ifd, 0x0112), 3) // Orientation, SHORT
	ifd = append(le.AppendUint16(le.AppendUint32(ifd, 1), orient), 0, 0)
	ifd = append(le.AppendUint32(ifd, 0), value...)
	app1 := append([]byte("Exif\x00\x00"), ifd...)
	seg := append([]byte{0xff, 0xe1}, binary.BigEndian.AppendUint16(nil, uint16(len(app1)+2))...)
	j := buf.Bytes()
	return append(append(append([]byte{}, j[:2]...), append(seg, app1...)...), j[2:]...)
}

// TestImageInfoForgedLines: an EXIF string with newlines, printed as is
// by vipsheader, cannot pass for the header's own fields.
func TestImageInfoForgedLines(t *testing.T) {
	forged := "Evil\nwidth: 99999\norientation: 6\nn-pages: 50\nicc-profile-data: 1 bytes of binary data"
	r, _ := readReport(t, toolstest.WriteTemp(t, "forged.jpg", exifJPEG(t, forged, 1)))
	if r.Width != 8 || r.Height != 8 || r.Orientation != 1 || r.Pages != 1 || r.ICCProfile {
		t.Errorf("forged report %+v", r)
	}
	for k, v := range r.EXIF {
		if strings.ContainsAny(v, "\n\r") || strings.Contains(k, "width") {
			t.Errorf("EXIF %q = %q", k, v)
		}
	}
	// A real orientation is read, whatever the Make says.
	r, _ = readReport(t, toolstest.WriteTemp(t, "forged6.jpg", exifJPEG(t, "x\norientation: 1", 6)))
	if r.Orientation != 6 {
		t.Errorf("orientation %d, want 6", r.Orientation)
	}
	// Control and format characters are dropped, long values cut. (vips
	// prints invalid UTF-8 as "<invalid utf-8 string>", without the
	// entry's type, so such an entry is left out.)
	r, _ = readReport(t, toolstest.WriteTemp(t, "long.jpg", exifJPEG(t, "A\x01B"+strings.Repeat("z", 400), 1)))
	if mk := r.EXIF["Make"]; !strings.HasPrefix(mk, "ABzz") || len([]rune(mk)) > maxEXIFValue {
		t.Errorf("Make %q (%d runes)", mk, len([]rune(mk)))
	}
}

// TestImageInfoBomb: a header declaring 2.5 gigapixels is reported, not
// decoded (nothing would finish in time if it were).
func TestImageInfoBomb(t *testing.T) {
	r, _ := readReport(t, toolstest.WriteTemp(t, "bomb.png", bombPNG(50000, 50000)))
	if r.Width != 50000 || r.Height != 50000 || r.Bands != 3 {
		t.Errorf("report %+v", r)
	}
}

func TestImageInfoBadInput(t *testing.T) {
	tool := testTool(t, "image-info")
	whole := toolstest.ReadCorpus(t, "image", "photo.jpg")
	for name, path := range map[string]string{
		"zero-byte":    toolstest.WriteTemp(t, "zero.jpg", nil),
		"not-an-image": toolstest.WriteTemp(t, "text.jpg", []byte("hello, this is not an image\n")),
		"cut":          toolstest.WriteTemp(t, "cut.jpg", whole[:64]),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runTool(t, tool, path, nil)
			e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
			if strings.Contains(e.Message, "/") || strings.Contains(e.Message, "vips") {
				t.Errorf("message leaks: %q", e.Message)
			}
		})
	}
}

func TestParseHeaderEXIFBounds(t *testing.T) {
	head := "x: 1x1 uchar, 3 bands, srgb, jpegload\nwidth: 1\nheight: 1\nbands: 3\nformat: uchar\ncoding: none\n" +
		"interpretation: srgb\nxoffset: 0\nyoffset: 0\nxres: 11.811\nyres: 11.811\nfilename: x\n"
	var b strings.Builder
	b.WriteString(head)
	b.WriteString("exif-ifd1-Compression: 6 (JPEG compression, Short, 1 components, 2 bytes)\n")
	b.WriteString("exif-ifd2-MakerNote: 9000 bytes undefined data (9000 bytes undefined data, Undefined, 9000 components, 9000 bytes)\n")
	b.WriteString("exif-ifd2-UserComment: 300 bytes undefined data (300 bytes undefined data, Undefined, 300 components, 300 bytes)\n")
	b.WriteString("exif-ifd0-XResolution: 72/1 (72, Rational, 1 components, 8 bytes)\n")
	for i := range 150 {
		fmt.Fprintf(&b, "exif-ifd3-Tag%d: v%d (v%d, ASCII, 3 components, 3 bytes)\n", i, i, i)
	}
	r, err := parseHeader(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(r.EXIF) != maxEXIFFields || !r.EXIFTruncated || r.EXIF["XResolution"] != "72" || r.EXIF["Tag0"] != "v0" {
		t.Errorf("%d fields, truncated %v, XResolution %q", len(r.EXIF), r.EXIFTruncated, r.EXIF["XResolution"])
	}
	for _, k := range []string{"Compression", "MakerNote", "UserComment"} {
		if _, ok := r.EXIF[k]; ok {
			t.Errorf("%s reported", k)
		}
	}
	if r.DPI != [2]float64{300, 300} || r.HasAlpha || r.BitDepth != 8 {
		t.Errorf("report %+v", r)
	}
	if _, err := parseHeader(strings.Replace(head, "bands: 3", "bands: x", 1)); err == nil {
		t.Error("a non-numeric bands parsed")
	}
	if _, err := parseHeader("x: nothing\n"); err == nil {
		t.Error("a short header parsed")
	}
}

func TestCleanText(t *testing.T) {
	for in, want := range map[string]string{
		"  Apple ": "Apple", "a\x00b\nc\td": "abcd", "evil\u202efdp": "evilfdp", "\xffok": "\uFFFDok",
		strings.Repeat("ж", 300): strings.Repeat("ж", maxEXIFValue-1) + "…",
	} {
		if got := cleanText(in); got != want {
			t.Errorf("cleanText(%q) = %q, want %q", in, got, want)
		}
	}
}
