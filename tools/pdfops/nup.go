package pdfops

import (
	"context"
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// nupOrders are the order names nup-pdf accepts (see setNUpOrder); the
// first is the default.
var nupOrders = []string{"across-then-down", "down-then-across", "across-then-down-rtl", "down-then-across-rtl"}

// setNUpOrder sets pdfcpu's grid orientation for a validated order name.
func setNUpOrder(nup *model.NUp, order string) {
	switch order {
	case "across-then-down":
		nup.Orient = model.RightDown
	case "down-then-across":
		nup.Orient = model.DownRight
	case "across-then-down-rtl":
		nup.Orient = model.LeftDown
	case "down-then-across-rtl":
		nup.Orient = model.DownLeft
	default:
		panic(fmt.Sprintf("pdfops: order %q was not validated", order))
	}
}

func nupTool() *docmill.Tool {
	return onePDFTool(docmill.Tool{
		Slug: "nup-pdf",
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Sheets of the result."},
			{Name: "input_pages", Type: docmill.MetaInteger, Description: "Pages of the input."},
		},
		Title:       "N-up PDF",
		Description: "Put several pages of a PDF on each sheet, such as 2 or 4 per sheet, to print on less paper.",
		Params: []docmill.Param{
			{
				Name:        perSheetParam,
				Type:        docmill.TypeInteger,
				Description: "Pages on each sheet.",
				Enum:        []string{"2", "4", "6", "8", "9", "16"},
				Default:     "2",
			},
			pageSizeParam("The sheet's size; it is turned to landscape when that fits the pages better"),
			{
				Name: orderParam,
				Type: docmill.TypeString,
				Description: "How the pages fill a sheet: across-then-down fills rows left to right from the top; " +
					"down-then-across fills columns top to bottom from the left; the -rtl forms go right to left.",
				Enum:    nupOrders,
				Default: nupOrders[0],
			},
			{
				Name:        borderParam,
				Type:        docmill.TypeBoolean,
				Description: "Draw a thin line around each page.",
				Default:     "false",
			},
		},
	}, model.NUP, runNUp)
}

// runNUp puts the pages, in order, per_sheet to a sheet, each scaled to
// its cell keeping its proportions; the last sheet may have empty cells.
func runNUp(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	inputPages := doc.PageCount
	nup, err := nupConfig(doc, in.Params)
	if err != nil {
		return nil, err
	}
	if err := imposePages(ctx, b, doc, func(set types.IntSet) error { return pdfcpu.NUpFromPDF(doc, set, nup) }); err != nil {
		return nil, err
	}
	return writeOutput(doc, in.WorkDir, "nup.pdf", docmill.ResultName(in.Files[0].Filename, ".pdf", "-nup.pdf"),
		map[string]any{"pages": doc.PageCount, "input_pages": inputPages})
}

// nupConfig returns pdfcpu's n-up settings for the validated params.
func nupConfig(doc *model.Context, p docmill.Params) (*model.NUp, error) {
	n := p.Int(perSheetParam)
	nup := model.DefaultNUpConfig()
	nup.PageSize, nup.UserDim = "", true
	nup.Border = p.Bool(borderParam)
	setNUpOrder(nup, p.String(orderParam))
	sheet, err := sheetFor(doc, pageSizeOf(p), n)
	if err != nil {
		return nil, err
	}
	nup.PageDim = &sheet
	if err := pdfcpu.ParseNUpValue(n, nup); err != nil {
		return nil, fmt.Errorf("pdfops: n-up of %d: %w", n, err)
	}
	return nup, nil
}

// nupGrids are the columns and rows of each per_sheet value on a
// landscape sheet, as pdfcpu lays them out (a portrait sheet swaps them).
var nupGrids = map[int][2]float64{2: {2, 1}, 4: {2, 2}, 6: {3, 2}, 8: {4, 2}, 9: {3, 3}, 16: {4, 4}}

// sheetFor returns the sheet size turned so that its cells have the
// orientation of the document's first page: two portrait pages go side
// by side on a landscape sheet, four on a portrait one. Pages of the
// other orientation are turned to fit their cells by pdfcpu.
func sheetFor(doc *model.Context, size types.Dim, n int) (types.Dim, error) {
	first, err := firstPageShape(doc)
	if err != nil {
		return types.Dim{}, err
	}
	portrait := types.Dim{Width: min(size.Width, size.Height), Height: max(size.Width, size.Height)}
	landscape := types.Dim{Width: portrait.Height, Height: portrait.Width}
	g := nupGrids[n]
	// On a landscape sheet a cell is (W/cols) by (H/rows).
	cellPortrait := landscape.Width/g[0] < landscape.Height/g[1]
	if cellPortrait == first.Portrait() {
		return landscape, nil
	}
	return portrait, nil
}

// firstPageShape returns the first page's visible box as shown (turned by
// its /Rotate).
func firstPageShape(doc *model.Context) (*types.Rectangle, error) {
	_, _, attrs, err := doc.PageDict(1, false)
	if err != nil || attrs == nil || attrs.MediaBox == nil {
		return nil, docmill.InvalidDocument(err, "The file's first page could not be read: it is damaged.")
	}
	box := attrs.MediaBox
	if attrs.CropBox != nil {
		box = attrs.CropBox
	}
	if attrs.Rotate%180 != 0 {
		return types.RectForDim(box.Height(), box.Width()), nil
	}
	return types.RectForDim(box.Width(), box.Height()), nil
}

// imposePages runs an imposition (n-up, booklet) of every page of doc,
// which replaces doc's pages with new sheets that draw them: it bounds the
// content the sheets copy, and drops what pointed at the old pages.
func imposePages(ctx context.Context, b *budget, doc *model.Context, impose func(types.IntSet) error) error {
	if err := balanceStampPageTree(doc); err != nil {
		return docmill.InvalidDocument(err, "The file's page tree could not be read: it is damaged.")
	}
	all := make([]int, doc.PageCount)
	set := types.IntSet{}
	for i := range all {
		all[i] = i + 1
		set[i+1] = true
	}
	if err := checkCopiedContent(ctx, b, doc, all, theFile); err != nil {
		return err
	}
	if err := impose(set); err != nil {
		return docmill.InvalidDocument(err, "The file's pages could not be placed on sheets: it is damaged or uses a structure this tool does not support.")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return dropPageLinks(doc)
}

// dropPageLinks removes from doc's catalog what refers to its pages by
// object, once an imposition has replaced them: the outline, page labels,
// named destinations, the open action, the structure tree and the form
// (whose fields' widgets were on the old pages, which n-up draws without
// their annotations). Kept, they would point at pages no longer in the
// page tree, and pull those pages into the output.
func dropPageLinks(doc *model.Context) error {
	root, err := doc.Catalog()
	if err != nil {
		return docmill.InvalidDocument(err, "The file's catalog could not be read: it is damaged.")
	}
	for _, key := range []string{"Outlines", "PageLabels", "Dests", "OpenAction", "StructTreeRoot", "AcroForm", "PageMode"} {
		root.Delete(key)
	}
	if names, err := doc.DereferenceDict(root["Names"]); err == nil && names != nil {
		names.Delete("Dests")
	}
	delete(doc.Names, "Dests")
	doc.Outlines = nil
	return nil
}
