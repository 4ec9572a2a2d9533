package main

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// BenchmarkEInvoice times einvoice-pdf over HTTP against its floor, the
// PDF/A-3b conversion it is made of (pdf-to-pdfa conformance=3b on the
// same PDF), alternating the two and keeping the best of each: what the
// ratio shows is the cost of reading the invoice and embedding it (two
// calls of the PDF helper, pdfcpu's rewrite). A generated invoice PDF of
// 40 pages and a CII invoice of 200 lines (2 and 2 in a smoke pass).
func BenchmarkEInvoice(b *testing.B) {
	pages, lines := toolstest.BenchSize(40, 2), toolstest.BenchSize(200, 2)
	texts := make([]string, pages)
	for i := range texts {
		texts[i] = fmt.Sprintf("Invoice INV-2026-0042, page %d", i+1)
	}
	pdf, xml := toolstest.TextPDF(texts...), toolstest.CIIInvoice(toolstest.GuidelineEN16931, lines)
	dir := b.TempDir()
	s := startChild(b, dir, "--log-level", "error")
	c := s.client(newKey(b, dir, "custom", "--rpm", "100000", "--in-flight", "100"))
	call := func(tool string, params map[string]string, files ...[]byte) time.Duration {
		var fs []client.File
		for i, f := range files {
			fs = append(fs, client.File{Name: []string{"invoice.pdf", "invoice.xml"}[i], Body: bytes.NewReader(f)})
		}
		t0 := time.Now()
		j, _, err := c.Process(context.Background(), tool, fs, client.ProcessOptions{Params: params, Prefer: "wait=300"})
		if err != nil || j.Status != "done" {
			b.Fatalf("%s: %v %+v", tool, err, j)
		}
		return time.Since(t0)
	}
	floor, made := time.Duration(1<<62), time.Duration(1<<62)
	for b.Loop() {
		floor = min(floor, call("pdf-to-pdfa", map[string]string{"conformance": "3b"}, pdf))
		made = min(made, call("einvoice-pdf", nil, pdf, xml))
	}
	b.ReportMetric(ms(floor), "pdfa3b_ms")
	b.ReportMetric(ms(made), "einvoice_ms")
	b.ReportMetric(float64(made)/float64(floor), "x_floor")
	b.Logf("einvoice-pdf %.0f ms, its floor pdf-to-pdfa 3b %.0f ms: %.2fx (best of %d each; %d pages, %d invoice lines, %d KB of XML)",
		ms(made), ms(floor), float64(made)/float64(floor), b.N, pages, lines, len(xml)>>10)
}
