package poppler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// editBookmarksTool declares edit-bookmarks: it replaces a PDF's outline
// with the bookmarks given as JSON, or with one built from the document's
// headings (from_headings, found with pdftotext -bbox-layout); write
// (Steps.WriteBookmarks) writes the outline.
func editBookmarksTool(pdftotext *sandbox.Engine, write docmill.RunFunc, maxLayout int64) *docmill.Tool {
	return engineTool(docmill.Tool{
		Slug:  "edit-bookmarks",
		Title: "Edit PDF bookmarks",
		Description: "Replace the bookmarks (outline) of a PDF: with a list given as JSON, " +
			`[{"title": "Chapter 1", "page": 1, "children": [...]}], as pdf-bookmarks lists them; ` +
			"or built from the document's headings, the lines set in a larger font than the body text " +
			"(the largest size the top level, at most three levels). An empty list removes the bookmarks.",
		Outputs: []string{pdfContentType},
		Params: []docmill.Param{
			{
				Name: paramBookmarks, Type: docmill.TypeString, Max: docmill.Bound(64 << 10), Check: checkBookmarksParam,
				Example: `[{"title": "Introduction", "page": 1}, {"title": "Results", "page": 2}]`,
				Description: `The bookmarks as JSON: a list of {"title", "page", "children"}, or pdf-bookmarks' {"bookmarks": [...]}; ` +
					fmt.Sprintf("at most %d bookmarks, %d levels, titles of %d characters. ", docmill.MaxBookmarks, docmill.MaxBookmarkDepth, docmill.MaxBookmarkTitle) +
					"Required unless from_headings is true.",
			},
			{
				Name: paramFromHeadings, Type: docmill.TypeBoolean, Default: "false",
				Description: "Build the bookmarks from the headings of the text (lines in a clearly larger font) instead of bookmarks. " +
					"Scanned pages without text have none; run ocr-pdf first.",
			},
		},
		CheckParams: checkBookmarkSource,
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."},
			{Name: "bookmarks", Type: docmill.MetaInteger, Description: "Bookmarks written, at every level."},
		},
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return runEditBookmarks(ctx, pdftotext, write, maxLayout, in)
		},
	}, pdftotext)
}

func checkBookmarksParam(v string) error {
	if _, err := docmill.ParseBookmarks(v); err != nil {
		return docmill.ParamError(paramBookmarks, "%s", err)
	}
	return nil
}

// checkBookmarkSource holds edit-bookmarks to exactly one source of
// bookmarks.
func checkBookmarkSource(p docmill.Params) error {
	switch given, headings := p.Has(paramBookmarks), p.Bool(paramFromHeadings); {
	case given && headings:
		return docmill.ParamError(paramFromHeadings, "cannot be true when bookmarks are given: choose one")
	case !given && !headings:
		return docmill.ParamError(paramBookmarks, "is required unless from_headings is true")
	}
	return nil
}

// runEditBookmarks finds the headings when asked to, then has write
// replace the outline.
func runEditBookmarks(ctx context.Context, pdftotext *sandbox.Engine, write docmill.RunFunc, maxLayout int64, in *docmill.RunInput) (*docmill.RunOutput, error) {
	bookmarks := in.Params.String(paramBookmarks)
	if in.Params.Bool(paramFromHeadings) {
		headings, err := documentHeadings(ctx, pdftotext, maxLayout, in)
		if err != nil {
			return nil, err
		}
		if len(headings) == 0 {
			return nil, docmill.Errorf(docmill.CodeInvalidDocument, "No headings were found: the text is all in one size, or the pages have no text layer (run ocr-pdf first).")
		}
		bookmarks = docmill.MarshalBookmarks(outlineOf(headings))
	}
	return write(ctx, &docmill.RunInput{Files: in.Files, WorkDir: in.WorkDir, Limits: in.Limits,
		Params: docmill.Params{"bookmarks": bookmarks}})
}

// documentHeadings runs pdftotext -bbox-layout into a file of the work
// directory, capped at maxBytes (Limits.LayoutBytes), and finds the
// headings in it.
func documentHeadings(ctx context.Context, pdftotext *sandbox.Engine, maxBytes int64, in *docmill.RunInput) ([]heading, error) {
	src, err := filepath.Abs(in.Files[0].Path)
	if err != nil {
		return nil, fmt.Errorf("poppler: input path: %w", err)
	}
	path := filepath.Join(in.WorkDir, "layout.xhtml")
	tooLarge := docmill.Errorf(docmill.CodeFileTooLarge, "The text of the document is too large to look for headings in (over %d MB of layout).", maxBytes>>20)
	if err := runPDFToText(ctx, pdftotext, in.WorkDir, path, layoutArgs(src), maxBytes, tooLarge, "reading its text"); err != nil {
		return nil, err
	}
	defer os.Remove(path)
	headings, err := findHeadings(path)
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The text of the document could not be read.")
	}
	return headings, ctx.Err()
}
