package pdfops

import (
	"context"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

func bookmarksTool() *docmill.Tool {
	return listingTool(docmill.Tool{
		Slug:  "pdf-bookmarks",
		Title: "PDF bookmarks",
		Description: "List the bookmarks (outline) of a PDF as JSON: each one's title, the page it goes to and the bookmarks nested under it. " +
			"A PDF without bookmarks gives an empty list.",
		Meta: []docmill.MetaField{documentPages, {Name: "bookmarks", Type: docmill.MetaInteger, Description: "Bookmarks listed, at every level."}},
	}, model.LISTBOOKMARKS, "bookmarks", listBookmarks)
}

// listBookmarks lists the document's outline, as pdf-bookmarks writes it
// in its JSON object {"bookmarks": [{"title", "page", "children"}]}; page
// is null for a bookmark that goes to no page of the document. The count
// is of the bookmarks at every level.
func listBookmarks(doc *model.Context) (any, int, error) {
	entries, err := readOutline(doc)
	if err != nil {
		return nil, 0, docmill.InvalidDocument(err, "The file's bookmarks could not be read: they are damaged or too many.")
	}
	return entries, countEntries(entries), nil
}

func countEntries(list []outlineEntry) int {
	n := len(list)
	for _, e := range list {
		n += countEntries(e.Children)
	}
	return n
}

// WriteBookmarksStep is edit-bookmarks' step that writes the outline,
// run in the PDF helper: its "bookmarks" param (JSON, as
// docmill.ParseBookmarks reads it, already checked by edit-bookmarks'
// declaration and read again here) replaces the document's outline; an
// empty list removes it. A bookmark past the last page is an
// invalid_parameter error naming "bookmarks". Its output is the PDF,
// named after the input with "-bookmarks.pdf", with meta "pages" and
// "bookmarks".
func WriteBookmarksStep() *docmill.EngineStep {
	return onePDFStep("write-bookmarks", model.ADDBOOKMARKS, runWriteBookmarks)
}

func runWriteBookmarks(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	list, err := docmill.ParseBookmarks(in.Params.String(bookmarksParam))
	if err != nil {
		return nil, docmill.ParamError(bookmarksParam, "%s", err)
	}
	if err := checkBookmarkPages("bookmarks", list, doc.PageCount); err != nil {
		return nil, err
	}
	if err := writeOutline(doc, list); err != nil {
		return nil, docmill.InvalidDocument(err, "The bookmarks could not be written: the file is damaged or uses a structure this tool does not support.")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return writeOutput(doc, in.WorkDir, "bookmarked.pdf", docmill.ResultName(in.Files[0].Filename, ".pdf", "-bookmarks.pdf"),
		map[string]any{"pages": doc.PageCount, "bookmarks": countBookmarks(list)})
}

func countBookmarks(list []docmill.Bookmark) int {
	n := len(list)
	for _, b := range list {
		n += countBookmarks(b.Children)
	}
	return n
}
