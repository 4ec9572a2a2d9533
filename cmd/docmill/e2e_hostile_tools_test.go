package main

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// The hunt: issue 19's and 20's tools run, through the real registry and
// its jailed engines, against hostile inputs made here. Each run must end
// within huntTimeout with a correct result or a client error (a 4xx code)
// whose message names no path and quotes no engine; never a panic, an
// internal error or a hang.

// huntTimeout bounds each run.
const huntTimeout = 30 * time.Second

// huntTools are the tools of the real engines, by slug, which TestHunt
// builds with a scratch directory of its own and closes at its end.
var huntTools map[string]*docmill.Tool

// TestHunt runs the hunt's three parts over one toolset.
func TestHunt(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the engines")
	}
	tools, _ := testToolset(t)
	t.Cleanup(func() { huntTools = nil })
	huntTools = map[string]*docmill.Tool{}
	for _, tl := range tools {
		huntTools[tl.Slug] = tl
	}
	t.Run("PDFMatrix", huntPDFMatrix)
	t.Run("ImageMatrix", huntImageMatrix)
	t.Run("ParamBounds", huntParamBounds)
}

// huntFile is one input file of a case.
type huntFile struct {
	name, contentType string
	data              []byte
}

func huntPDFFile(b []byte) huntFile { return huntFile{"hostile.pdf", "application/pdf", b} }

// huntLeak matches what a public message must not hold: a path, an
// engine's name or its diagnostics.
var huntLeak = regexp.MustCompile(`(?i)/tmp|/work|/usr/|/proc|input-\d|goroutine|panic|exit status|signal|stderr|pdfcpu|ghostscript|gs:|qpdf|poppler|pdftoppm|pdftocairo|pdfimages|vips|\.go:\d`)

// huntRun runs slug on files with raw params and checks the outcome.
func huntRun(t *testing.T, slug string, files []huntFile, raw map[string]string) {
	t.Helper()
	tool := huntTools[slug]
	if tool == nil {
		t.Fatalf("no tool %s", slug)
	}
	if !tool.IsAvailable() {
		toolstest.Lacking(t, "%s: engine unavailable", slug)
	}
	params, err := tool.ParseParams(raw)
	if err != nil {
		huntCheckErr(t, slug, err, 0)
		return
	}
	work := filepath.Join(t.TempDir(), "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	in := &docmill.RunInput{Params: params, WorkDir: work, Limits: docmill.DefaultLimits()}
	for i, f := range files {
		p := filepath.Join(work, fmt.Sprintf("input-%d%s", i, filepath.Ext(f.name)))
		if err := os.WriteFile(p, f.data, 0o600); err != nil {
			t.Fatal(err)
		}
		in.Files = append(in.Files, docmill.LocalFile{Path: p, Filename: f.name, ContentType: f.contentType, Size: int64(len(f.data))})
	}
	ctx, cancel := context.WithTimeout(context.Background(), huntTimeout)
	defer cancel()
	start := time.Now()
	out, err := huntInvoke(ctx, tool, in)
	took := time.Since(start)
	if took > huntTimeout-time.Second || ctx.Err() != nil {
		t.Errorf("%s: took %v (ctx %v, err %v)", slug, took.Round(time.Millisecond), ctx.Err(), err)
	}
	if err != nil {
		huntCheckErr(t, slug, err, took)
		return
	}
	st, serr := os.Lstat(out.Path)
	if serr != nil || !st.Mode().IsRegular() {
		t.Errorf("%s: result %s missing or not regular: %v", slug, out.Path, serr)
		return
	}
	t.Logf("%s: done in %v: %s, %d bytes, meta %v", slug, took.Round(time.Millisecond), out.ContentType, st.Size(), huntShort(fmt.Sprint(out.Meta)))
}

func huntShort(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

func huntInvoke(ctx context.Context, tool *docmill.Tool, in *docmill.RunInput) (out *docmill.RunOutput, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	return tool.Invoke(ctx, in)
}

// huntClientCodes are the codes of a 4xx answer.
var huntClientCodes = map[docmill.Code]bool{
	docmill.CodeInvalidDocument: true, docmill.CodeUnsupportedFileType: true,
	docmill.CodeInvalidParameter: true, docmill.CodeMissingFile: true,
	docmill.CodeFileTooLarge: true, docmill.CodeTooManyFiles: true,
	docmill.CodeNoText: true, docmill.CodeNoTables: true,
}

func huntCheckErr(t *testing.T, slug string, err error, took time.Duration) {
	t.Helper()
	var e *docmill.Error
	if !errors.As(err, &e) || !huntClientCodes[e.Code] {
		t.Errorf("%s: not a client error after %v: %v", slug, took.Round(time.Millisecond), err)
		return
	}
	if huntLeak.MatchString(e.Message) {
		t.Errorf("%s: public message leaks: %q", slug, e.Message)
	}
	for _, f := range e.Fields {
		if huntLeak.MatchString(f.Message) {
			t.Errorf("%s: field message leaks: %q", slug, f.Message)
		}
	}
	t.Logf("%s: %s after %v: %s", slug, e.Code, took.Round(time.Millisecond), huntShort(e.Message))
}

// --- hostile PDFs ---

// huntPage is a page object body under parent 2 with content object c.
func huntPage(extra string) string {
	return "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> " + extra + " >>"
}

func huntStream(dict, data string) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

const huntText = "BT /F1 24 Tf 20 100 Td (Hunt) Tj ET"

// huntBomb is a zlib stream of size zeros (a few hundred KB for 300 MiB),
// made once.
var huntBomb = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	zeros := make([]byte, 1<<20)
	for range 300 {
		zw.Write(zeros)
	}
	zw.Close()
	return b.Bytes()
})

