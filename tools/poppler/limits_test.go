package poppler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestRenderOutputLimit: the images a job writes are held to the tools'
// Limits.RenderOutputBytes, not to a constant: with 100 bytes, one page
// of pdf-to-png, two zipped, one of pdf-to-svg and the one image
// extract-images would write are file_too_large.
func TestRenderOutputLimit(t *testing.T) {
	tiny := docmill.Limits{RenderOutputBytes: 100}
	doc := generatedPDF(t)
	png := limitedTool(t, "pdf-to-png", tiny)
	for _, pages := range []string{"1", "1-2"} {
		_, err := runTool(t, png, doc, map[string]string{"pages": pages})
		toolstest.WantCode(t, err, docmill.CodeFileTooLarge, "")
	}
	_, err := runTool(t, limitedMoreTool(t, "pdf-to-svg", tiny), doc, map[string]string{"pages": "1"})
	toolstest.WantCode(t, err, docmill.CodeFileTooLarge, "")

	pixels := strings.Repeat("A", 16*16)
	content := "q 16 0 0 16 10 10 cm /Im Do Q"
	withImage := toolstest.WriteTemp(t, "image.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Resources << /XObject << /Im 4 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width 16 /Height 16 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length %d >>\nstream\n%s\nendstream", len(pixels), pixels),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)))
	_, err = runTool(t, limitedMoreTool(t, "extract-images", tiny), withImage, map[string]string{"min_size": "0"})
	toolstest.WantCode(t, err, docmill.CodeFileTooLarge, "")
	if out := mustRunTool(t, moreTool(t, "extract-images"), withImage, map[string]string{"min_size": "0"}); out.Meta["images"] != 1 {
		t.Errorf("within the defaults: meta %v", out.Meta)
	}
}

// TestCompareLayoutLimit: compare-pdf reads each document's words and
// boxes within its Limits.CompareLayoutBytes: with 100 bytes, two short
// documents are refused as a processing limit; within the defaults they
// compare.
func TestCompareLayoutLimit(t *testing.T) {
	pdftoppm, pdftotext, pdfinfo := testEngines(t)
	e := Engines{PDFToPPM: pdftoppm, PDFToText: pdftotext, PDFInfo: pdfinfo}
	report := toolstest.Helpers().Step(pdfops.CompareReportStep())
	run := func(limits docmill.Limits) (*docmill.RunOutput, error) {
		tool := compareTool(e, limits, report)
		dir := t.TempDir()
		var files []docmill.LocalFile
		for i, text := range []string{"The quick fox", "The slow fox"} {
			path := filepath.Join(dir, fmt.Sprintf("input-%d.pdf", i))
			if err := os.WriteFile(path, toolstest.TextPDF(text), 0o600); err != nil {
				t.Fatal(err)
			}
			files = append(files, docmill.LocalFile{Path: path, Filename: filepath.Base(path), ContentType: pdfContentType})
		}
		p, err := tool.ParseParams(nil)
		if err != nil {
			t.Fatal(err)
		}
		return tool.Invoke(t.Context(), &docmill.RunInput{Files: files, WorkDir: dir, Params: p, Limits: limits.WithDefaults()})
	}
	_, err := run(docmill.Limits{CompareLayoutBytes: 100})
	if e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, ""); !strings.Contains(e.Message, "more text than can be compared") {
		t.Fatalf("message %q", e.Message)
	}
	if _, err := run(docmill.Limits{}); err != nil {
		t.Fatalf("within the defaults: %v", err)
	}
}
