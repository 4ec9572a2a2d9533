package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image"
	"image/color"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
	_ "golang.org/x/image/webp"
)

// chromeWordsPDF is a two-page PDF of known words, for the OCR tests.
func chromeWordsPDF(t *testing.T) string {
	return toolstest.WriteTemp(t, "words.pdf", toolstest.TextPDF("Quartz harbour lantern", "Violet meadow compass"))
}

// chromePageImage renders page 1 of pdf to a PNG with pdftoppm, so the
// image the OCR reads is made by another program than the one checked.
func chromePageImage(t *testing.T, pdf string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "words")
	if b, err := exec.Command("pdftoppm", "-png", "-r", "200", "-f", "1", "-l", "1", "-singlefile", pdf, root).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, b)
	}
	return root + ".png"
}

// chromeUpload opens path for upload.
func chromeUpload(t *testing.T, path string) client.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return client.File{Name: filepath.Base(path), Body: f}
}

// chromeXMLWords parses data as XML (strictly, as an XML parser other
// than tesseract's writer reads it) and returns the text of every element
// accepted by isWord, or the attribute attr of it when attr is not "".
func chromeXMLWords(t *testing.T, data []byte, isWord func(xml.StartElement) bool, attr string) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(data))
	var words []string
	depth := 0 // > 0 inside a word element, collecting its text
	var cur strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return words
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%.500s", err, data)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if depth > 0 {
				depth++
				continue
			}
			if !isWord(tok) {
				continue
			}
			if attr != "" {
				for _, a := range tok.Attr {
					if a.Name.Local == attr {
						words = append(words, a.Value)
					}
				}
				continue
			}
			depth = 1
			cur.Reset()
		case xml.CharData:
			if depth > 0 {
				cur.Write(tok)
			}
		case xml.EndElement:
			if depth > 0 {
				if depth--; depth == 0 {
					words = append(words, strings.TrimSpace(cur.String()))
				}
			}
		}
	}
}

// chromeClass reports whether e has class c.
func chromeClass(e xml.StartElement, c string) bool {
	for _, a := range e.Attr {
		if a.Name.Local == "class" && a.Value == c {
			return true
		}
	}
	return false
}

// chromeWantWords fails unless every one of want is among got (case
// folded, punctuation around a word ignored).
func chromeWantWords(t *testing.T, got []string, want ...string) {
	t.Helper()
	have := map[string]bool{}
	for _, g := range got {
		for _, w := range strings.Fields(g) {
			have[strings.ToLower(strings.Trim(w, ".,;:!?\"'"))] = true
		}
	}
	for _, w := range want {
		if !have[strings.ToLower(w)] {
			t.Errorf("word %q not recognized; got %q", w, got)
		}
	}
}

func TestImageToTextE2E(t *testing.T) {
	// Its server is its own; its sync calls wait up to 60 s, and no
	// time is bounded.
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	pdf := chromeWordsPDF(t)
	png := chromePageImage(t, pdf)

	t.Run("txt of an image", func(t *testing.T) {
		j, data := runTool(t, c, "image-to-text", []client.File{chromeUpload(t, png)}, map[string]string{"lang": "eng"})
		if j.Result.Filename != "words.txt" || !strings.HasPrefix(j.Result.ContentType, "text/plain") {
			t.Fatalf("result %+v", j.Result)
		}
		chromeWantWords(t, strings.Fields(string(data)), "Quartz", "harbour", "lantern")
	})
	t.Run("hocr of a PDF", func(t *testing.T) {
		j, _ := runTool(t, c, "image-to-text", []client.File{chromeUpload(t, pdf)}, map[string]string{"format": "hocr", "lang": "eng"})
		if j.Result.Filename != "words.hocr" || j.Result.ContentType != "application/xhtml+xml" || j.Meta["pages"] != float64(2) {
			t.Fatalf("result %+v, meta %v", j.Result, j.Meta)
		}
		// The download is an attachment the browser must not sniff, in a
		// type that is not text/html.
		resp, err := http.Get(j.Result.URL)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment") ||
			resp.Header.Get("X-Content-Type-Options") != "nosniff" || strings.Contains(resp.Header.Get("Content-Type"), "html") {
			t.Fatalf("download headers %v", resp.Header)
		}
		words := chromeXMLWords(t, data, func(e xml.StartElement) bool { return e.Name.Local == "span" && chromeClass(e, "ocrx_word") }, "")
		chromeWantWords(t, words, "Quartz", "harbour", "lantern", "Violet", "meadow", "compass")
		pages := chromeXMLWords(t, data, func(e xml.StartElement) bool { return e.Name.Local == "div" && chromeClass(e, "ocr_page") }, "id")
		if len(pages) != 2 {
			t.Fatalf("%d ocr_page divs, want 2: %q", len(pages), pages)
		}
	})
	t.Run("alto of an image", func(t *testing.T) {
		j, data := runTool(t, c, "image-to-text", []client.File{chromeUpload(t, png)}, map[string]string{"format": "alto"})
		if j.Result.Filename != "words.xml" || j.Result.ContentType != "application/xml" {
			t.Fatalf("result %+v", j.Result)
		}
		words := chromeXMLWords(t, data, func(e xml.StartElement) bool { return e.Name.Local == "String" }, "CONTENT")
		chromeWantWords(t, words, "Quartz", "harbour", "lantern")
	})
	t.Run("damaged image", func(t *testing.T) {
		b, err := os.ReadFile(png)
		if err != nil {
			t.Fatal(err)
		}
		bad := toolstest.WriteTemp(t, "cut.png", b[:100])
		code, msg := chromeRefusal(t, c, "image-to-text", []client.File{chromeUpload(t, bad)}, nil)
		if code != "invalid_document" || strings.Contains(msg, "/") {
			t.Fatalf("%s %q, want invalid_document without a path", code, msg)
		}
	})
}

