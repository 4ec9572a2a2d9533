package ghostscript

import (
	"context"
	"path/filepath"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

func (e *engines) linearizeTool() *docmill.Tool {
	t := e.tool(docmill.Tool{
		Slug:  "linearize-pdf",
		Lane:  docmill.LanePDF,
		Title: "Linearize PDF (fast web view)",
		Description: "Rewrite a PDF for fast web view: the first page's objects come first and a hint table " +
			"lets a browser show it before the whole file has arrived. Content, forms and metadata are kept.",
		Meta:      []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."}},
		Engine:    "qpdf",
		Available: e.qpdf.Available,
		Run:       e.runLinearize,
	})
	t.Engines = sandbox.Statuses(e.qpdf) // Ghostscript plays no part
	return t
}

// runLinearize rewrites the input with `qpdf --linearize`, which keeps
// every object (and an empty-password encryption) and only reorders them
// and adds the hint streams. qpdf's exit status 3 (it fixed something in
// a damaged file on the way) counts as success; a file qpdf cannot read
// is invalid_document, and so is one that needs a password, refused
// before qpdf is asked to rewrite it.
func (e *engines) runLinearize(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	src, err := e.checkInput(ctx, in.Files[0], in.WorkDir)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(in.WorkDir, "linearized.pdf")
	_, err = e.qpdf.Run(ctx, sandbox.Cmd{Dir: in.WorkDir, Args: []string{"--linearize", src, out}})
	if err = qpdfOK(err); err != nil {
		return nil, failure(err, msgDamaged)
	}
	pages, err := e.outputPages(ctx, out, in.WorkDir, in.Limits)
	if err != nil {
		return nil, failure(err, msgDamaged)
	}
	if pages < 1 {
		return nil, docmill.Errorf(docmill.CodeInvalidDocument, "The file has no pages.")
	}
	return pdfResult(in, out, "-linearized.pdf", map[string]any{"pages": pages}), nil
}
