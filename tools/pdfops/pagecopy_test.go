package pdfops

import (
	"context"
	"fmt"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"

	docmill "github.com/docmill/docmill"
)

// TestCopyPagesFallback checks that a page whose content uses a font its
// resources lack, which viewers still show, is copied with its resources
// as they are once pdfcpu's resource trimming refuses it.
func TestCopyPagesFallback(t *testing.T) {
	content := "BT /F1 12 Tf 30 150 Td (Hello) Tj ET"
	path := rawPDF(t,
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Count 1 /Kids [3 0 R] >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 300] /Resources << /ProcSet [/PDF] >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	)
	doc, err := readSource(context.Background(), newBudget(docmill.DefaultLimits()), docmill.LocalFile{Path: path}, "The file")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pdfcpu.ExtractPages(doc, []int{1}, false); err == nil {
		t.Fatal("pdfcpu copied the page with trimmed resources; the fallback is untested")
	}
	out, err := copyPages(doc, []int{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := out.EnsurePageCount(); err != nil || out.PageCount != 2 || doc.Conf.OptimizeResourceDicts {
		t.Errorf("copy has %d pages, trimming %v", out.PageCount, doc.Conf.OptimizeResourceDicts)
	}
}
