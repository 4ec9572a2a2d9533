package pdfops

import (
	"context"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// The page tools build one PDF from a selection of the input's pages:
// extract-pages keeps the selected pages, remove-pages the others, and
// organize-pdf puts pages in a new order. They share pageTool's run.

func extractPagesTool() *docmill.Tool {
	return newPageTool(pageTool{
		slug:        "extract-pages",
		title:       "Extract pages",
		description: "Make a new PDF of the selected pages, in the order they have in the document (as iLovePDF's extract pages with \"merge into one PDF\"). A page selected twice appears once.",
		field:       pagesName,
		example:     "1-2",
		fieldDoc:    `Pages to keep, such as "1-3,5,8-" ("8-" runs to the last page).`,
		done:        extracted,
		choose:      chooseExtract,
	})
}

func removePagesTool() *docmill.Tool {
	return newPageTool(pageTool{
		slug:        "remove-pages",
		title:       "Remove pages",
		description: "Delete the selected pages from a PDF; the other pages keep their order. At least one page must remain.",
		field:       pagesName,
		example:     "2",
		fieldDoc:    `Pages to delete, such as "1-3,5,8-" ("8-" runs to the last page).`,
		done:        removed,
		choose:      chooseRemove,
	})
}

func organizeTool() *docmill.Tool {
	return newPageTool(pageTool{
		slug:        "organize-pdf",
		title:       "Organize PDF",
		description: "Put the pages of a PDF in a new order. Pages left out of the order are dropped; a page listed twice appears twice.",
		field:       orderParam,
		example:     "3,1,2",
		fieldDoc:    `The pages of the new document, in order, such as "3,1,2,4-" ("4-" runs to the last page).`,
		done:        organized,
		choose:      chooseOrganize,
	})
}

// pageTool declares one of the page tools.
type pageTool struct {
	slug, title, description string
	// field is the tool's one required parameter, of type pages;
	// example is its value in the reference's examples (of a 3-page PDF).
	field, fieldDoc, example string
	// done names the result (pageAction.write).
	done pageAction
	// choose returns the output's pages, in order, given the selection
	// resolved against the document and the most pages a result may have
	// (Limits.PDFPages); its errors name the field.
	choose func(field string, selected []span, pageCount, maxPages int) ([]int, error)
}

func newPageTool(pt pageTool) *docmill.Tool {
	return onePDFTool(docmill.Tool{
		Slug:        pt.slug,
		Meta:        []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the result."}, {Name: "input_pages", Type: docmill.MetaInteger, Description: "Pages of the input."}},
		Title:       pt.title,
		Description: pt.description,
		Params: []docmill.Param{{
			Name:        pt.field,
			Type:        docmill.TypePages,
			Description: pt.fieldDoc,
			Required:    true,
			Example:     pt.example,
		}},
	}, model.COLLECT, pt.run)
}

// run reads the input, resolves the selection against it, copies the
// chosen pages into a new document and writes it.
func (pt pageTool) run(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	ranges := in.Params.PageRanges(pt.field)
	preparePageTree(doc)
	selected, err := resolveSpans(pt.field, ranges, doc.PageCount)
	if err != nil {
		return nil, err
	}
	pages, err := pt.choose(pt.field, selected, doc.PageCount, b.l.PDFPages)
	if err != nil {
		return nil, err
	}
	result, err := copyPages(doc, pages)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	return pt.done.write(result, in, map[string]any{"pages": len(pages), "input_pages": doc.PageCount})
}

// chooseExtract keeps the selected pages in document order, each once,
// as iLovePDF's "extract pages" does when it merges them into one PDF.
func chooseExtract(_ string, selected []span, _, _ int) ([]int, error) {
	return listPages(mergeSpans(selected)), nil
}

// chooseRemove keeps the pages not selected, in document order. Removing
// every page is refused: a PDF without pages is not a document.
func chooseRemove(field string, selected []span, pageCount, _ int) ([]int, error) {
	kept := complementSpans(mergeSpans(selected), pageCount)
	if len(kept) == 0 {
		return nil, docmill.ParamError(field, "would remove every page; at least one page must remain")
	}
	return listPages(kept), nil
}

// chooseOrganize keeps the pages in the order given, repeats included.
// Repeats can make the result longer than the input, so it is held to
// maxPages like any document this package makes.
func chooseOrganize(field string, selected []span, _, maxPages int) ([]int, error) {
	if n := totalPages(selected); n > maxPages {
		return nil, docmill.ParamError(field, "lists %d pages; this tool makes documents of up to %d pages", n, maxPages)
	}
	return listPages(selected), nil
}
