package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestOfficeE2E drives the tools of LibreOffice over HTTP through one
// real server, a subtest per tool: one warm LibreOffice serves them all.
func TestOfficeE2E(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Its server is its own; its calls wait up to 60 s for their jobs
	// (runTool), and no time is bounded.
	t.Parallel()
	s := startServer(t, "", "--office-workers", "1")
	c := s.client(s.DevKey)
	t.Run("to-pdf", func(t *testing.T) { checkOfficeToPDF(t, c) })
	t.Run("convert-document", func(t *testing.T) { checkConvertDocument(t, c) })
	t.Run("document-thumbnail", func(t *testing.T) { checkDocumentThumbnail(t, c) })
}

// checkOfficeToPDF converts corpus documents of each family to PDF.
func checkOfficeToPDF(t *testing.T, c *client.Client) {
	cases := []struct {
		tool, file string
		pages      int
		text       string
	}{
		{"word-to-pdf", "test.docx", 1, "python-docx was here!"},
		{"word-to-pdf", "libreoffice-writer.odt", 1, "Lorem ipsum dolor sit amet"},
		{"excel-to-pdf", "embedded.xlsx", 1, "1"},
		{"powerpoint-to-pdf", "ph-populated-placeholders.pptx", 9, "Sales"},
	}
	for _, tc := range cases {
		t.Run(tc.tool+"/"+tc.file, func(t *testing.T) {
			j, data := runTool(t, c, tc.tool, []client.File{file(t, "office", tc.file)}, nil)
			n := len(pdfPages(t, data))
			var text strings.Builder
			for p := 1; p <= n; p++ {
				text.WriteString(pageText(t, data, p))
			}
			if n != tc.pages || !strings.Contains(text.String(), tc.text) {
				t.Fatalf("%d pages, text %q", n, text.String())
			}
			if !strings.HasSuffix(j.Result.Filename, ".pdf") {
				t.Fatalf("filename %q", j.Result.Filename)
			}
		})
	}
	// A spreadsheet sent to word-to-pdf is refused, naming the right tool.
	_, _, err := c.Process(context.Background(), "word-to-pdf", []client.File{file(t, "office", "embedded.xlsx")}, client.ProcessOptions{})
	apiErrorDetail(t, err, 400, "unsupported_file_type", "excel-to-pdf")
}

func TestImageTools(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	in := toolstest.ReadCorpus(t, "image", "phone-photo.jpg")
	j, data := runTool(t, c, "compress-image", []client.File{file(t, "image", "phone-photo.jpg")}, nil)
	if len(data) >= len(in) || j.Result.ContentType != "image/jpeg" {
		t.Fatalf("compress: %d -> %d %s", len(in), len(data), j.Result.ContentType)
	}
	_, data = runTool(t, c, "resize-image", []client.File{file(t, "image", "phone-photo.jpg")}, map[string]string{"width": "640"})
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || format != "jpeg" || cfg.Width != 640 {
		t.Fatalf("resize: %v %s %d", err, format, cfg.Width)
	}
	j, data = runTool(t, c, "convert-image", []client.File{file(t, "image", "map.png")}, map[string]string{"format": "jpg"})
	if _, format, err := image.DecodeConfig(bytes.NewReader(data)); err != nil || format != "jpeg" || j.Result.Filename != "map.jpg" {
		t.Fatalf("convert: %v %s %s", err, format, j.Result.Filename)
	}
	_, _, err = c.Process(context.Background(), "resize-image", []client.File{file(t, "image", "corrupted.jpg")}, client.ProcessOptions{Params: map[string]string{"width": "100"}})
	apiError(t, err, 400, "invalid_document")
}