func huntBombStream(dict string) string {
	return huntStream(dict+" /Filter /FlateDecode", string(huntBomb()))
}

func huntNested(open, close string, depth int) string {
	return strings.Repeat(open, depth) + strings.Repeat(close, depth)
}

// huntPDFs are the hostile PDFs, by name.
func huntPDFs() map[string][]byte {
	m := map[string][]byte{}
	cat := "<< /Type /Catalog /Pages 2 0 R >>"
	one := "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
	content := huntStream("", huntText)
	m["kids cycle"] = toolstest.PDF(cat,
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		huntPage("/Contents 5 0 R"),
		"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>",
		content)
	m["parent loop"] = toolstest.PDF(cat,
		"<< /Type /Pages /Parent 4 0 R /Kids [3 0 R] /Count 1 >>",
		huntPage("/Contents 5 0 R"),
		"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>",
		content)
	m["outline cycle"] = toolstest.PDF("<< /Type /Catalog /Pages 2 0 R /Outlines 5 0 R /PageMode /UseOutlines >>", one,
		huntPage("/Contents 4 0 R"), content,
		"<< /Type /Outlines /First 6 0 R /Last 7 0 R /Count 2 >>",
		"<< /Title (A) /Parent 5 0 R /Next 7 0 R /First 5 0 R /Last 5 0 R /Count 1 /Dest [3 0 R /Fit] >>",
		"<< /Title (B) /Parent 5 0 R /Prev 6 0 R /Next 6 0 R /First 6 0 R /Dest [3 0 R /Fit] >>")
	{
		const n = 100000
		objs := []string{"<< /Type /Catalog /Pages 2 0 R /Outlines 5 0 R >>", one, huntPage("/Contents 4 0 R"), content,
			fmt.Sprintf("<< /Type /Outlines /First 6 0 R /Last %d 0 R /Count %d >>", 5+n, n)}
		for i := range n {
			id := 6 + i
			s := fmt.Sprintf("<< /Title (I%d) /Parent 5 0 R /Dest [3 0 R /Fit]", i)
			if i > 0 {
				s += fmt.Sprintf(" /Prev %d 0 R", id-1)
			}
			if i < n-1 {
				s += fmt.Sprintf(" /Next %d 0 R", id+1)
			}
			objs = append(objs, s+" >>")
		}
		m["outline 1e5 items"] = toolstest.PDF(objs...)
	}
	m["nested arrays 1e5"] = toolstest.PDF(cat, one, huntPage("/Contents 4 0 R /Hunt "+huntNested("[", "]", 100000)), content)
	m["nested dicts 1e5"] = toolstest.PDF(cat, one, huntPage("/Contents 4 0 R /Hunt "+huntNested("<< /A ", ">>", 100000)), content)
	m["acroform kids cycle"] = toolstest.PDF("<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] /NeedAppearances true >> >>", one,
		huntPage("/Contents 4 0 R /Annots [6 0 R]"), content,
		"<< /T (Top) /FT /Tx /Kids [6 0 R] >>",
		"<< /T (Kid) /FT /Tx /Parent 5 0 R /Kids [5 0 R] /Type /Annot /Subtype /Widget /Rect [10 10 100 40] /P 3 0 R /V (x) >>")
	m["annots 1e5"] = toolstest.PDF(cat, one,
		huntPage("/Contents 4 0 R /Annots ["+strings.Repeat("5 0 R ", 100000)+"]"), content,
		"<< /Type /Annot /Subtype /Text /Rect [10 10 30 30] /Contents (note) >>")
	m["flate bomb content"] = toolstest.PDF(cat, one, huntPage("/Contents 4 0 R"), huntBombStream(""))
	m["flate bomb xmp"] = toolstest.PDF("<< /Type /Catalog /Pages 2 0 R /Metadata 5 0 R >>", one, huntPage("/Contents 4 0 R"), content,
		huntBombStream("/Type /Metadata /Subtype /XML"))
	m["flate bomb attachment"] = toolstest.PDF("<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [(bomb.bin) 5 0 R] >> >> >>", one,
		huntPage("/Contents 4 0 R"), content,
		"<< /Type /Filespec /F (bomb.bin) /UF (bomb.bin) /EF << /F 6 0 R >> >>",
		huntBombStream("/Type /EmbeddedFile"))
	m["embedded files tree cycle"] = toolstest.PDF("<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles 5 0 R >> >>", one,
		huntPage("/Contents 4 0 R"), content,
		"<< /Kids [5 0 R 6 0 R] >>",
		"<< /Kids [5 0 R] /Names [(a.txt) 7 0 R] >>",
		"<< /Type /Filespec /F (a.txt) /EF << /F 8 0 R >> >>",
		huntStream("/Type /EmbeddedFile", "hello"))
	js := "<< /S /JavaScript /JS (app.alert\\(1\\)) >>"
	m["javascript everywhere"] = toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R /OpenAction "+js+" /AA << /WC "+js+" /WS "+js+" >> /Names << /JavaScript << /Names [(x) "+js+"] >> >> /AcroForm << /Fields [6 0 R] >> >>", one,
		huntPage("/Contents 4 0 R /AA << /O "+js+" /C "+js+" >> /Annots [5 0 R 6 0 R]"), content,
		"<< /Type /Annot /Subtype /Link /Rect [0 0 50 50] /A << /S /Launch /F (/bin/sh) /Next "+js+" >> >>",
		"<< /Type /Annot /Subtype /Widget /FT /Btn /T (b) /Rect [60 60 90 90] /P 3 0 R /A "+js+" /AA << /U "+js+" /K "+js+" >> >>")
	m["image 1e5 x 1e5"] = toolstest.PDF(cat, one,
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>",
		huntStream("", "q 200 0 0 200 0 0 cm /Im0 Do Q"),
		huntBombStream("/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace /DeviceRGB /BitsPerComponent 8"))
	for name, box := range map[string]string{"mediabox 1e9": "[0 0 1e9 1e9]", "mediabox zero": "[0 0 0 0]", "mediabox negative": "[0 0 -500 -300]", "mediabox junk": "[0 0 (a) /B]"} {
		m[name] = toolstest.PDF(cat, one,
			"<< /Type /Page /Parent 2 0 R /MediaBox "+box+" /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents 4 0 R >>", content)
	}
	m["rotate 45"] = toolstest.PDF(cat, one, huntPage("/Contents 4 0 R /Rotate 45"), content)
	m["rotate huge"] = toolstest.PDF(cat, one, huntPage("/Contents 4 0 R /Rotate 9223372036854775807"), content)
	{
		b := toolstest.TextPDF("one", "two")
		m["xref everywhere"] = regexp.MustCompile(`(?m)^\d{10} 00000 n`).ReplaceAllLiteral(b, []byte("0000000003 00000 n"))
		m["truncated"] = b[:len(b)/2]
	}
	m["not a pdf"] = append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("this is not a PDF at all\n"), 200)...)
	m["only header"] = []byte("%PDF-1.4\n")
	return m
}

