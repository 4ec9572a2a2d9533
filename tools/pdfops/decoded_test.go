package pdfops_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// zlibOf compresses data, layers times over.
func zlibOf(data []byte, layers int) []byte {
	for range layers {
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		w.Write(data)
		w.Close()
		data = b.Bytes()
	}
	return data
}

// bombPDF writes a one-page PDF whose content stream is content, with the
// given /Filter, its dictionary padded by pad bytes (to move the stream
// across the check's read chunks), and returns its path.
func bombPDF(t *testing.T, content []byte, filter string, pad int) string {
	t.Helper()
	data := toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << >> >>",
		fmt.Sprintf("<< /Length %d /Filter %s /Pad (%s) >>\nstream\n%s\nendstream", len(content), filter, strings.Repeat("x", pad), content),
	)
	p := filepath.Join(t.TempDir(), "bomb.pdf")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// bombAcrossChunk is bombPDF with its "stream" keyword split across the
// end of the stream check's first read (1 MiB and 16 bytes).
func bombAcrossChunk(t *testing.T, content []byte) string {
	t.Helper()
	b, _ := os.ReadFile(bombPDF(t, content, "/FlateDecode", 0))
	at := bytes.Index(b, []byte("stream\n"))
	p := bombPDF(t, content, "/FlateDecode", 1<<20+13-at)
	b, _ = os.ReadFile(p)
	if i := bytes.Index(b, []byte("stream\n")); i != 1<<20+13 {
		t.Fatalf("keyword at %d", i)
	}
	return p
}

// TestDecodeCaps: a stream that inflates past Limits.StreamDecodedBytes,
// or streams past JobDecodedBytes together, are refused with
// invalid_document naming a processing limit, both by the pdfcpu tools
// (on the parsed document) and by the stream check engines get (on raw
// bytes); a document within them passes both.
func TestDecodeCaps(t *testing.T) {
	page := []byte("BT /F1 12 Tf 10 10 Td (hello) Tj ET\n")
	zeros := make([]byte, 4<<20)
	cases := []struct {
		name    string
		path    string
		limits  docmill.Limits
		refused bool
	}{
		{"fine", bombPDF(t, zlibOf(page, 1), "/FlateDecode", 0), docmill.Limits{StreamDecodedBytes: 1 << 20}, false},
		{"stream over", bombPDF(t, zlibOf(zeros, 1), "/FlateDecode", 0), docmill.Limits{StreamDecodedBytes: 1 << 20}, true},
		{"job over", bombPDF(t, zlibOf(zeros, 1), "/FlateDecode", 0), docmill.Limits{StreamDecodedBytes: 8 << 20, JobDecodedBytes: 2 << 20}, true},
		{"two layers", bombPDF(t, zlibOf(zeros, 2), "[/FlateDecode /FlateDecode]", 0), docmill.Limits{StreamDecodedBytes: 1 << 20}, true},
		{"across a chunk", bombAcrossChunk(t, zlibOf(zeros, 1)), docmill.Limits{StreamDecodedBytes: 1 << 20}, true},
	}
	check := pdfops.StreamCheckStep()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := func() *docmill.RunInput {
				return &docmill.RunInput{WorkDir: t.TempDir(), Limits: c.limits, Params: docmill.Params{"angle": "90"},
					Files: []docmill.LocalFile{{Path: c.path, Filename: "bomb.pdf", ContentType: "application/pdf"}}}
			}
			_, err := check.Invoke(context.Background(), in())
			assertRefused(t, "stream check", err, c.refused)
			_, err = tool(t, "rotate-pdf").Invoke(context.Background(), in())
			assertRefused(t, "rotate-pdf", err, c.refused)
		})
	}
}

func assertRefused(t *testing.T, who string, err error, refused bool) {
	t.Helper()
	got := err != nil && docmill.ErrorCode(err) == docmill.CodeInvalidDocument && strings.Contains(docmill.AsError(err).Message, "processing limit")
	if got != refused || !refused && err != nil {
		t.Errorf("%s: err = %v, want refused %v", who, err, refused)
	}
}

// TestLimitsFromInput: the page and pixel caps a run checks are the
// limits it is given, not constants.
func TestLimitsFromInput(t *testing.T) {
	tl := tool(t, "rotate-pdf")
	p, _ := tl.ParseParams(nil)
	in := &docmill.RunInput{WorkDir: t.TempDir(), Params: p, Limits: docmill.Limits{PDFPages: 2},
		Files: []docmill.LocalFile{{Path: fourPagesPDF(t), Filename: "a.pdf", ContentType: "application/pdf"}}}
	_, err := tl.Invoke(context.Background(), in)
	if docmill.ErrorCode(err) != docmill.CodeInvalidDocument || !strings.Contains(err.Error(), "up to 2 pages") {
		t.Errorf("4 pages under a 2-page limit: %v", err)
	}
	in.Limits = docmill.Limits{PDFBytes: 1000}
	if _, err := tl.Invoke(context.Background(), in); docmill.ErrorCode(err) != docmill.CodeFileTooLarge {
		t.Errorf("over PDFBytes: %v", err)
	}
}