// TestHTMLAndMarkdownToPDF: pages render with their text, and a page
// cannot reach anything outside its own files: the server it tries to
// load from sees no request.
func TestHTMLAndMarkdownToPDF(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("slow")
	}
	var hits atomic.Int32
	outside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer outside.Close()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	page := `<!doctype html><html><body><h1>Quarterly report</h1>
<img src="` + outside.URL + `/x.png"><script src="` + outside.URL + `/x.js"></script>
<iframe src="file:///etc/passwd"></iframe></body></html>`
	j, data := runTool(t, c, "html-to-pdf", []client.File{{Name: "report.html", Body: strings.NewReader(page)}},
		map[string]string{"page_size": "letter", "landscape": "true"})
	if !strings.Contains(pageText(t, data, 1), "Quarterly report") || strings.Contains(pageText(t, data, 1), "root:") || j.Result.Filename != "report.pdf" {
		t.Fatalf("html: %q", pageText(t, data, 1))
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("the page reached an outside server %d times", n)
	}
	_, data = runTool(t, c, "markdown-to-pdf", []client.File{{Name: "notes.md", Body: strings.NewReader("# Заметки\n\n| a | b |\n|---|---|\n| один | два |\n")}}, nil)
	if text := pageText(t, data, 1); !strings.Contains(text, "Заметки") || !strings.Contains(text, "один") {
		t.Fatalf("markdown: %q", text)
	}
	checkArchivalPDF(t, c)
}

// checkArchivalPDF: html-to-pdf's pdfa goes through pdf-to-pdfa's
// conversion as the server wires it (the PDF/A claim in the XMP, the text
// and the outline kept), and pdfua through the PDF helper's step (the
// PDF/UA claim, the page's language, the title shown, Marked content).
func checkArchivalPDF(t *testing.T, c *client.Client) {
	page := `<!doctype html><html lang="de"><head><title>Jahresbericht</title></head><body><h1>Quarterly report</h1><p>Text.</p><h2>Details</h2></body></html>`
	file := func() []client.File { return []client.File{{Name: "report.html", Body: strings.NewReader(page)}} }
	_, data := runTool(t, c, "html-to-pdf", file(), map[string]string{"pdfa": "2b", "outline": "true"})
	meta := pdfInfoMeta(t, data)
	if !regexp.MustCompile(`pdfaid:part(=['"]|>)2`).MatchString(meta) {
		t.Errorf("pdfa=2b: the XMP claims no PDF/A-2: %.400q", meta)
	}
	if text := pageText(t, data, 1); !strings.Contains(text, "Quarterly report") {
		t.Errorf("pdfa=2b: text %q", text)
	}
	if titles := outlineTitles(t, data); strings.Join(titles, "|") != "Quarterly report|Details" {
		t.Errorf("pdfa=2b with outline: bookmarks %q", titles)
	}
	_, data = runTool(t, c, "html-to-pdf", file(), map[string]string{"pdfua": "true"})
	if meta := pdfInfoMeta(t, data); !regexp.MustCompile(`pdfuaid:part(=['"]|>)1`).MatchString(meta) || !strings.Contains(meta, "Jahresbericht") {
		t.Errorf("pdfua: the XMP lacks the PDF/UA-1 claim or the title: %.600q", meta)
	}
	root := toolstest.QPDFObjects(t, toolstest.WriteTemp(t, "catalog.pdf", data)).Catalog()
	if root["/Lang"] != "u:de" || root["/StructTreeRoot"] == nil || !strings.Contains(fmt.Sprint(root["/MarkInfo"]), "/Marked:true") ||
		!strings.Contains(fmt.Sprint(root["/ViewerPreferences"]), "/DisplayDocTitle:true") {
		t.Errorf("pdfua: catalog %v", root)
	}
}

// pdfInfoMeta returns the PDF's XMP packet, as pdfinfo -meta prints it.
func pdfInfoMeta(t *testing.T, data []byte) string {
	t.Helper()
	out, err := exec.Command("pdfinfo", "-meta", toolstest.WriteTemp(t, "meta.pdf", data)).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo -meta: %v\n%s", err, out)
	}
	return string(out)
}

// qpdfJSON returns qpdf's JSON (version 2) of the PDF, for key.
func qpdfJSON(t *testing.T, data []byte, key string, v any) {
	t.Helper()
	out, err := exec.Command("qpdf", "--json=2", "--json-key="+key, toolstest.WriteTemp(t, "json.pdf", data)).Output()
	if err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
}

// outlineTitles returns the titles of the PDF's bookmarks, depth first.
func outlineTitles(t *testing.T, data []byte) []string {
	t.Helper()
	type item struct {
		Title string `json:"title"`
		Kids  []item `json:"kids"`
	}
	var doc struct{ Outlines []item }
	qpdfJSON(t, data, "outlines", &doc)
	var titles []string
	var walk func([]item)
	walk = func(items []item) {
		for _, it := range items {
			titles = append(titles, it.Title)
			walk(it.Kids)
		}
	}
	walk(doc.Outlines)
	return titles
}
