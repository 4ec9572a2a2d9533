package main

import (
	"archive/zip"
	"bytes"
	"compress/zlib"
	"fmt"
	"github.com/docmill/docmill/tools/toolstest"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

// attackInput is one hostile upload of the attack test: a tool, its file
// and params, each made here so the test needs nothing beside the repo.
type attackInput struct {
	name   string
	tool   string
	file   string
	body   []byte
	params map[string]string
}

// attackInputs are the worst inputs of issue 29 a Free account can send:
// Ghostscript kept busy by a tiny page, deep and wide Markdown, a zipped
// page asking for its largest file many times, and a long OCR. They are
// made once per test binary (under a second of CPU each time otherwise)
// and only read afterwards.
func attackInputs(t testing.TB) []attackInput {
	t.Helper()
	attackInputsMade.Lock()
	defer attackInputsMade.Unlock()
	if attackInputsMade.inputs == nil {
		attackInputsMade.inputs = makeAttackInputs(t)
	}
	return attackInputsMade.inputs
}

// attackInputsMade holds the attack's inputs once made.
var attackInputsMade struct {
	sync.Mutex
	inputs []attackInput
}

// makeAttackInputs makes attackInputs' inputs.
func makeAttackInputs(t testing.TB) []attackInput {
	t.Helper()
	return []attackInput{
		{name: "gs-busy", tool: "compress-pdf", file: "paths.pdf", body: slowPathsPDF(t, 2, 40<<20)},
		{name: "markdown-deep", tool: "markdown-to-pdf", file: "deep.md", body: deepMarkdown(2 << 20)},
		{name: "zip-many", tool: "html-to-pdf", file: "site.zip", body: greedySite(t, 20<<20, 50)},
		{name: "markdown-wide", tool: "markdown-to-pdf", file: "wide.md", body: wideMarkdown(1000, 4<<20)},
		{name: "ocr-noise", tool: "ocr-pdf", file: "noise.png", body: noisePNG(t, 1600), params: map[string]string{"lang": "eng+rus"}},
	}
}

// slowPathsPDF is a one-page PDF of streams content streams, each of
// about decoded bytes of stroked lines: a few hundred KB that keep
// Ghostscript drawing for minutes, within every bomb limit.
func slowPathsPDF(t testing.TB, streams int, decoded int) []byte {
	t.Helper()
	line := []byte("0 0 m 600 700 l S\n")
	var raw bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&raw, zlib.BestCompression)
	for n := 0; n < decoded; n += len(line) {
		if _, err := zw.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	var objs []string
	var refs []string
	for i := range streams {
		refs = append(refs, fmt.Sprintf("%d 0 R", 4+i))
	}
	objs = append(objs, "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ["+strings.Join(refs, " ")+"] >>")
	for range streams {
		objs = append(objs, fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", raw.Len(), raw.Bytes()))
	}
	return toolstest.PDF(objs...)
}

// deepMarkdown is size bytes of block quotes nested as deep as a line
// allows, line after line.
func deepMarkdown(size int) []byte {
	line := strings.Repeat(">", 4000) + " deep\n"
	return []byte(strings.Repeat(line, size/len(line)+1))
}

// wideMarkdown is a table of cols columns, rows added until size bytes.
func wideMarkdown(cols, size int) []byte {
	var b strings.Builder
	b.WriteString("|" + strings.Repeat(" h |", cols) + "\n|" + strings.Repeat("---|", cols) + "\n")
	row := "|" + strings.Repeat(" x |", cols) + "\n"
	for b.Len() < size {
		b.WriteString(row)
	}
	return []byte(b.String())
}

// greedySite is a zipped page whose index asks for its one large file
// (size bytes, incompressible) times times, each under its own query.
func greedySite(t testing.TB, size, times int) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	var page strings.Builder
	page.WriteString("<!doctype html><title>greedy</title><p>greedy page</p>")
	for i := range times {
		fmt.Fprintf(&page, "<img src=\"big.png?%d\"><script src=\"big.png?s%d\"></script>", i, i)
	}
	w, err := zw.Create("index.html")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(page.String()))
	w, err = zw.CreateHeader(&zip.FileHeader{Name: "big.png", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	chunk := make([]byte, 1<<20)
	for n := 0; n < size; n += len(chunk) {
		for i := 0; i < len(chunk); i += 8 {
			v := rng.Uint64()
			for k := 0; k < 8; k++ {
				chunk[i+k] = byte(v >> (8 * k))
			}
		}
		w.Write(chunk)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// noisePNG is a side x side picture of random specks, which Tesseract
// searches for text at length.
func noisePNG(t testing.TB, side int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, side, side))
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range img.Pix {
		img.Pix[i] = 255
		if rng.IntN(9) == 0 {
			img.Pix[i] = uint8(rng.IntN(100))
		}
	}
	img.Set(0, 0, color.Gray{})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
