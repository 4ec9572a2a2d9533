package main

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg"
	"os"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
)

// TestOfficeToPDF converts corpus documents of each family over HTTP; one
// warm LibreOffice serves them all.
func TestOfficeToPDF(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	s := startServer(t, "", "--office-workers", "1")
	c := s.client(s.DevKey)
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
	if e := apiError(t, err, 400, "unsupported_file_type"); !strings.Contains(e.Detail, "excel-to-pdf") {
		t.Fatalf("detail %q", e.Detail)
	}
}

func TestImageTools(t *testing.T) {
	s := startServer(t, "")
	c := s.client(s.DevKey)
	in, _ := os.ReadFile(corpus("image", "phone-photo.jpg"))
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
