package pdfops

import (
	"context"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

func resizeTool() *docmill.Tool {
	return pagesTool(docmill.Tool{
		Slug:  "resize-pdf",
		Title: "Resize PDF pages",
		Description: "Change the page size of a PDF, such as to A4 or Letter: each page's content is scaled to fit " +
			"and centred, keeping its proportions.",
		Params: []docmill.Param{
			pageSizeParam("The new page size; a landscape page gets the size turned to landscape"),
		},
	}, resized, `Pages to resize, such as "1-3,5,8-"`, model.RESIZE, runResize)
}

// runResize gives each selected page the new size in the page's own
// orientation (pdfcpu's best fit: a landscape page becomes a landscape
// A4), its content scaled by the same factor across and down and centred,
// so nothing is stretched; the margins left are blank. Annotations are
// moved with the content. A page shown turned (/Rotate) is resized as
// shown and loses its /Rotate, its content being turned instead. The
// print-production boxes of a resized page are dropped (dropPrintBoxes).
func runResize(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	size := pageSizeOf(in.Params)
	set, pages, err := selectedPages(in.Params, doc.PageCount)
	if err != nil {
		return nil, err
	}
	if err := balanceStampPageTree(doc); err != nil {
		return nil, docmill.InvalidDocument(err, "The file's page tree could not be read: it is damaged.")
	}
	if err := checkCopiedContent(ctx, b, doc, pages, theFile); err != nil {
		return nil, err
	}
	res := &model.Resize{PageDim: &size, UserDim: true}
	if err := pdfcpu.Resize(doc, set, res); err != nil {
		return nil, docmill.InvalidDocument(err, "The file's pages could not be resized: it is damaged or uses a structure this tool does not support.")
	}
	if err := dropPrintBoxes(doc, pages); err != nil {
		return nil, docmill.InvalidDocument(err, "The file's pages could not be resized: it is damaged or uses a structure this tool does not support.")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return resized.output(doc, in, len(pages))
}

// dropPrintBoxes removes the trim, bleed and art boxes (and their
// display colours) of the given pages, once resized: pdfcpu scales the
// content and gives the page a new media and crop box, but leaves those
// boxes in the old page's coordinates, where they would cut the wrong
// part of the new page. Without them each defaults to the crop box, the
// whole new page. (They are not inherited, so only the page holds them.)
func dropPrintBoxes(doc *model.Context, pages []int) error {
	for _, n := range pages {
		d, _, _, err := doc.PageDict(n, false)
		if err != nil {
			return err
		}
		for _, k := range []string{"TrimBox", "BleedBox", "ArtBox", "BoxColorInfo"} {
			delete(d, k)
		}
	}
	return nil
}
