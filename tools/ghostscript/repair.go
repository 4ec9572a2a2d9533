package ghostscript

import (
	"context"
	"os"
	"path/filepath"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

func (e *engines) repairTool() *docmill.Tool {
	return e.tool(docmill.Tool{
		Slug:        "repair-pdf",
		Lane:        docmill.LaneRender,
		Meta:        []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the repaired document."}, {Name: "engine", Type: docmill.MetaString, Description: "The engine that repaired it: qpdf, or ghostscript when qpdf could not."}},
		Title:       "Repair PDF",
		Description: "Rebuild a damaged PDF (broken cross-reference table, truncated file) so that readers open it again.",
		Engine:      "qpdf",
		Run:         e.runRepair,
	})
}

// runRepair rewrites the input with qpdf, which rebuilds a broken
// cross-reference table while keeping every object as it was; qpdf's exit
// status 3 (warnings: it repaired something) counts as success when the
// output opens with at least one page. When qpdf cannot, Ghostscript
// re-renders the pages it can find (losing forms and structure, but
// recovering files without a trailer). When neither can, the input is
// invalid_document.
func (e *engines) runRepair(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f := in.Files[0]
	src, err := e.checkInput(ctx, f, in.WorkDir)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(in.WorkDir, "repaired.pdf")
	engine := "qpdf"
	pages, qerr := e.repairQPDF(ctx, src, out, in.WorkDir)
	if qerr != nil {
		if !isInputFailure(qerr) {
			return nil, failure(qerr, msgDamaged)
		}
		os.Remove(out)
		engine = "ghostscript"
		if pages, err = e.rewrite(ctx, in.WorkDir, src, out); err != nil {
			return nil, err
		}
	}
	return pdfResult(in, out, "-repaired.pdf", map[string]any{"engine": engine, "pages": pages}), nil
}

// rewrite rewrites src to out with Ghostscript (pdfwrite), which
// re-renders the pages it can find: forms and structure are lost, but
// what its reader skipped or mended (a broken trailer, a font without
// its name, a malformed page box) is gone from out. It returns out's page
// count; none is invalid_document.
func (e *engines) rewrite(ctx context.Context, dir, src, out string) (int, error) {
	const public = "The file is too damaged to be repaired."
	if err := e.runGS(ctx, dir, out, src); err != nil {
		return 0, gsFailure(err, public)
	}
	pages, err := e.pageCount(ctx, out, dir)
	if err != nil || pages < 1 {
		return 0, docmill.InvalidDocument(err, "%s", public)
	}
	return pages, nil
}

// RepairSteps are the repairs the server tries in turn on the PDF inputs
// of a tool that could not read one (docmill.Tool.Repairs), each on the
// original inputs: first repair-pdf's own run (runRepair: qpdf's
// recovery, or Ghostscript's when qpdf cannot), which mends
// cross-reference data but keeps every object as it was; then
// Ghostscript's rewrite (see rewrite), for files qpdf mends but whose
// objects the tool still cannot read (a font without its name, a
// malformed page box). The rewrite writes "<name>-repaired.pdf", meta
// {"engine": "ghostscript", "pages"}.
func RepairSteps(gs, qpdf *sandbox.Engine) []*docmill.EngineStep {
	e := &engines{gs: gs, qpdf: qpdf}
	step := func(name string, run docmill.RunFunc) *docmill.EngineStep {
		return &docmill.EngineStep{Name: name, MinFiles: 1, MaxFiles: 1, Available: e.available, Run: run}
	}
	return []*docmill.EngineStep{step("repair-pdf", e.runRepair), step("ghostscript-rewrite", e.runRewrite)}
}

// runRewrite rewrites the input with Ghostscript (see rewrite).
func (e *engines) runRewrite(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	src, err := e.checkInput(ctx, in.Files[0], in.WorkDir)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(in.WorkDir, "rewritten.pdf")
	pages, err := e.rewrite(ctx, in.WorkDir, src, out)
	if err != nil {
		return nil, err
	}
	return pdfResult(in, out, "-repaired.pdf", map[string]any{"engine": "ghostscript", "pages": pages}), nil
}

// repairQPDF rewrites src to out with qpdf and returns the output's page
// count; an output without pages is an input failure too.
func (e *engines) repairQPDF(ctx context.Context, src, out, dir string) (int, error) {
	_, err := e.qpdf.Run(ctx, sandbox.Cmd{Dir: dir, Args: []string{src, out}})
	if err = qpdfOK(err); err != nil {
		return 0, err
	}
	n, err := e.pageCount(ctx, out, dir)
	if err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, &sandbox.ExitError{Engine: "qpdf", Code: 2, Stderr: "output has no pages"}
	}
	return n, nil
}

// isInputFailure reports whether err is an engine refusing the input, as
// opposed to a missing engine, a cancelled run or an internal fault.
func isInputFailure(err error) bool {
	return docmill.ErrorCode(failure(err, "")) == docmill.CodeInvalidDocument
}