// huntPDFTools are the PDF tools with the params of a plain run.
var huntPDFTools = []struct {
	slug   string
	params map[string]string
}{
	{"crop-pdf", map[string]string{"margins": "10"}},
	{"resize-pdf", nil},
	{"nup-pdf", map[string]string{"per_sheet": "4"}},
	{"booklet-pdf", nil},
	{"insert-pages", map[string]string{"blank": "2", "after": "1"}},
	{"fill-pdf-form", map[string]string{"values": `{"Top": "v", "Kid": "w"}`}},
	{"flatten-pdf", nil},
	{"edit-metadata", map[string]string{"title": "Hunt"}},
	{"edit-bookmarks", map[string]string{"bookmarks": `[{"title": "B", "page": 1}]`}},
	{"pdf-bookmarks", nil},
	{"extract-attachments", nil},
	{"pdf-info", nil},
	{"linearize-pdf", nil},
	{"sanitize-pdf", nil},
	{"remove-annotations", nil},
	{"remove-blank-pages", nil},
	{"extract-images", map[string]string{"min_size": "0"}},
	{"grayscale-pdf", nil},
	{"pdf-to-svg", nil},
	{"pdf-form-fields", nil},
	{"pdf-to-csv", nil},
	{"pdf-to-xlsx", nil},
}

