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
// because they take steps that read the document in Go, run in the PDF
// helper (FormSteps).
func FormTools(gs, qpdf *sandbox.Engine, steps FormSteps) []*docmill.Tool {
	f := &forms{engines: &engines{gs: gs, qpdf: qpdf}, steps: steps}
	tools := []*docmill.Tool{f.flattenTool(), f.fillTool()}
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
	// RestoreLinks puts back the links flattening dropped
	// (pdfops.RestoreLinksStepTool), taking the document before
	// flattening and the flattened one; nil leaves them dropped.
	RestoreLinks docmill.RunFunc
}

// forms runs the form tools: the engines, and the steps run in the PDF
// helper.
type forms struct {
	*engines
	steps FormSteps
}

func (f *forms) flattenTool() *docmill.Tool {
	return f.tool(docmill.Tool{
		Slug:  "flatten-pdf",
		Meta:  []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."}},
		Title: "Flatten PDF",
		Description: "Draw a PDF's form fields and annotations (comments, highlights, stamps) into the page " +
			"content, so that they look the same but can no longer be edited or filled in. " +
			"The form itself is removed. The document is rewritten as printing to PDF would: " +
			"pages, text, images, bookmarks and links (to web pages and within the document) are kept.",
		Engine: "ghostscript",
		Run:    f.runFlatten,
	})
}

// runFlatten has qpdf generate the appearance of every form field that
// lacks one (a field filled by a program that only set its value), then
// has Ghostscript draw every annotation into its page (-dPreserveAnnots=
// false), with its appearance or one Ghostscript makes for the common
// kinds that lack one (notes, highlights, ink), and leave out the
// AcroForm. qpdf's own --flatten-annotations is not used: it drops, rather
// than draws, every annotation without an appearance stream, which is how
// many viewers save comments. Ghostscript drops links, which are
// annotations with nothing to draw (its PreserveAnnotTypes, which could
// keep them, cannot be set from the command line in 10.0): the step
// RestoreLinks puts them back.
func (f *forms) runFlatten(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	src, err := f.checkInput(ctx, in.Files[0], in.WorkDir)
	if err != nil {
		return nil, err
	}
	out, pages, err := f.flatten(ctx, in, src)
	if err != nil {
		return nil, err
	}
	return pdfResult(in, out, "-flattened.pdf", map[string]any{"pages": pages}), nil
}

// flatten writes src, a PDF in in's work directory, flattened (see
// runFlatten) and returns the path and the page count of the result.
func (f *forms) flatten(ctx context.Context, in *docmill.RunInput, src string) (string, int, error) {
	dir := in.WorkDir
	mid := filepath.Join(dir, "appearances.pdf")
	_, err := f.qpdf.Run(ctx, sandbox.Cmd{Dir: dir, Args: []string{"--generate-appearances", src, mid}})
	if err = qpdfOK(err); err != nil {
		return "", 0, failure(err, msgDamaged)
	}
	defer os.Remove(mid)
	out := filepath.Join(dir, "flattened.pdf")
	if err := f.runGS(ctx, dir, out, "-dPreserveAnnots=false", mid); err != nil {
		return "", 0, gsFailure(err, msgDamaged)
	}
	if f.steps.RestoreLinks != nil {
		both := []docmill.LocalFile{
			{Path: mid, Filename: "appearances.pdf", ContentType: pdfContentType},
			{Path: out, Filename: "flattened.pdf", ContentType: pdfContentType},
		}
		linked, err := f.steps.RestoreLinks(ctx, &docmill.RunInput{Files: both, WorkDir: dir, Limits: in.Limits})
		if err != nil {
			return "", 0, err
		}
		out = linked.Path
	}
	pages, err := f.pageCount(ctx, out, dir)
	if err != nil {
		return "", 0, failure(err, msgDamaged)
	}
	return out, pages, nil
}
