package pdfops_test

import (
	"context"
	"errors"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// huntLoopingTree is a one-page PDF whose catalog entry entry (a /Names
// key, or PageLabels) is a tree node whose kids are itself and a node
// whose only kid is the first: pdfcpu's validation, which bounds the
// depth but remembers no node, would visit 2^depth paths.
func huntLoopingTree(catalogEntry, leaf string) []byte {
	return toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R "+catalogEntry+" >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
		"<< /Kids [4 0 R 5 0 R] >>",
		"<< /Kids [4 0 R] "+leaf+" >>",
		"<< /Type /Filespec /F (a.txt) /EF << /F 7 0 R >> >>",
		"<< /Type /EmbeddedFile /Length 5 >>\nstream\nhello\nendstream",
	)
}

// TestHuntLoopingNameTrees: a document whose name or number tree loops
// back on itself is refused as damaged, quickly, by every pdfcpu tool
// (they share readDocument); it used to keep the helper busy until the
// job's timeout.
func TestHuntLoopingNameTrees(t *testing.T) {
	docs := map[string][]byte{
		"embedded files": huntLoopingTree("/Names << /EmbeddedFiles 4 0 R >>", "/Names [(a.txt) 6 0 R]"),
		"dests":          huntLoopingTree("/Names << /Dests 4 0 R >>", "/Names [(d) [3 0 R /Fit]]"),
		"javascript":     huntLoopingTree("/Names << /JavaScript 4 0 R >>", "/Names [(j) << /S /JavaScript /JS (1) >>]"),
		"page labels":    huntLoopingTree("/PageLabels 4 0 R", "/Nums [0 << /S /D >>]"),
	}
	for name, b := range docs {
		path := toolstest.WriteTemp(t, "loop.pdf", b)
		for _, slug := range []string{"rotate-pdf", "resize-pdf", "extract-attachments", "sanitize-pdf"} {
			t.Run(name+"/"+slug, func(t *testing.T) {
				params := map[string]string{}
				if slug == "rotate-pdf" {
					params["angle"] = "90"
				}
				done := make(chan error, 1)
				go func() {
					_, err := invoke(context.Background(), t, slug, params, "application/pdf", path)
					done <- err
				}()
				select {
				case err := <-done:
					var e *docmill.Error
					if !errors.As(err, &e) || e.Code != docmill.CodeInvalidDocument {
						t.Fatalf("error = %v, want invalid_document", err)
					}
				case <-time.After(20 * time.Second):
					t.Fatal("still running after 20 s")
				}
			})
		}
	}
}