// huntPDFPicks are the runs of the default hunt: each hostile PDF with
// the tools it probes best, every tool at least once, within a minute.
// HUNT_ALL=1 runs every PDF tool on every hostile PDF instead (about 25
// minutes).
var huntPDFPicks = map[string][]string{
	"embedded files tree cycle": {"resize-pdf", "nup-pdf", "extract-attachments", "sanitize-pdf"},
	"kids cycle":                {"booklet-pdf", "pdf-to-svg", "pdf-to-xlsx"},
	"parent loop":               {"insert-pages", "remove-blank-pages"},
	"outline cycle":             {"pdf-bookmarks", "edit-bookmarks"},
	"acroform kids cycle":       {"pdf-form-fields", "fill-pdf-form", "flatten-pdf"},
	"annots 1e5":                {"remove-annotations"},
	"nested arrays 1e5":         {"edit-metadata", "pdf-info"},
	"flate bomb attachment":     {"extract-attachments", "add-attachments"},
	"flate bomb xmp":            {"edit-metadata"},
	"flate bomb content":        {"grayscale-pdf", "pdf-to-csv"},
	"javascript everywhere":     {"sanitize-pdf"},
	"image 1e5 x 1e5":           {"extract-images"},
	"mediabox zero":             {"crop-pdf", "image-watermark"},
	"mediabox negative":         {"nup-pdf"},
	"rotate huge":               {"resize-pdf"},
	"not a pdf":                 {"linearize-pdf"},
	"truncated":                 {"pdf-info"},
}

// huntPDFMatrix runs the PDF tools on the hostile PDFs (huntPDFPicks,
// or all of them with HUNT_ALL=1; HUNT_INPUT picks one input, HUNT_SKIP
// leaves inputs out).
func huntPDFMatrix(t *testing.T) {
	all := os.Getenv("HUNT_ALL") != ""
	params := map[string]map[string]string{}
	for _, tl := range huntPDFTools {
		params[tl.slug] = tl.params
	}
	only := os.Getenv("HUNT_INPUT")
	for name, b := range huntPDFs() {
		if only != "" && only != name || strings.Contains(os.Getenv("HUNT_SKIP"), name) {
			continue
		}
		slugs := huntPDFPicks[name]
		if all {
			slugs = []string{"add-attachments", "image-watermark"}
			for _, tl := range huntPDFTools {
				slugs = append(slugs, tl.slug)
			}
		}
		for _, slug := range slugs {
			t.Run(name+"/"+slug, func(t *testing.T) {
				files := []huntFile{huntPDFFile(b)}
				switch slug {
				case "add-attachments": // a name that climbs out
					files = append(files, huntFile{"../../etc/passwd", "application/pdf", b})
				case "image-watermark":
					files = append(files, huntFile{"mark.png", "image/png", huntPNG(8, 8)})
				}
				huntRun(t, slug, files, params[slug])
			})
		}
	}
}

