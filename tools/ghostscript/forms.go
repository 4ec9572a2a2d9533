package ghostscript

import (
	"context"
	"os"
	"path/filepath"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// FormTools returns the tools that act on a PDF's form and annotations:
// flatten-pdf and fill-pdf-form. They are declared apart from Tools
// because the form filler takes a step that reads the document in Go,
// run in the PDF helper (FormSteps).
func FormTools(gs, qpdf *sandbox.Engine, steps FormSteps) []*docmill.Tool {
	e := &engines{gs: gs, qpdf: qpdf}
	tools := []*docmill.Tool{e.flattenTool(), e.fillTool(steps.Fill)}
	for _, t := range tools {
		t.Outputs = []string{pdfContentType}
	}
	return tools
}

// FormSteps are the parts of the form tools that read a user's document
// in Go; the server runs them in the PDF helper (sandbox.Helpers), out of
// its own process.
type FormSteps struct {
	// Fill sets the fields' values (pdfops.FillFormStepTool), taking
	// fill-pdf-form's input and params; nil makes fill-pdf-form
	// unavailable.
	Fill docmill.RunFunc
}

func (e *engines) flattenTool() *docmill.Tool {
	return e.tool(docmill.Tool{
		Slug:  "flatten-pdf",
		Meta:  []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."}},
		Title: "Flatten PDF",
		Description: "Draw a PDF's form fields and annotations (comments, highlights, stamps) into the page " +
			"content, so that they look the same but can no longer be edited or filled in. " +
			"The form itself is removed. The document is rewritten as printing to PDF would: " +
			"pages, text, images and bookmarks are kept, but links, being annotations too, stop working.",
		Engine: "ghostscript",
		Run:    e.runFlatten,
	})
}

// runFlatten has qpdf generate the appearance of every form field that
// lacks one (a field filled by a program that only set its value), then
// has Ghostscript draw every annotation into its page (-dPreserveAnnots=
// false), with its appearance or one Ghostscript makes for the common
// kinds that lack one (notes, highlights, ink), and leave out the
// AcroForm. qpdf's own --flatten-annotations is not used: it drops, rather
// than draws, every annotation without an appearance stream, which is how
// many viewers save comments. Links are annotations as well: Ghostscript
// 10.0 cannot keep them alone (its PreserveAnnotTypes cannot be set from
// the command line), so they are lost, which the description says.
func (e *engines) runFlatten(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	src, err := e.checkInput(ctx, in.Files[0], in.WorkDir)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(in.WorkDir, "flattened.pdf")
	pages, err := e.flatten(ctx, src, out, in.WorkDir)
	if err != nil {
		return nil, err
	}
	return pdfResult(in, out, "-flattened.pdf", map[string]any{"pages": pages}), nil
}

// flatten writes src flattened to out (see runFlatten) and returns its
// page count.
func (e *engines) flatten(ctx context.Context, src, out, dir string) (int, error) {
	mid := filepath.Join(dir, "appearances.pdf")
	_, err := e.qpdf.Run(ctx, sandbox.Cmd{Dir: dir, Args: []string{"--generate-appearances", src, mid}})
	if err = qpdfOK(err); err != nil {
		return 0, failure(err, msgDamaged)
	}
	defer os.Remove(mid)
	if err := e.runGS(ctx, dir, out, "-dPreserveAnnots=false", mid); err != nil {
		return 0, gsFailure(err, msgDamaged)
	}
	pages, err := e.pageCount(ctx, out, dir)
	if err != nil {
		return 0, failure(err, msgDamaged)
	}
	return pages, nil
}
