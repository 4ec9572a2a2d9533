package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ghostscript"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestRepairChain: a PDF whose cross-reference data qpdf mends (exit 3)
// but one of whose objects pdfcpu still cannot read (a Type1 font
// without its /BaseFont) is read by rotate-pdf after the chain's second
// step, Ghostscript's rewrite; with repair-pdf alone, the first error
// stands. Real engines, rotate-pdf run in this process.
func TestRepairChain(t *testing.T) {
	t.Parallel()
	gs := sandbox.Find("gs", []string{"--version"}, sandbox.Options{View: sandbox.View{ReadOnly: ghostscript.DataPaths}})
	qpdf := sandbox.Find("qpdf", []string{"--version"}, sandbox.Options{})
	repairs := ghostscript.RepairSteps(gs, qpdf)
	repair, rewrite := repairs[0], repairs[1]
	if !repair.IsAvailable() || !rewrite.IsAvailable() {
		toolstest.Lacking(t, "repair-pdf or its rewrite step is unavailable: gs or qpdf not installed, or no jail")
	}
	pdf := toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		"<< /Length 42 >>\nstream\nBT /F1 24 Tf 72 700 Td (Hello) Tj ET\nendstream",
		"<< /Type /Font /Subtype /Type1 >>")
	rotate := func(repairs ...docmill.RunFunc) (*docmill.RunOutput, error) {
		tl := repairing(repairs, toolstest.Find(t, pdfops.Tools(), "rotate-pdf"))[0]
		params, err := tl.ParseParams(map[string]string{})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		in := filepath.Join(dir, "input-0.pdf")
		if err := os.WriteFile(in, pdf, 0o600); err != nil {
			t.Fatal(err)
		}
		return tl.Invoke(context.Background(), &docmill.RunInput{Params: params, WorkDir: dir,
			Files: []docmill.LocalFile{{Path: in, Filename: "font.pdf", ContentType: "application/pdf", Size: int64(len(pdf))}}})
	}
	if _, err := rotate(repair.Run); !errors.Is(err, docmill.ErrUnreadable) {
		t.Fatalf("with repair-pdf alone: %v; want the first error (unreadable) to stand", err)
	}
	out, err := rotate(repair.Run, rewrite.Run)
	if err != nil {
		t.Fatalf("with Ghostscript's rewrite after repair-pdf: %v", err)
	}
	if out.Meta["repaired"] != true {
		t.Errorf("meta %v, want repaired", out.Meta)
	}
}