// --- images ---

func huntPNG(w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

func huntJPEG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var b bytes.Buffer
	jpeg.Encode(&b, img, nil)
	return b.Bytes()
}

// huntJPEGSize rewrites the frame size of a JPEG's SOF0 marker.
func huntJPEGSize(b []byte, w, h uint16) []byte {
	b = append([]byte(nil), b...)
	i := bytes.Index(b, []byte{0xff, 0xc0})
	binary.BigEndian.PutUint16(b[i+5:], h)
	binary.BigEndian.PutUint16(b[i+7:], w)
	return b
}

// huntExifJPEG is a JPEG with an APP1 EXIF segment of forged entries:
// counts and offsets beyond the segment, an orientation of 999, a
// string of 2^31 bytes.
func huntExifJPEG() []byte {
	le := binary.LittleEndian
	ifd := []byte("II*\x00\x08\x00\x00\x00")
	entries := [][4]uint32{
		{0x0112, 3, 1, 999},                 // Orientation 999
		{0x010f, 2, 0x7fffffff, 0x7ffffff0}, // Make: huge string far away
		{0x0110, 2, 20, 0xfffffff0},         // Model: offset beyond
		{0x8769, 4, 1, 8},                   // Exif IFD pointing at IFD0: a cycle
		{0x0132, 2, 5, 0},                   // DateTime: offset 0
	}
	ifd = le.AppendUint16(ifd, uint16(len(entries)))
	for _, e := range entries {
		ifd = le.AppendUint16(ifd, uint16(e[0]))
		ifd = le.AppendUint16(ifd, uint16(e[1]))
		ifd = le.AppendUint32(ifd, e[2])
		ifd = le.AppendUint32(ifd, e[3])
	}
	ifd = le.AppendUint32(ifd, 8) // next IFD: itself
	app1 := append([]byte("Exif\x00\x00"), ifd...)
	seg := append([]byte{0xff, 0xe1}, binary.BigEndian.AppendUint16(nil, uint16(len(app1)+2))...)
	j := huntJPEG(64, 48)
	return append(append(append([]byte{}, j[:2]...), append(seg, app1...)...), j[2:]...)
}

