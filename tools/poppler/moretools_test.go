package poppler

import (
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestMain lets this test binary serve as the PDF helper that selects
// pages, redacts them and builds compare-pdf's report, as docmill's own
// binary does in the server (`docmill engine pdf`).
func TestMain(m *testing.M) {
	toolstest.Main(m, pdfops.SelectPagesStep(), pdfops.RedactPagesStep(), pdfops.CompareReportStep())
}

// moreTool returns the moreTools tool with slug on the real engines, its
// steps in real jailed helpers of this test binary (as cmd/docmill gives
// them), skipping t when an engine is missing.
func moreTool(t testing.TB, slug string) *docmill.Tool {
	t.Helper()
	return limitedMoreTool(t, slug, docmill.Limits{})
}

// limitedMoreTool is moreTool with limits.
func limitedMoreTool(t testing.TB, slug string, limits docmill.Limits) *docmill.Tool {
	t.Helper()
	find := func(name string) *sandbox.Engine {
		e := sandbox.Find(name, []string{"-v"}, sandbox.Options{View: sandbox.View{ReadOnly: DataPaths}})
		if !e.Available() {
			toolstest.Lacking(t, "%s is not available (not installed, or the jail cannot run)", name)
		}
		return e
	}
	e := Engines{PDFToPPM: find("pdftoppm"), PDFInfo: find("pdfinfo"), PDFImages: find("pdfimages"), PDFToCairo: find("pdftocairo")}
	steps := Steps{SelectPages: toolstest.Helpers().Step(pdfops.SelectPagesStep())}
	return toolstest.Find(t, moreTools(e, limits, steps), slug)
}

// TestMoreToolsPageLimit: remove-blank-pages and pdf-to-svg refuse more
// pages than RenderPages before they draw any.
func TestMoreToolsPageLimit(t *testing.T) {
	src := toolstest.WriteTemp(t, "doc.pdf", toolstest.TextPDF("One", "Two", "Three"))
	_, err := runTool(t, limitedMoreTool(t, "remove-blank-pages", docmill.Limits{RenderPages: 2}), src, nil)
	toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
	svg := limitedMoreTool(t, "pdf-to-svg", docmill.Limits{RenderPages: 2})
	_, err = runTool(t, svg, src, nil)
	toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "pages")
	if _, err := runTool(t, svg, src, map[string]string{"pages": "2-3"}); err != nil {
		t.Errorf("two pages of three: %v", err)
	}
}
