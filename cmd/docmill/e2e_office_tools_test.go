package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// checkConvertDocument saves corpus documents of each family in other
// formats, and reads each result with another program than LibreOffice:
// archive/zip and encoding/xml for OOXML, ODF and EPUB, encoding/csv for
// CSV; the result is served with its format's type.
func checkConvertDocument(t *testing.T, c *client.Client) {
	cases := []struct {
		file, format, contentType, text string
	}{
		{"test.docx", "odt", "application/vnd.oasis.opendocument.text", "python-docx was here!"},
		{"libreoffice-writer.odt", "docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "Lorem ipsum dolor sit amet"},
		{"hdr-header-footer.docx", "epub", "application/epub+zip", ""},
		{"embedded.xlsx", "ods", "application/vnd.oasis.opendocument.spreadsheet", "3"},
		{"ph-populated-placeholders.pptx", "pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation", "Body text"},
		{"dml-fill.pptx", "odp", "application/vnd.oasis.opendocument.presentation", ""},
	}
	for _, tc := range cases {
		t.Run(tc.file+"/"+tc.format, func(t *testing.T) {
			j, data := runTool(t, c, "convert-document", []client.File{file(t, "office", tc.file)}, map[string]string{"format": tc.format})
			text := toolstest.OfficeText(t, data)
			want := tc.text
			if want == "" { // the text of the original, read the same way
				want = officeFirstLine(toolstest.OfficeText(t, toolstest.ReadCorpus(t, "office", tc.file)))
			}
			if !strings.Contains(text, want) {
				t.Fatalf("result text %q lacks %q", text, want)
			}
			if j.Result.ContentType != tc.contentType || !strings.HasSuffix(j.Result.Filename, "."+tc.format) {
				t.Fatalf("result %s %s", j.Result.Filename, j.Result.ContentType)
			}
			officeServedAs(t, j.Result.URL, tc.contentType)
		})
	}
	t.Run("xlsx/csv", func(t *testing.T) {
		j, data := runTool(t, c, "convert-document", []client.File{file(t, "office", "embedded.xlsx")}, map[string]string{"format": "csv"})
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil || len(rows) != 3 || rows[0][0] != "1" || rows[2][0] != "3" {
			t.Fatalf("rows %q, %v", rows, err)
		}
		officeServedAs(t, j.Result.URL, "text/csv")
	})
	t.Run("docx/rtf", func(t *testing.T) {
		_, data := runTool(t, c, "convert-document", []client.File{file(t, "office", "test.docx")}, map[string]string{"format": "rtf"})
		if !bytes.HasPrefix(data, []byte(`{\rtf`)) || !bytes.Contains(data, []byte("python-docx was here!")) {
			t.Fatalf("not RTF with the text: %.200q", data)
		}
	})
	// A presentation cannot become a spreadsheet: 400 naming format.
	_, _, err := c.Process(context.Background(), "convert-document", []client.File{file(t, "office", "cht-chart-type.pptx")}, client.ProcessOptions{Params: map[string]string{"format": "xlsx"}})
	apiErrorDetail(t, err, 400, "invalid_parameter", "format")
}

// officeFirstLine is the first line of text with some letters in it.
func officeFirstLine(text string) string {
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(line); len(line) > 3 {
			return line
		}
	}
	return "\x00none"
}

// officeServedAs checks the Content-Type the result link is served with.
func officeServedAs(t *testing.T, url, contentType string) {
	t.Helper()
	resp, err := http.Head(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, contentType) {
		t.Fatalf("served as %q, want %q", got, contentType)
	}
}

