package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

func TestCompressPDF(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	for _, name := range []string{"base64image.pdf", "GeoTopo-komprimiert.pdf", "cmyk-image.pdf"} {
		in := toolstest.ReadCorpus(t, "pdf", name)
		j, data := runTool(t, c, "compress-pdf", []client.File{file(t, "pdf", name)}, map[string]string{"preset": "recommended"})
		saved, _ := j.Meta["saved_bytes"].(float64)
		if len(data) >= len(in) || saved != float64(len(in)-len(data)) || j.Result.Filename != strings.TrimSuffix(name, ".pdf")+"-compressed.pdf" {
			t.Fatalf("%s: %d -> %d bytes, meta %v", name, len(in), len(data), j.Meta)
		}
		if firstWords(pageText(t, data, 1)) != firstWords(corpusPageText(t, name, 1)) {
			t.Fatalf("%s: text changed", name)
		}
	}
	// Never larger: cmyk-image.pdf at preset low comes back unchanged.
	in := toolstest.ReadCorpus(t, "pdf", "cmyk-image.pdf")
	j, data := runTool(t, c, "compress-pdf", []client.File{file(t, "pdf", "cmyk-image.pdf")}, map[string]string{"preset": "low"})
	if !bytes.Equal(in, data) || j.Meta["saved_bytes"].(float64) != 0 {
		t.Fatalf("low: %d -> %d, meta %v", len(in), len(data), j.Meta)
	}
	_, _, err := c.Process(context.Background(), "compress-pdf", []client.File{file(t, "pdf", "libreoffice-writer-password.pdf")}, client.ProcessOptions{})
	apiErrorDetail(t, err, 400, "invalid_document", "password")
}

func TestRepairAndPDFA(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	whole := toolstest.ReadCorpus(t, "pdf", "google-doc-document.pdf")
	cut := whole[:len(whole)*7/10]
	_, data := runTool(t, c, "repair-pdf", []client.File{{Name: "cut.pdf", Body: bytes.NewReader(cut)}}, nil)
	if out, err := exec.Command("qpdf", "--check", toolstest.WriteTemp(t, "r.pdf", data)).CombinedOutput(); err != nil && exitCode(err) != 3 {
		t.Fatalf("qpdf --check of the repaired file: %v\n%s", err, out)
	}
	_, _, err := c.Process(context.Background(), "repair-pdf", []client.File{{Name: "x.pdf", Body: strings.NewReader("%PDF-1.4\nnot a pdf at all")}}, client.ProcessOptions{})
	apiError(t, err, 400, "invalid_document")

	_, data = runTool(t, c, "pdf-to-pdfa", []client.File{file(t, "pdf", fourPages)}, nil)
	qdf := filepath.Join(t.TempDir(), "q.pdf")
	if out, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", toolstest.WriteTemp(t, "a.pdf", data), qdf).CombinedOutput(); err != nil && exitCode(err) != 3 {
		t.Fatalf("qpdf --qdf: %v %s", err, out)
	}
	b, _ := os.ReadFile(qdf)
	if !bytes.Contains(b, []byte("pdfaid:part")) || !bytes.Contains(b, []byte("OutputIntent")) {
		t.Fatal("no PDF/A identification or output intent")
	}
}

// TestOCRIsLong: ocr-pdf answers 202 at once; the poll finds a PDF whose
// text layer holds the words of a scanned page.
func TestOCRIsLong(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Its server is its own, and no time is bounded.
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	dir := t.TempDir()
	if out, err := exec.Command("pdftoppm", "-f", "1", "-l", "1", "-r", "150", "-png", "-singlefile", corpus(t, "pdf", fourPages), filepath.Join(dir, "scan")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v %s", err, out)
	}
	f, err := os.Open(filepath.Join(dir, "scan.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	j, resp, err := c.Process(context.Background(), "ocr-pdf", []client.File{{Name: "scan.png", Body: f}}, client.ProcessOptions{Params: map[string]string{"lang": "eng"}})
	if err != nil || resp.StatusCode != http.StatusAccepted || resp.Header.Get("Retry-After") != "5" {
		t.Fatalf("want 202 at once: %v %v", resp, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	done, err := c.Wait(ctx, j.JobID, 500*time.Millisecond)
	if err != nil || done.Status != "done" {
		t.Fatalf("ocr: %+v %v", done, err)
	}
	if text := pageText(t, download(t, done.Result.URL), 1); !strings.Contains(text, "Hello") || !strings.Contains(text, "printed") {
		t.Fatalf("recognised text %q", text)
	}
}

func TestPDFToImagesAndText(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	j, data := runTool(t, c, "pdf-to-jpg", []client.File{file(t, "pdf", fourPages)}, map[string]string{"dpi": "72", "pages": "1-2"})
	entries := toolstest.Unzip(t, data)
	if j.Result.Filename != "pdflatex-4-pages-images.zip" || len(entries) != 2 {
		t.Fatalf("%s: %d entries", j.Result.Filename, len(entries))
	}
	j, data = runTool(t, c, "pdf-to-png", []client.File{file(t, "pdf", fourPages)}, map[string]string{"pages": "3"})
	if j.Result.ContentType != "image/png" || !bytes.HasPrefix(data, []byte("\x89PNG")) {
		t.Fatalf("single page: %+v", j.Result)
	}
	_, data = runTool(t, c, "pdf-to-text", []client.File{file(t, "pdf", fourPages)}, nil)
	want, _ := exec.Command("pdftotext", "-enc", "UTF-8", corpus(t, "pdf", fourPages), "-").Output()
	if !bytes.Equal(data, want) {
		t.Fatal("text differs from pdftotext's")
	}
}
