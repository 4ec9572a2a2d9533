package ghostscript

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// flattenTool declares flatten-pdf.
func (e *engines) flattenTool() *docmill.Tool {
	return e.tool(docmill.Tool{
		Slug:  "flatten-pdf",
		Lane:  docmill.LaneRender,
		Meta:  []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."}},
		Title: "Flatten PDF",
		Description: "Draw a PDF's form fields and annotations (comments, highlights, stamps) into the page " +
			"content, so that they look the same but can no longer be edited or filled in. " +
			"The form itself is removed. Pages, text, images, bookmarks and links (to web pages and " +
			"within the document) are kept. When every annotation and field carries its own appearance " +
			"(or one can be made from its value), those are drawn in and the rest of the document is kept as it is; " +
			"otherwise the document is rewritten as printing to PDF would.",
		Engine: "ghostscript",
		Run:    e.runFlatten,
	})
}

// runFlatten draws a PDF's form fields and annotations into its pages
// and removes the form (flatten). Links, which are annotations with
// nothing to draw, are put back by the step RestoreLinks.
func (e *engines) runFlatten(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	// The password check is flatten's first qpdf run, not a run of its
	// own (checkInput): qpdf cannot read a file that needs a password.
	src, err := checkHeader(in.Files[0])
	if err != nil {
		return nil, err
	}
	out, pages, err := e.flatten(ctx, in, src)
	if err != nil {
		return nil, err
	}
	return pdfResult(in, out, "-flattened.pdf", map[string]any{"pages": pages}), nil
}

// flatten writes src, a PDF in in's work directory, flattened and
// returns the path and the page count of the result: by the PDF helper
// alone when every annotation carries its appearance (flattenInHelper),
// by qpdf when that draws what Ghostscript would (flattenWithQPDF), or
// else by Ghostscript (flattenWithGS).
func (e *engines) flatten(ctx context.Context, in *docmill.RunInput, src string) (string, int, error) {
	// Each route without Ghostscript needs its step, and returns "" to
	// pass the document on.
	routes := []struct {
		step docmill.RunFunc
		run  func(context.Context, *docmill.RunInput, string) (string, int)
	}{{e.steps.Flatten, e.flattenInHelper}, {e.steps.RestoreLinks, e.flattenWithQPDF}}
	for _, r := range routes {
		if r.step == nil {
			continue
		}
		if out, pages := r.run(ctx, in, src); out != "" {
			return out, pages, nil
		}
		if err := ctx.Err(); err != nil {
			return "", 0, err
		}
	}
	return e.flattenWithGS(ctx, in, src)
}

// flattenInHelper has the step Flatten draw every annotation's
// appearance into its page, keep the links and remove the form, with no
// engine started. It returns "" when the step declines the document
// (meta "undrawn") or fails for any reason: qpdf's route then runs, and
// after it Ghostscript's, giving the answer they always gave.
func (e *engines) flattenInHelper(ctx context.Context, in *docmill.RunInput, src string) (string, int) {
	flat, err := e.steps.Flatten(ctx, &docmill.RunInput{WorkDir: in.WorkDir, Limits: in.Limits,
		Files: []docmill.LocalFile{{Path: src, Filename: "input.pdf", ContentType: pdfContentType}}})
	if err != nil || metaInt(flat.Meta, "undrawn") > 0 || metaInt(flat.Meta, "pages") < 1 {
		return "", 0
	}
	return flat.Path, metaInt(flat.Meta, "pages")
}