// huntPNGChunk returns a PNG chunk.
func huntPNGChunk(typ string, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	b = append(append(b, typ...), data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// huntPNGExif is a small PNG with an eXIf chunk of forged entries and a
// tEXt chunk of 1 MB.
func huntPNGExif() []byte {
	p := huntPNG(32, 32)
	exif := huntExifJPEG()
	i := bytes.Index(exif, []byte("II*\x00"))
	j := bytes.Index(exif[i:], []byte{0xff, 0xdb}) // the next marker after APP1
	_ = j
	ifd := exif[i : i+8+2+5*12+4]
	ins := append(huntPNGChunk("eXIf", ifd), huntPNGChunk("tEXt", append([]byte("Comment\x00"), bytes.Repeat([]byte("A"), 1<<20)...))...)
	end := 8 + 25 // signature and IHDR
	return append(append(append([]byte{}, p[:end]...), ins...), p[end:]...)
}

// huntWebP is a VP8X WebP declaring a canvas of 16384 x 16384 with a tiny
// VP8L bitstream.
func huntWebP() []byte {
	le := binary.LittleEndian
	vp8x := []byte{0, 0, 0, 0}
	w, h := uint32(16383), uint32(16383)
	vp8x = append(vp8x, byte(w), byte(w>>8), byte(w>>16), byte(h), byte(h>>8), byte(h>>16))
	vp8l := []byte{0x2f}
	bits := uint32(16383) | uint32(16383)<<14
	vp8l = le.AppendUint32(vp8l, bits)
	vp8l = append(vp8l, 0, 0, 0, 0)
	chunk := func(typ string, d []byte) []byte {
		b := append([]byte(typ), le.AppendUint32(nil, uint32(len(d)))...)
		b = append(b, d...)
		if len(d)%2 == 1 {
			b = append(b, 0)
		}
		return b
	}
	body := append([]byte("WEBP"), chunk("VP8X", vp8x)...)
	body = append(body, chunk("VP8L", vp8l)...)
	return append(append([]byte("RIFF"), le.AppendUint32(nil, uint32(len(body)))...), body...)
}

// huntTIFF is a TIFF declaring 1000000 x 1000000 RGB pixels in one strip
// of 8 bytes.
func huntTIFF(w, h uint32) []byte {
	le := binary.LittleEndian
	b := []byte("II*\x00\x08\x00\x00\x00")
	type ent struct {
		tag, typ uint16
		n, v     uint32
	}
	es := []ent{{256, 4, 1, w}, {257, 4, 1, h}, {258, 3, 1, 8}, {259, 3, 1, 1}, {262, 3, 1, 1}, {273, 4, 1, 200}, {277, 3, 1, 1}, {278, 4, 1, h}, {279, 4, 1, 8}}
	b = le.AppendUint16(b, uint16(len(es)))
	for _, e := range es {
		b = le.AppendUint16(b, e.tag)
		b = le.AppendUint16(b, e.typ)
		b = le.AppendUint32(b, e.n)
		b = le.AppendUint32(b, e.v)
	}
	b = le.AppendUint32(b, 0)
	for len(b) < 200 {
		b = append(b, 0)
	}
	return append(b, make([]byte, 8)...)
}

// huntGIF is a GIF declaring a 65535 x 65535 screen and image.
func huntGIF() []byte {
	b := []byte("GIF89a\xff\xff\xff\xff\x00\x00\x00")
	b = append(b, 0x2c, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x00, 2, 2, 0x4c, 0x01, 0, 0x3b)
	return b
}

// huntImages are the hostile images, by name, with their content types.
func huntImages() map[string]huntFile {
	j := huntJPEG(64, 48)
	p := huntPNG(64, 48)
	return map[string]huntFile{
		"png bomb 1e5":         {"bomb.png", "image/png", toolstest.BombPNG(100000, 100000)},
		"png bomb 2^31":        {"bomb.png", "image/png", toolstest.BombPNG(1<<31-1, 1<<31-1)},
		"jpeg 65535 square":    {"big.jpg", "image/jpeg", huntJPEGSize(j, 65535, 65535)},
		"jpeg zero size":       {"zero.jpg", "image/jpeg", huntJPEGSize(j, 0, 0)},
		"jpeg forged exif":     {"exif.jpg", "image/jpeg", huntExifJPEG()},
		"png forged exif":      {"exif.png", "image/png", huntPNGExif()},
		"webp 16383 square":    {"big.webp", "image/webp", huntWebP()},
		"tiff 1e6 square":      {"big.tiff", "image/tiff", huntTIFF(1000000, 1000000)},
		"tiff 0 x 0":           {"zero.tiff", "image/tiff", huntTIFF(0, 0)},
		"gif 65535 square":     {"big.gif", "image/gif", huntGIF()},
		"jpeg truncated":       {"cut.jpg", "image/jpeg", j[:len(j)/2]},
		"png truncated":        {"cut.png", "image/png", p[:len(p)/2]},
		"avif junk":            {"junk.avif", "image/avif", append([]byte("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf"), bytes.Repeat([]byte{0xff}, 64)...)},
		"png header only":      {"head.png", "image/png", p[:33]},
		"jpeg in png clothing": {"fake.png", "image/png", j},
	}
}

var huntImageTools = []struct {
	slug   string
	params map[string]string
}{
	{"rotate-image", nil},
	{"rotate-image", map[string]string{"angle": "auto"}},
	{"crop-image", map[string]string{"width": "20000", "height": "20000", "left": "20000", "top": "20000"}},
	{"crop-image", map[string]string{"width": "10", "height": "10"}},
	{"watermark-image", map[string]string{"text": strings.Repeat("W\u00e9\U0001F600%s<&>", 20), "font_size": "1000"}},
	{"image-info", nil},
}

// huntImagePicks are the runs of the default hunt, by image: indexes in
// huntImageTools, and -1 for image-watermark with the image as its stamp.
// HUNT_ALL=1 runs every tool on every image.
var huntImagePicks = map[string][]int{
	"png bomb 2^31":        {0, -1},
	"jpeg 65535 square":    {2, -1},
	"jpeg forged exif":     {1, 5},
	"png forged exif":      {1, -1},
	"webp 16383 square":    {5},
	"tiff 1e6 square":      {3},
	"gif 65535 square":     {4},
	"jpeg truncated":       {0},
	"avif junk":            {5},
	"png header only":      {-1},
	"jpeg in png clothing": {2, -1},
}

// huntImageMatrix runs the image tools on the hostile images, and
// image-watermark with each as its stamp (huntImagePicks, or all with
// HUNT_ALL=1).
func huntImageMatrix(t *testing.T) {
	all := os.Getenv("HUNT_ALL") != ""
	pdf := toolstest.TextPDF("page")
	for name, f := range huntImages() {
		picks := huntImagePicks[name]
		if all {
			picks = []int{-1}
			for i := range huntImageTools {
				picks = append(picks, i)
			}
		}
		for _, i := range picks {
			if i < 0 {
				if f.contentType == "image/png" || f.contentType == "image/jpeg" {
					t.Run(name+"/image-watermark", func(t *testing.T) {
						huntRun(t, "image-watermark", []huntFile{huntPDFFile(pdf), f}, nil)
					})
				}
				continue
			}
			tl := huntImageTools[i]
			t.Run(fmt.Sprintf("%s/%s-%d", name, tl.slug, i), func(t *testing.T) {
				huntRun(t, tl.slug, []huntFile{f}, tl.params)
			})
		}
	}
}

// huntManyPages is a PDF of n pages sharing one content stream.
func huntManyPages(n int) []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", huntStream("", huntText)}
	kids := make([]string, n)
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", 4+i)
		objs = append(objs, huntPage("/Contents 3 0 R"))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	return toolstest.PDF(objs...)
}

// huntBookmarks is a bookmarks list of about size bytes, nested depth
// levels under each top entry, the deepest on page leaf.
func huntBookmarks(size, depth, leaf int) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < size-400; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		for d := range depth {
			fmt.Fprintf(&b, `{"title":"\u00e9\\\u0028)%d","page":%d,"children":[`, d, 1+i*7919%3)
		}
		fmt.Fprintf(&b, `{"title":"leaf","page":%d}`, leaf)
		b.WriteString(strings.Repeat("]}", depth))
	}
	b.WriteString("]")
	return b.String()
}

