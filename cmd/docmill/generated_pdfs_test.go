package main

import (
	"bytes"
	"fmt"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// The PDFs the end-to-end tests of the service generate for themselves,
// so that they run without the corpus of real-world files.

// fourPagePDF is a generated PDF, as onePagePDF is, for the tests of the
// service (access, jobs, webhooks, the CLI, outages) that need some PDF
// to send, not a real-world one: they run without the corpus.
var fourPagePDF = toolstest.TextPDF("Generated page 1", "Generated page 2", "Generated page 3", "Generated page 4")

// denseTextPDF is an A4 page of n lines of 11 pt text, as full as a
// page of a book.
func denseTextPDF(n int) []byte {
	var b strings.Builder
	b.WriteString("BT /F1 11 Tf 14 TL 56 800 Td")
	for i := range n {
		fmt.Fprintf(&b, " (Line %d of a generated page: the quick brown fox jumps over the lazy dog.) Tj T*", i+1)
	}
	b.WriteString(" ET")
	content := b.String()
	return toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
}

// longOCR holds longOCRPDF's file, made once per test binary.
var longOCR struct {
	once sync.Once
	pdf  []byte
	err  error
}

// longOCRPDF returns a generated scan of 120 pages, whose OCR takes
// minutes: the long job of the tests that list, wait on, interrupt or
// cancel one. Each page draws the same picture of a page of text
// (denseTextPDF rendered by pdftoppm), with no text of its own for OCR
// to skip.
func longOCRPDF(t testing.TB) []byte {
	t.Helper()
	longOCR.once.Do(func() { longOCR.pdf, longOCR.err = scannedPDF(120) })
	if longOCR.err != nil {
		t.Fatal(longOCR.err)
	}
	return longOCR.pdf
}

// longOCRFile is longOCRPDF as a file to upload.
func longOCRFile(t testing.TB) client.File { return pdfFile("long-scan.pdf", longOCRPDF(t)) }

// scannedPDF returns a PDF of n A4 pages that all draw one grayscale
// JPEG of denseTextPDF's page at 150 dpi.
func scannedPDF(n int) ([]byte, error) {
	dir, err := os.MkdirTemp("", "docmill-scan-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "page.pdf")
	if err := os.WriteFile(src, denseTextPDF(50), 0o600); err != nil {
		return nil, err
	}
	if out, err := exec.Command("pdftoppm", "-r", "150", "-gray", "-jpeg", "-singlefile", src, filepath.Join(dir, "page")).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("pdftoppm: %v: %s", err, out)
	}
	jpg, err := os.ReadFile(filepath.Join(dir, "page.jpg"))
	if err != nil {
		return nil, err
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(jpg))
	if err != nil {
		return nil, err
	}
	const content = "q 595 0 0 842 0 0 cm /Im0 Do Q"
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "",
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n%s\nendstream",
			cfg.Width, cfg.Height, len(jpg), jpg)}
	kids := make([]string, n)
	for i := range kids {
		page := len(objects) + 1
		kids[i] = fmt.Sprintf("%d 0 R", page)
		objects = append(objects,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 3 0 R >> >> /Contents %d 0 R >>", page+1),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	return toolstest.PDF(objects...), nil
}
