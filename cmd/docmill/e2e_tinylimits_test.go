package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// bigFormPDF is a valid one-page PDF with a form field (Name), over 1 MB:
// its page's resources hold an image of noise it does not draw, stored
// unfiltered, which the stream check does not count, qpdf cannot shrink
// and every engine reads.
func bigFormPDF() []byte {
	const side = 1040
	noise := make([]byte, side*side)
	_, _ = rand.NewChaCha8([32]byte{}).Read(noise) // never fails
	content := "BT /F1 12 Tf 72 760 Td (Over one megabyte) Tj ET"
	return toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] /DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 3 0 R >> >> >> >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 7 0 R >> >> /Contents 6 0 R /Annots [5 0 R] >>",
		"<< /Type /Annot /Subtype /Widget /F 4 /P 4 0 R /FT /Tx /T (Name) /Rect [72 700 372 724] /DA (/Helv 12 Tf 0 g) >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Length %d >>\nstream\n%s\nendstream",
			side, side, len(noise), noise),
	)
}

// TestTinyLimitsRefuse starts a server with --max-pdf-mb 1 and sends a
// PDF just over it to every pdfcpu tool and to each tool that runs a
// pdfcpu step (fill-pdf-form's, flatten-pdf's, crop-pdf's,
// edit-bookmarks', redact-pdf's, compare-pdf's): each refuses it with a
// client error (file_too_large or invalid_document), none crashes. The
// steps once read it within the default limits whatever the flag said.
func TestTinyLimitsRefuse(t *testing.T) {
	t.Parallel()
	s := startServer(t, "", "--max-pdf-mb", "1")
	c := s.client(s.DevKey)
	pdf := bigFormPDF()
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 1<<20+1024)...)
	type call struct {
		files  [][]byte
		params map[string]string
	}
	calls := map[string]call{
		"fill-pdf-form":   {params: map[string]string{"values": `{"Name": "Jane Roe"}`}},
		"flatten-pdf":     {},
		"crop-pdf":        {params: map[string]string{"margins": "10"}},
		"edit-bookmarks":  {params: map[string]string{"bookmarks": `[{"title": "One", "page": 1}]`}},
		"redact-pdf":      {params: map[string]string{"terms": "megabyte"}},
		"compare-pdf":     {files: [][]byte{pdf, pdf}},
		"jpg-to-pdf":      {files: [][]byte{png}},
		"image-watermark": {files: [][]byte{pdf, png}},
		"insert-pages":    {files: [][]byte{pdf, pdf}},
	}
	for _, tl := range pdfops.Tools() {
		if _, ok := calls[tl.Slug]; ok {
			continue
		}
		cl := call{params: map[string]string{}}
		for _, p := range tl.Params {
			if p.Required {
				cl.params[p.Name] = p.Example
			}
		}
		for range max(tl.MinFiles, 1) {
			cl.files = append(cl.files, pdf)
		}
		calls[tl.Slug] = cl
	}
	for slug, cl := range calls {
		t.Run(slug, func(t *testing.T) {
			if cl.files == nil {
				cl.files = [][]byte{pdf}
			}
			var files []client.File
			for i, b := range cl.files {
				files = append(files, client.File{Name: fmt.Sprintf("in-%d.%s", i, map[bool]string{true: "png", false: "pdf"}[b[1] == 'P']), Body: bytes.NewReader(b)})
			}
			j, _, err := c.Process(context.Background(), slug, files, client.ProcessOptions{Params: cl.params, Prefer: "wait=60"})
			wantLimitRefusal(t, j, err)
		})
	}
}

// wantLimitRefusal fails t unless a process call was refused as a
// client error: a 4xx problem, or a job failed with file_too_large or
// invalid_document.
func wantLimitRefusal(t *testing.T, j *client.Job, err error) {
	t.Helper()
	var p *client.Problem
	switch {
	case errors.As(err, &p):
		if p.StatusCode < 400 || p.StatusCode >= 500 {
			t.Fatalf("%d %s: %s", p.StatusCode, p.Code, p.Detail)
		}
	case err != nil:
		t.Fatal(err)
	case j.Status != "failed" || j.Error == nil:
		t.Fatalf("job %s, want it refused", j.Status)
	case j.Error.Code != "file_too_large" && j.Error.Code != "invalid_document":
		t.Fatalf("job failed with %s: %s", j.Error.Code, j.Error.Message)
	}
}
