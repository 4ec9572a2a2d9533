package thumbnail_test

import (
	"context"
	"fmt"
	"image/png"
	"os"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/poppler"
	"github.com/docmill/docmill/tools/thumbnail"
	"github.com/docmill/docmill/tools/toolstest"
	"github.com/docmill/docmill/tools/vips"
)

// thumbnailTool is document-thumbnail on the real poppler and vips
// tools (no office step), skipping t when an engine is missing.
func thumbnailTool(t *testing.T) *docmill.Tool {
	t.Helper()
	find := func(name string, args ...string) *sandbox.Engine {
		e := sandbox.Find(name, args, sandbox.Options{View: sandbox.View{ReadOnly: poppler.DataPaths}})
		if !e.Available() {
			toolstest.Lacking(t, "%s is not available (not installed, or the jail cannot run)", name)
		}
		return e
	}
	pt := poppler.Tools(poppler.Engines{PDFToPPM: find("pdftoppm", "-v"), PDFInfo: find("pdfinfo", "-v"), PDFToText: find("pdftotext", "-v")}, poppler.Steps{}, docmill.Limits{})
	vt := vips.Tools(find("vips", "--version"), find("vipsheader", "--version"), docmill.Limits{}, t.TempDir())
	return thumbnail.Tool(thumbnail.Steps{PDFToPNG: toolstest.Find(t, pt, "pdf-to-png"), Resize: toolstest.Find(t, vt, "resize-image"), ConvertImage: toolstest.Find(t, vt, "convert-image")})
}

// squarePagePDF is one page of side points with a filled square on it.
func squarePagePDF(side int) []byte {
	content := "0 0 1 rg 100 100 3000 3000 re f"
	return toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents 4 0 R >>", side, side),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
}

// TestLargePages: the first page is drawn at a dpi chosen for A4's
// width; a larger page that pdf-to-png's pixel caps refuse at it is
// drawn at a lower one, and a page too large at any is refused as
// invalid_document. Before, pdf-to-png's refusals came back as they
// were: invalid_parameter errors on "dpi" ("use at most 180 dpi") and
// "pages", params document-thumbnail does not have.
func TestLargePages(t *testing.T) {
	tool := thumbnailTool(t)
	run := func(side int, width string) (*docmill.RunOutput, error) {
		params, err := tool.ParseParams(map[string]string{"width": width})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		src := toolstest.WriteTemp(t, "page.pdf", squarePagePDF(side))
		return tool.Invoke(context.Background(), &docmill.RunInput{Files: []docmill.LocalFile{toolstest.Input(t, dir, src, "application/pdf")}, Params: params, WorkDir: dir})
	}
	out, err := run(4000, "2000")
	if err != nil {
		t.Fatalf("a 4000 pt page at 2000 pixels: %v", err)
	}
	f, err := os.Open(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if cfg, err := png.DecodeConfig(f); err != nil || cfg.Width != 2000 || cfg.Height != 2000 {
		t.Fatalf("picture %+v, %v", cfg, err)
	}
	_, err = run(14400, "400")
	e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
	if len(e.Fields) != 0 {
		t.Errorf("fields %v", e.Fields)
	}
	t.Log(e.Message)
	// A document of no page is damaged the same way.
	params, _ := tool.ParseParams(map[string]string{})
	dir := t.TempDir()
	src := toolstest.WriteTemp(t, "empty.pdf", toolstest.PDF("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>"))
	_, err = tool.Invoke(context.Background(), &docmill.RunInput{Files: []docmill.LocalFile{toolstest.Input(t, dir, src, "application/pdf")}, Params: params, WorkDir: dir})
	toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
}