// TestPDFToWordE2E converts text PDFs to .docx and .odt over HTTP and
// reads the results with archive/zip and encoding/xml: the words
// pdftotext reads in the original come back in order, none in text
// frames; the title is a heading (of level 2 in google-doc-document.pdf,
// whose table's row of flags is set larger); the picture is in the
// document.
func TestPDFToWordE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	whole := func(name string) string {
		out, err := exec.Command("pdftotext", "-enc", "UTF-8", corpus(t, "pdf", name), "-").Output()
		if err != nil {
			t.Fatalf("pdftotext: %v", err)
		}
		return string(out)
	}
	for _, tc := range []struct{ tool, file, heading, contentType string }{
		{"pdf-to-word", "google-doc-document.pdf", `<w:pStyle w:val="Heading[123]"/></w:pPr><w:r><w:t xml:space="preserve">Example document<`, "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
		{"pdf-to-odt", "google-doc-document.pdf", `text:outline-level="[123]">Example document<`, "application/vnd.oasis.opendocument.text"},
		{"pdf-to-word", "pdflatex-4-pages.pdf", "", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	} {
		t.Run(tc.tool+"/"+tc.file, func(t *testing.T) {
			j, data := runTool(t, c, tc.tool, []client.File{file(t, "pdf", tc.file)}, nil)
			inOrder := toolstest.WordsInOrder(whole(tc.file), toolstest.OfficeText(t, data))
			framed, flowing := toolstest.FramedText(t, data)
			if inOrder < 0.95 || framed != 0 || flowing == 0 {
				t.Fatalf("%.3f of the words in order, %d characters in frames, %d flowing", inOrder, framed, flowing)
			}
			if tc.heading != "" && !regexp.MustCompile(tc.heading).MatchString(officeMainPart(t, data)) {
				t.Fatalf("no heading %q", tc.heading)
			}
			officeServedAs(t, j.Result.URL, tc.contentType)
		})
	}
	t.Run("image", func(t *testing.T) {
		j, data := runTool(t, c, "pdf-to-odt", []client.File{file(t, "pdf", "pdflatex-image.pdf")}, nil)
		z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		pic := toolstest.ZipPart(t, z, "Pictures/image1.jpg")
		cfg, _, err := image.DecodeConfig(bytes.NewReader(pic))
		if err != nil || cfg.Width < 8 || !strings.Contains(officeMainPart(t, data), `xlink:href="Pictures/image1.jpg"`) {
			t.Fatalf("picture %v %+v; meta %v", err, cfg, j.Meta)
		}
	})
}

// officeMainPart is the part of a .docx or .odt that holds its body.
func officeMainPart(t *testing.T, data []byte) string {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := z.Open("word/document.xml"); err == nil {
		return string(toolstest.ZipPart(t, z, "word/document.xml"))
	}
	return string(toolstest.ZipPart(t, z, "content.xml"))
}

// checkDocumentThumbnail makes thumbnails of a PDF, an office document
// and an image and reads each with Go's image decoders: a PNG of the
// width asked for, of a page's proportions, not blank.
func checkDocumentThumbnail(t *testing.T, c *client.Client) {
	for _, tc := range []struct {
		dir, file  string
		width      int
		minH, maxH float64 // height over width
	}{
		{"pdf", "pdflatex-4-pages.pdf", 400, 1.2, 1.5},
		{"office", "test.docx", 300, 1.2, 1.5},
		{"office", "ph-populated-placeholders.pptx", 500, 0.5, 0.8},
		{"image", "phone-photo.jpg", 120, 0.3, 3},
	} {
		t.Run(tc.file, func(t *testing.T) {
			j, data := runTool(t, c, "document-thumbnail", []client.File{file(t, tc.dir, tc.file)}, map[string]string{"width": strconv.Itoa(tc.width)})
			img, format, err := image.Decode(bytes.NewReader(data))
			if err != nil || format != "png" {
				t.Fatalf("%s %v", format, err)
			}
			b := img.Bounds()
			if ratio := float64(b.Dy()) / float64(b.Dx()); b.Dx() != tc.width || ratio < tc.minH || ratio > tc.maxH {
				t.Fatalf("%dx%d, want width %d and height %.1f-%.1f of it", b.Dx(), b.Dy(), tc.width, tc.minH, tc.maxH)
			}
			if ink := officeInk(img); ink < 0.002 {
				t.Fatalf("blank: %.4f of the pixels differ from the page", ink)
			}
			if !strings.HasSuffix(j.Result.Filename, ".png") || j.Result.ContentType != "image/png" {
				t.Fatalf("%s %s", j.Result.Filename, j.Result.ContentType)
			}
		})
	}
	_, _, err := c.Process(context.Background(), "document-thumbnail", []client.File{file(t, "pdf", "pdflatex-4-pages.pdf")}, client.ProcessOptions{Params: map[string]string{"width": "5000"}})
	apiErrorDetail(t, err, 400, "invalid_parameter", "width")
}

// officeInk is the share of img's pixels that differ clearly from its
// top-left pixel (the page's background).
func officeInk(img image.Image) float64 {
	b := img.Bounds()
	r0, g0, b0, _ := img.At(b.Min.X, b.Min.Y).RGBA()
	differ := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if officeDiff(r, r0)+officeDiff(g, g0)+officeDiff(bl, b0) > 3*0x2000 {
				differ++
			}
		}
	}
	return float64(differ) / float64(b.Dx()*b.Dy())
}

func officeDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}
