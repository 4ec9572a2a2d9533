package pdfops

import (
	"context"
	"fmt"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// maxBlankPages bounds insert-pages' blank: enough for any real use
// (separator and note pages), and small beside MaxPages.
const maxBlankPages = 1000

func insertPagesTool() *docmill.Tool {
	return pdfTool(docmill.Tool{
		Slug: "insert-pages",
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the result."},
			{Name: "input_pages", Type: docmill.MetaInteger, Description: "Pages of the first PDF."},
			{Name: "inserted_pages", Type: docmill.MetaInteger, Description: "Pages inserted."},
		},
		Title: "Insert pages into PDF",
		Description: "Insert the pages of a second PDF, or blank pages, into a PDF after a given page. " +
			"Send the PDF first and the PDF to insert second, or one PDF and blank.",
		MinFiles: 1,
		MaxFiles: 2,
		Params: []docmill.Param{
			{
				Name:        afterParam,
				Type:        docmill.TypeInteger,
				Description: "The page after which the pages go; 0 puts them before the first page. After the last page by default.",
				Min:         docmill.Bound(0),
				Max:         docmill.Bound(MaxPages),
			},
			{
				Name: blankParam,
				Type: docmill.TypeInteger,
				Description: "Insert this many blank pages instead of a second PDF (send one file only). " +
					"They take the size of the page they follow, or of the first page.",
				Min:     docmill.Bound(1),
				Max:     docmill.Bound(maxBlankPages),
				Example: "1",
			},
		},
	}, runInsertPages)
}

// runInsertPages inserts the second file's pages, or blank pages, after
// the page "after" of the first file. Inserted PDF pages keep their own
// size, rotation, links and outline, as merge-pdf keeps them.
func runInsertPages(ctx context.Context, in *docmill.RunInput, b *budget) (out *docmill.RunOutput, err error) {
	blank, twoFiles := in.Params.Int(blankParam), len(in.Files) == 2
	switch {
	case twoFiles && blank > 0:
		return nil, docmill.ParamError(blankParam, "is for one PDF only: send one PDF to insert blank pages, or two PDFs without blank to insert the second")
	case !twoFiles && blank == 0:
		return nil, docmill.Errorf(docmill.CodeMissingFile, "insert-pages needs a second PDF to insert, or blank set to the number of blank pages to insert.")
	}
	files := in.Files
	label := func(i int) string {
		if i == 0 {
			return fmt.Sprintf("The PDF (%q)", files[0].Filename)
		}
		return fmt.Sprintf("The PDF to insert (%q)", files[1].Filename)
	}
	if err := checkSizes(b, files, "PDFs", label); err != nil {
		return nil, err
	}
	var doc *model.Context
	var inputPages, inserted int
	if twoFiles {
		doc, inputPages, inserted, err = insertDocument(ctx, b, in, label)
	} else {
		doc, inputPages, inserted, err = insertBlankPages(ctx, b, in, blank, label)
	}
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return writeOutput(doc, in.WorkDir, "inserted.pdf", docmill.ResultName(files[0].Filename, ".pdf", "-inserted.pdf"),
		map[string]any{"pages": doc.PageCount, "input_pages": inputPages, "inserted_pages": inserted})
}

// insertAt returns where the validated "after" param puts new pages in a
// document of pageCount pages: after that page, or after the last.
func insertAt(p docmill.Params, pageCount int) (int, error) {
	if !p.Has(afterParam) {
		return pageCount, nil
	}
	after := p.Int(afterParam)
	if after > pageCount {
		return 0, docmill.ParamError(afterParam, "is past the last page: the PDF has %d pages", pageCount)
	}
	return after, nil
}

