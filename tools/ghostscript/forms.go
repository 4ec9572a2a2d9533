package ghostscript

import (
	"context"
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
			"The form itself is removed. The document is rewritten as printing to PDF would: " +
			"pages, text, images, bookmarks and links (to web pages and within the document) are kept.",
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
// many viewers save comments. Ghostscript drops links, which are
// annotations with nothing to draw (its PreserveAnnotTypes, which could
// keep them, cannot be set from the command line in 10.0): the step
// RestoreLinks puts them back.
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

// flatten writes src, a PDF in in's work directory, flattened (see
// runFlatten) and returns the path and the page count of the result.
func (e *engines) flatten(ctx context.Context, in *docmill.RunInput, src string) (string, int, error) {
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
		if pages := metaPages(linked.Meta); pages >= 1 {
			return out, pages, nil // counted as the step read it
		}
	}
	pages, err := e.pageCount(ctx, out, dir)
	if err != nil {
		return "", 0, failure(err, msgDamaged)
	}
	return out, pages, nil
}

// metaPages is a step's meta "pages", an int as a step run in this
// process reports it or a float64 as JSON brings it from the helper; 0
// when absent.
func metaPages(meta map[string]any) int {
	switch n := meta["pages"].(type) {
	case int:
		return n
	case float64:
		return int(n)
	}
	return 0
}