// huntParamBounds runs the tools with params at their bounds, some on
// a document of the page limit.
func huntParamBounds(t *testing.T) {
	many := huntPDFFile(huntManyPages(docmill.DefaultLimits().PDFPages))
	// nup-pdf and booklet-pdf took over 30 s on the page limit on a loaded
	// machine (2 cores, load 24): 2000 pages keep the run within a minute.
	some := huntPDFFile(huntManyPages(2000))
	small := huntPDFFile(toolstest.TextPDF("one", "two", "three"))
	form := huntPDFFile(toolstest.FormPDF("Hunt"))
	var fields strings.Builder
	fields.WriteString("{")
	for i := range 999 { // and Name: the 1000 fields allowed
		fmt.Fprintf(&fields, `"f%d \u0000)\\(":"x%d",`, i, i)
	}
	fields.WriteString(`"Name":"` + strings.Repeat(`\u00e9()\\`, 300) + `"}`)
	weird := []rune(strings.Repeat("(\\) \u00e9 \u4e2d <> %% \ufffd", 200))
	cases := []struct {
		name  string
		slug  string
		files []huntFile
		raw   map[string]string
	}{
		{"nup 16 on 2000 pages", "nup-pdf", []huntFile{some}, map[string]string{"per_sheet": "16", "border": "true"}},
		{"booklet 4 on 2000 pages", "booklet-pdf", []huntFile{some}, map[string]string{"per_sheet": "4"}},
		{"blank 1000 after max", "insert-pages", []huntFile{many}, map[string]string{"blank": "1000", "after": "10000"}},
		{"insert max into max", "insert-pages", []huntFile{many, many}, nil},
		{"resize 2000 pages", "resize-pdf", []huntFile{some}, map[string]string{"page_size": "5000x5000"}},
		{"image-watermark 2000 pages", "image-watermark", []huntFile{some, {"m.png", "image/png", huntPNG(4, 4)}}, map[string]string{"scale": "1", "rotation": "-180"}},
		{"crop NaN", "crop-pdf", []huntFile{small}, map[string]string{"margins": "NaN"}},
		{"crop Inf", "crop-pdf", []huntFile{small}, map[string]string{"margins": "Inf,-Inf,+Inf,1e400"}},
		{"crop hex", "crop-pdf", []huntFile{small}, map[string]string{"margins": "0x1p3"}},
		{"crop box NaN", "crop-pdf", []huntFile{small}, map[string]string{"box": "NaN,NaN,NaN,NaN"}},
		{"crop box huge", "crop-pdf", []huntFile{small}, map[string]string{"box": "0,0,1e308,1e308"}},
		{"crop box outside page", "crop-pdf", []huntFile{small}, map[string]string{"box": "5000,5000,5001,5001"}},
		{"crop margins eat page", "crop-pdf", []huntFile{small}, map[string]string{"margins": "1000"}},
		{"crop auto padding max", "crop-pdf", []huntFile{small}, map[string]string{"auto": "true", "padding": "100"}},
		{"bookmarks 64 KB depth 8", "edit-bookmarks", []huntFile{small}, map[string]string{"bookmarks": huntBookmarks(65000, 7, 3)}},
		{"bookmarks depth 9", "edit-bookmarks", []huntFile{small}, map[string]string{"bookmarks": huntBookmarks(2000, 8, 3)}},
		{"bookmarks json depth 20000", "edit-bookmarks", []huntFile{small}, map[string]string{"bookmarks": huntNested(`[`, `]`, 20000)}},
		{"bookmarks on max pages", "edit-bookmarks", []huntFile{many}, map[string]string{"bookmarks": huntBookmarks(30000, 3, 99999999)}},
		{"fill 1000 fields", "fill-pdf-form", []huntFile{form}, map[string]string{"values": fields.String()}},
		{"fill 1000 fields flatten", "fill-pdf-form", []huntFile{form}, map[string]string{"values": fields.String(), "flatten": "true"}},
		{"fill json depth", "fill-pdf-form", []huntFile{form}, map[string]string{"values": `{"Name":` + huntNested("[", "]", 20000) + `}`}},
		{"metadata weird 2000", "edit-metadata", []huntFile{small}, map[string]string{"title": string(weird[:2000]), "author": string(weird[:1999]), "subject": string(weird[1:2000]), "keywords": string(weird[:1500]), "creator": string(weird[:2000]), "producer": string(weird[:2000]), "language": "x-" + strings.Repeat("a", 33)}},
		{"attachments 50", "add-attachments", append([]huntFile{small}, func() []huntFile {
			var fs []huntFile
			for i := range 50 {
				fs = append(fs, huntFile{fmt.Sprintf("../\u202e%d/..\\evil:%d.pdf", i, i), "application/octet-stream", toolstest.Noise(1000)})
			}
			return fs
		}()...), map[string]string{"description": string(weird[:1000])}},
		{"remove-blank max pages", "remove-blank-pages", []huntFile{many}, map[string]string{"threshold": "10"}},
		{"pdf-info 2000 pages", "pdf-info", []huntFile{some}, nil},
		{"svg max pages", "pdf-to-svg", []huntFile{many}, nil},
		{"watermark-image huge text", "watermark-image", []huntFile{{"p.png", "image/png", huntPNG(2000, 2000)}}, map[string]string{"text": strings.Repeat("WWWW \u4e2d\U0001F600 ", 20), "font_size": "1000"}},
		{"crop-image at bounds", "crop-image", []huntFile{{"p.png", "image/png", huntPNG(300, 200)}}, map[string]string{"width": "20000", "height": "20000", "left": "299", "top": "199"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			huntRun(t, c.slug, c.files, c.raw)
		})
	}
}