// flattenWithQPDF has qpdf generate the appearances of form fields that
// need them and draw every annotation's appearance into its page
// (--flatten-annotations=all), removing the form and, as Ghostscript
// does, an encryption that needs no password, in one run; the step
// RestoreLinks then checks that nothing was dropped that Ghostscript
// would draw (qpdf drops annotations without an appearance, such as
// comments many viewers save that way, and leaves a form whose
// appearances it cannot make) and puts the links back. The rest of the
// document is kept as it is. It returns "" when qpdf's result will not
// do for any reason, errors included: Ghostscript's route then runs and
// gives the answer it always gave, refusal or not.
func (e *engines) flattenWithQPDF(ctx context.Context, in *docmill.RunInput, src string) (string, int) {
	dir := in.WorkDir
	flat := filepath.Join(dir, "flattened-qpdf.pdf")
	err := e.runQPDF(ctx, dir, "flatten", []string{"--generate-appearances", "--flatten-annotations=all", "--decrypt"}, src, flat)
	if qpdfOK(err) != nil {
		os.Remove(flat)
		return "", 0
	}
	both := []docmill.LocalFile{
		{Path: src, Filename: "input.pdf", ContentType: pdfContentType},
		{Path: flat, Filename: "flattened.pdf", ContentType: pdfContentType},
	}
	linked, err := e.steps.RestoreLinks(ctx, &docmill.RunInput{Files: both, WorkDir: dir, Limits: in.Limits,
		Params: docmill.Params{"drawn_by_qpdf": "true"}})
	if err != nil || metaInt(linked.Meta, "undrawn") > 0 || metaInt(linked.Meta, "pages") < 1 {
		os.Remove(flat)
		return "", 0
	}
	return linked.Path, metaInt(linked.Meta, "pages")
}

// flattenWithGS has qpdf generate the appearance of every form field
// that lacks one (a field filled by a program that only set its value),
// then has Ghostscript draw every annotation into its page
// (-dPreserveAnnots=false), with its appearance or one Ghostscript makes
// for the common kinds that lack one (notes, highlights, ink), and leave
// out the AcroForm: the document is rewritten as printing to PDF would.
// Ghostscript drops links (its PreserveAnnotTypes, which could keep them,
// cannot be set from the command line in 10.0): the step RestoreLinks
// puts them back.
func (e *engines) flattenWithGS(ctx context.Context, in *docmill.RunInput, src string) (string, int, error) {
	dir := in.WorkDir
	mid := filepath.Join(dir, "appearances.pdf")
	_, err := e.qpdf.Run(ctx, sandbox.Cmd{Dir: dir, Args: []string{"--generate-appearances", src, mid}})
	if err = qpdfOK(err); err != nil {
		// Only now is it worth asking why: a file that needs a password
		// says so rather than that it is damaged.
		if encrypted := e.checkEncryption(ctx, src, dir); encrypted != nil {
			return "", 0, encrypted
		}
		return "", 0, failure(err, msgDamaged)
	}
	defer os.Remove(mid)
	out := filepath.Join(dir, "flattened.pdf")
	if err := e.runGS(ctx, dir, out, "-dPreserveAnnots=false", mid); err != nil {
		return "", 0, gsFailure(err, msgDamaged)
	}
	if e.steps.RestoreLinks != nil {
		both := []docmill.LocalFile{
			{Path: mid, Filename: "appearances.pdf", ContentType: pdfContentType},
			{Path: out, Filename: "flattened.pdf", ContentType: pdfContentType},
		}
		linked, err := e.steps.RestoreLinks(ctx, &docmill.RunInput{Files: both, WorkDir: dir, Limits: in.Limits})
		if err != nil {
			return "", 0, err
		}
		out = linked.Path
		if pages := metaInt(linked.Meta, "pages"); pages >= 1 {
			return out, pages, nil // counted as the step read it
		}
	}
	pages, err := e.outputPages(ctx, out, dir, in.Limits)
	if err != nil {
		return "", 0, failure(err, msgDamaged)
	}
	return out, pages, nil
}

// metaInt is a step's meta figure name, as a step run in this process
// reports it (int) or as JSON brings it from the helper (json.Number,
// or float64); 0 when absent.
func metaInt(meta map[string]any, name string) int {
	switch n := meta[name].(type) {
	case int:
		return n
	case float64:
		return int(n)
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	}
	return 0
}