// chromeRefusal runs tool and returns the code and message of its
// refusal: a 4xx answer or a failed job; a job that succeeds fails t.
func chromeRefusal(t *testing.T, c *client.Client, tool string, files []client.File, params map[string]string) (string, string) {
	t.Helper()
	j, _, err := c.Process(t.Context(), tool, files, client.ProcessOptions{Params: params, Prefer: "wait=60"})
	if err == nil && !j.Finished() {
		j, err = c.Wait(t.Context(), j.JobID, time.Second)
	}
	var p *client.Problem
	switch {
	case errors.As(err, &p):
		if p.StatusCode != 400 {
			t.Fatalf("%s: status %d %s", tool, p.StatusCode, p.Code)
		}
		return string(p.Code), p.Detail
	case err != nil:
		t.Fatalf("%s: %v", tool, err)
	case j.Status == "failed" && j.Error != nil:
		return string(j.Error.Code), j.Error.Message
	}
	t.Fatalf("%s: job %s %+v, want a refusal", tool, j.Status, j.Result)
	return "", ""
}

// chromeDecode decodes an image with Go's own decoders (PNG, JPEG, WebP),
// not Chromium's.
func chromeDecode(t *testing.T, data []byte) (image.Image, string) {
	t.Helper()
	img, format, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return img, format
}

// chromeNear reports whether the pixel of img at x, y is within 40 of
// want in each channel (JPEG and WebP are lossy).
func chromeNear(img image.Image, x, y int, want color.RGBA) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	d := func(a uint32, b uint8) bool { return max(int(a>>8), int(b))-min(int(a>>8), int(b)) <= 40 }
	return d(r, want.R) && d(g, want.G) && d(b, want.B)
}

// chromeShotPage is a white page 3000 px tall with a red square at
// (100, 200) and a blue one at (300, 2500), both 50 px, styled from a
// stylesheet of the upload; it also asks for an image of a server on
// 127.0.0.1 (hits counts its requests), which must be blocked.
func chromeShotPage(t *testing.T, hits *atomic.Int64) []byte {
	t.Helper()
	outside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(outside.Close)
	return zipOf(t, map[string]string{
		"index.html": `<!doctype html><html><head><link rel="stylesheet" href="style.css"></head><body>` +
			`<div id="red"></div><div id="blue"></div><img src="` + outside.URL + `/pixel.png"></body></html>`,
		"style.css": `html,body{margin:0;background:#fff;height:3000px}` +
			`#red{position:absolute;left:100px;top:200px;width:50px;height:50px;background:#f00}` +
			`#blue{position:absolute;left:300px;top:2500px;width:50px;height:50px;background:#00f}`,
	})
}

func TestHTMLToImageE2E(t *testing.T) {
	// Its server is its own; its sync calls wait up to 60 s, and no
	// time is bounded.
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	var hits atomic.Int64
	site := toolstest.WriteTemp(t, "shot.zip", chromeShotPage(t, &hits))
	red, blue, white := color.RGBA{255, 0, 0, 255}, color.RGBA{0, 0, 255, 255}, color.RGBA{255, 255, 255, 255}
	cases := []struct {
		params        map[string]string
		format        string
		width, height int
		ext           string
	}{
		{map[string]string{}, "png", 1280, 800, ".png"},
		{map[string]string{"format": "jpeg", "width": "640", "height": "400", "quality": "90"}, "jpeg", 640, 400, ".jpg"},
		{map[string]string{"format": "webp", "width": "800", "full_page": "true"}, "webp", 800, 3000, ".webp"},
	}
	for _, tc := range cases {
		t.Run(tc.format, func(t *testing.T) {
			j, data := runTool(t, c, "html-to-image", []client.File{chromeUpload(t, site)}, tc.params)
			if j.Result.Filename != "shot"+tc.ext || j.Meta["blocked_requests"] == float64(0) {
				t.Fatalf("result %+v, meta %v", j.Result, j.Meta)
			}
			img, format := chromeDecode(t, data)
			if b := img.Bounds(); format != tc.format || b.Dx() != tc.width || b.Dy() != tc.height {
				t.Fatalf("%s %v, want %s %dx%d", format, b, tc.format, tc.width, tc.height)
			}
			if !chromeNear(img, 125, 225, red) || !chromeNear(img, 95, 225, white) || !chromeNear(img, 155, 225, white) {
				t.Errorf("no red square at (100, 200): %v, around %v %v", img.At(125, 225), img.At(95, 225), img.At(155, 225))
			}
			if tc.height > 2500 && !chromeNear(img, 325, 2525, blue) {
				t.Errorf("no blue square at (300, 2500) of the full page: %v", img.At(325, 2525))
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the page reached a server outside its upload %d times", n)
	}
}
