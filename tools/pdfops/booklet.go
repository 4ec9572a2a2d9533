package pdfops

import (
	"context"
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

func bookletTool() *docmill.Tool {
	return onePDFTool(docmill.Tool{
		Slug: "booklet-pdf",
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Sheet sides of the result (two per sheet of paper)."},
			{Name: "input_pages", Type: docmill.MetaInteger, Description: "Pages of the input."},
		},
		Title: "Booklet PDF",
		Description: "Arrange the pages of a PDF for a folded, stapled booklet: print the result double-sided " +
			"(flipping on the long edge), fold the stack in the middle and staple along the fold.",
		Params: []docmill.Param{
			{
				Name: perSheetParam,
				Type: docmill.TypeInteger,
				Description: "Pages on each side of a sheet: 2 makes a booklet of half the sheet's size; " +
					"4 makes one of a quarter, cut in two after folding.",
				Enum:    []string{"2", "4"},
				Default: "2",
			},
			pageSizeParam("The sheet's size"),
		},
	}, model.BOOKLET, runBooklet)
}

// runBooklet imposes the pages as pdfcpu's saddle-stitched booklet,
// bound on the long edge: on a sheet of two pages the outermost pages
// (last and first) share the front of the first sheet, the second and
// the second last its back, and so on inwards. The page count is padded
// with blank pages to a multiple of four pages per sheet side pair.
func runBooklet(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	inputPages := doc.PageCount
	n := in.Params.Int(perSheetParam)
	nup := pdfcpu.DefaultBookletConfig()
	sheet := pageSizeOf(in.Params)
	nup.PageSize, nup.UserDim = "", true
	nup.PageDim = &types.Dim{Width: min(sheet.Width, sheet.Height), Height: max(sheet.Width, sheet.Height)}
	if err := pdfcpu.ParseNUpValue(n, nup); err != nil {
		return nil, fmt.Errorf("pdfops: booklet of %d: %w", n, err)
	}
	if err := imposePages(ctx, b, doc, func(set types.IntSet) error { return pdfcpu.BookletFromPDF(doc, set, nup) }); err != nil {
		return nil, err
	}
	return writeOutput(doc, in.WorkDir, "booklet.pdf", docmill.ResultName(in.Files[0].Filename, ".pdf", "-booklet.pdf"),
		map[string]any{"pages": doc.PageCount, "input_pages": inputPages})
}