// insertDocument appends the second file to the first, as merge-pdf
// does (encryption, outline, links), then moves its pages into place.
func insertDocument(ctx context.Context, b *budget, in *docmill.RunInput, label func(int) string) (*model.Context, int, int, error) {
	conf := mergeConfig(mergeKeepOutlines)
	docs := make([]*model.Context, 2)
	for i, f := range in.Files {
		var err error
		if docs[i], err = readDocument(ctx, b, f, conf, label(i)); err != nil {
			return nil, 0, 0, err
		}
	}
	dest, src := docs[0], docs[1]
	n, m := dest.PageCount, src.PageCount
	after, err := insertAt(in.Params, n)
	if err != nil {
		return nil, 0, 0, err
	}
	keep, err := mergedEncryption(docs)
	if err != nil {
		return nil, 0, 0, err
	}
	if keep == src {
		if err := carryEncryption(src, dest); err != nil {
			return nil, 0, 0, err
		}
	}
	if dest.XRefTable.Version() < model.V20 {
		dest.EnsureVersionForWriting()
	}
	if err := appendDocument(dest, src, 1, label(1), b.l.PDFPages); err != nil {
		return nil, 0, 0, err
	}
	err = reorderPages(dest, func(leaves []types.IndirectRef) ([]types.IndirectRef, error) {
		return slices.Concat(leaves[:after], leaves[n:], leaves[after:n]), nil
	})
	return dest, n, m, err
}

// insertBlankPages adds count blank pages to the only file, each the
// size (crop box as shown, rotation included) of the page they follow,
// or of the first page.
func insertBlankPages(ctx context.Context, b *budget, in *docmill.RunInput, count int, label func(int) string) (*model.Context, int, int, error) {
	doc, err := readDocument(ctx, b, in.Files[0], newConfig(model.INSERTPAGESAFTER), label(0))
	if err != nil {
		return nil, 0, 0, err
	}
	n := doc.PageCount
	after, err := insertAt(in.Params, n)
	if err != nil {
		return nil, 0, 0, err
	}
	if limit := b.l.PDFPages; n+count > limit {
		return nil, 0, 0, docmill.ParamError(blankParam, "would make a document of %d pages; this tool makes documents of up to %d pages", n+count, limit)
	}
	err = reorderPages(doc, func(leaves []types.IndirectRef) ([]types.IndirectRef, error) {
		like := leaves[max(after, 1)-1]
		blanks := make([]types.IndirectRef, count)
		for i := range blanks {
			ref, err := doc.IndRefForNewObject(blankPageLike(doc, like))
			if err != nil {
				return nil, err
			}
			blanks[i] = *ref
		}
		return slices.Concat(leaves[:after], blanks, leaves[after:]), nil
	})
	return doc, n, count, err
}

// blankPageLike returns a page without content the size of the page at
// ref, which holds its inherited attributes (reorderPages pushed them).
func blankPageLike(doc *model.Context, ref types.IndirectRef) types.Dict {
	page := types.Dict{"Type": types.Name("Page"), "Resources": types.Dict{}}
	d, err := doc.DereferenceDict(ref)
	if err != nil || d == nil {
		return page
	}
	box, _ := d.Find("CropBox")
	if box == nil {
		box, _ = d.Find("MediaBox")
	}
	if a, err := doc.DereferenceArray(box); err == nil && len(a) == 4 {
		page["MediaBox"] = a.Clone()
	} else {
		page["MediaBox"] = types.RectForDim(595.28, 841.89).Array()
	}
	if rot, found := d.Find("Rotate"); found && rot != nil {
		if r, err := doc.DereferenceInteger(rot); err == nil && r != nil {
			page["Rotate"] = *r
		}
	}
	return page
}

// reorderPages rebuilds doc's page tree with the pages order returns,
// given the pages in their current order; every page holds its inherited
// attributes first, so none depends on a node of the old tree. A tree
// whose shape pdfcpu would walk differently is refused as damaged.
func reorderPages(doc *model.Context, order func([]types.IndirectRef) ([]types.IndirectRef, error)) error {
	root, err := doc.Pages()
	if err != nil || root == nil {
		return docmill.InvalidDocument(err, "The file's page tree could not be read: it is damaged.")
	}
	leaves, _, ok := pushInheritedAttrs(doc, *root)
	if !ok || len(leaves) != doc.PageCount {
		return docmill.InvalidDocument(nil, "The file's page tree could not be read: it is damaged.")
	}
	if leaves, err = order(leaves); err != nil {
		return fmt.Errorf("pdfops: insert pages: %w", err)
	}
	rebuildPageTree(doc, *root, leaves)
	doc.PageCount = len(leaves)
	return nil
}
