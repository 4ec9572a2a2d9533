package pdfops

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/jpeg"
	"math"
	"os"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/docmill/docmill/tools/toolstest"
)

func TestScanJPEGCorpus(t *testing.T) {
	tests := []struct {
		file       string
		orient     int
		xDPI, yDPI float64
		icc        bool
	}{
		{"photo.jpg", 1, 72, 72, true},         // JFIF density 72 dpi, sRGB profile
		{"iphone-photo.jpg", 1, 72, 72, false}, // EXIF resolution
		{"phone-photo.jpg", 1, 0, 0, false},    // JFIF declares an aspect ratio only
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b := toolstest.ReadCorpus(t, "image", tt.file)
			info, err := scanJPEG(b)
			if err != nil {
				t.Fatalf("scanJPEG: %v", err)
			}
			m := info.meta
			if m.orientation != tt.orient || m.xDPI != tt.xDPI || m.yDPI != tt.yDPI || (info.icc != nil) != tt.icc {
				t.Errorf("got %+v, icc %d bytes; want orientation %d, dpi %gx%g, icc %v", m, len(info.icc), tt.orient, tt.xDPI, tt.yDPI, tt.icc)
			}
		})
	}
	b := toolstest.ReadCorpus(t, "image", "corrupted.jpg")
	if _, err := scanJPEG(b); err == nil {
		t.Error("corrupted.jpg passed the structural scan")
	}
}

// smallJPEG encodes a 16x16 JPEG: SOI, DQT, SOF0, DHT, SOS, data, EOI.
func smallJPEG(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestScanJPEGStructure(t *testing.T) {
	good := smallJPEG(t)
	sos := bytes.Index(good, []byte{0xFF, 0xDA})
	data := sos + 2 + (int(good[sos+2])<<8 | int(good[sos+3])) // the first entropy-coded byte
	insert := func(at int, b ...byte) []byte {
		return append(append(append([]byte{}, good[:at]...), b...), good[at:]...)
	}
	sof := bytes.Index(good, []byte{0xFF, 0xC0})
	sofSeg := good[sof : sof+2+(int(good[sof+2])<<8|int(good[sof+3]))]
	tests := []struct {
		name string
		b    []byte
		ok   bool
	}{
		{"valid", good, true},
		{"trailing bytes after EOI", append(append([]byte{}, good...), "preview data"...), true},
		{"fill bytes before EOI", insert(len(good)-2, 0xFF, 0xFF), true},
		{"stray bytes between segments", insert(sof, 0x00, 0x00, 0x12), true},
		{"restart markers in sequence", insert(data+4, 0xFF, 0xD0), true},
		{"no SOI", good[2:], false},
		{"empty", nil, false},
		{"truncated in the scan", good[:len(good)-10], false},
		{"no EOI", good[:len(good)-2], false},
		{"truncated in a segment", good[:sof+10], false},
		{"invalid marker in the scan", insert(data+4, 0xFF, 0x9F), false},
		{"restart marker out of sequence", insert(data+4, 0xFF, 0xD1), false},
		{"second frame", insert(sof, sofSeg...), false},
		{"segment length below 2", insert(2, 0xFF, 0xE5, 0x00, 0x01), false},
		{"segment past the end", insert(2, 0xFF, 0xE5, 0xFF, 0xFF), false},
		{"no frame", append(append([]byte{}, good[:sof]...), good[sof+len(sofSeg):]...), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scanJPEG(tt.b)
			if (err == nil) != tt.ok {
				t.Errorf("scanJPEG: %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestScanJPEGMetadata(t *testing.T) {
	good := smallJPEG(t)
	app := func(marker byte, payload []byte) []byte {
		n := len(payload) + 2
		return append([]byte{0xFF, marker, byte(n >> 8), byte(n)}, payload...)
	}
	withSegs := func(segs ...[]byte) []byte {
		b := append([]byte{}, good[:2]...)
		for _, s := range segs {
			b = append(b, s...)
		}
		return append(b, good[2:]...)
	}
	exif := app(0xE1, append([]byte("Exif\x00\x00"), tiffBlock(binary.BigEndian, orientationEntry(6),
		tiffEntry{tag: tagXResolution, typ: 5, count: 1, rational: []uint32{300, 1}},
		tiffEntry{tag: tagYResolution, typ: 5, count: 1, rational: []uint32{300, 1}})...))
	jfif := app(0xE0, []byte("JFIF\x00\x01\x02\x02\x00\x76\x00\x76\x00\x00")) // 118 dots per cm
	profile := make([]byte, 200)
	copy(profile[16:], "RGB ")
	icc1 := app(0xE2, append([]byte("ICC_PROFILE\x00\x01\x02"), profile[:100]...))
	icc2 := app(0xE2, append([]byte("ICC_PROFILE\x00\x02\x02"), profile[100:]...))

	info, err := scanJPEG(withSegs(exif, icc2, icc1))
	if err != nil {
		t.Fatal(err)
	}
	if info.meta.orientation != 6 || info.meta.xDPI != 300 || !bytes.Equal(info.icc, profile) {
		t.Errorf("EXIF and ICC: got %+v, icc %d bytes", info.meta, len(info.icc))
	}
	// JFIF's density wins over EXIF's; the orientation still comes from EXIF.
	info, err = scanJPEG(withSegs(jfif, exif))
	if err != nil {
		t.Fatal(err)
	}
	if info.meta.orientation != 6 || math.Abs(info.meta.xDPI-299.72) > 1e-9 {
		t.Errorf("JFIF and EXIF: got %+v", info.meta)
	}
	// A profile with a chunk missing is dropped.
	if info, _ := scanJPEG(withSegs(icc2)); info.icc != nil {
		t.Error("incomplete ICC profile kept")
	}
	if info, _ := scanJPEG(withSegs(app(0xEE, []byte("Adobe\x00\x64\x00\x00\x00\x00\x00")))); !info.adobe {
		t.Error("Adobe segment not seen")
	}
}

func TestICCColorSpace(t *testing.T) {
	xt, err := pdfcpu.CreateXRefTableWithRootDict()
	if err != nil {
		t.Fatal(err)
	}
	profile := func(space string) []byte {
		p := make([]byte, 300)
		copy(p[16:], space)
		return p
	}
	tests := []struct {
		name    string
		profile []byte
		comps   int
		want    bool
	}{
		{"RGB", profile("RGB "), 3, true},
		{"gray", profile("GRAY"), 1, true},
		{"CMYK", profile("CMYK"), 4, true},
		{"gray profile on an RGB image", profile("GRAY"), 3, false},
		{"too short", profile("RGB ")[:100], 3, false},
		{"none", nil, 3, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, err := iccColorSpace(xt, tt.profile, tt.comps)
			if err != nil {
				t.Fatal(err)
			}
			if got := cs != nil; got != tt.want {
				t.Fatalf("colour space %v, want one: %v", cs, tt.want)
			}
			if cs != nil && cs.(types.Array)[0] != types.Name("ICCBased") {
				t.Errorf("colour space %v, want ICCBased", cs)
			}
		})
	}
}

// FuzzScanJPEG checks that no input makes the JPEG and metadata readers
// panic or loop; "go test" runs the seeds.
func FuzzScanJPEG(f *testing.F) {
	f.Add(smallJPEG(f))
	if path, ok := toolstest.CorpusIfPresent("image", "photo.jpg"); ok {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(tiffBlock(binary.BigEndian, orientationEntry(3)))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = scanJPEG(b)
		exifMeta(b)
		readPNGMeta(bytes.NewReader(b), int64(len(b)))
		readWebPMeta(bytes.NewReader(b), int64(len(b)))
	})
}
