package pdfops

import (
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// merge-pdf's ways of bookmarking the merged document.
const (
	// mergeKeepOutlines keeps each input's outline as it is, one after
	// the other at the top level.
	mergeKeepOutlines = "none"
	// mergeByFileName and mergeByTitle add one top-level bookmark per
	// input, at its first page, titled by its file name or by its
	// document title (the file name when it has none), with the input's
	// own outline under it.
	mergeByFileName = "file_names"
	mergeByTitle    = "titles"
)

var mergeBookmarksParam = docmill.Param{
	Name:    bookmarksParam,
	Type:    docmill.TypeString,
	Enum:    []string{mergeKeepOutlines, mergeByFileName, mergeByTitle},
	Default: mergeKeepOutlines,
	Description: "none: each file's bookmarks kept as they are; file_names or titles: one bookmark per file at its first page, " +
		"named by its file name or its document title (the file name when it has none), with the file's own bookmarks under it.",
}

// inputOutline is what one input adds to the merged outline: its title
// and its own outline, read before the merge renumbers its objects.
type inputOutline struct {
	title   string
	entries []outlineEntry
	pages   int
}

// readInputOutline reads doc's outline for a merge by mode (not
// mergeKeepOutlines); filename titles it for mergeByFileName and when the
// document has no title.
func readInputOutline(doc *model.Context, mode, filename string) (inputOutline, error) {
	entries, err := readOutline(doc)
	if err != nil {
		return inputOutline{}, docmill.InvalidDocument(err, "The bookmarks of %q could not be read: they are damaged or too many.", filename)
	}
	title := docmill.ResultName(filename, ".pdf", "")
	if t := strings.TrimSpace(doc.Title); mode == mergeByTitle && t != "" {
		title = t
	}
	return inputOutline{title: title, entries: entries, pages: doc.PageCount}, nil
}

// wrappedOutline is the merged document's outline: a bookmark per input
// at its first page, the input's outline under it with its pages moved
// by the pages before it. Items that go to no page are left out, their
// children kept in their place. More than maxOutlineItems items in all
// are refused, as reading one input's outline refuses them.
func wrappedOutline(inputs []inputOutline) ([]docmill.Bookmark, error) {
	out := make([]docmill.Bookmark, 0, len(inputs))
	offset, count := 0, 0
	for _, in := range inputs {
		children := shiftedEntries(in.entries, offset, &count)
		if count += 1; count > maxOutlineItems {
			return nil, docmill.InvalidDocument(nil, "The files have more than %d bookmarks together; merge them with bookmarks none.", maxOutlineItems)
		}
		out = append(out, docmill.Bookmark{Title: in.title, Page: offset + 1, Children: children})
		offset += in.pages
	}
	return out, nil
}

// shiftedEntries converts entries to bookmarks whose pages are moved by
// offset, counting them into count.
func shiftedEntries(entries []outlineEntry, offset int, count *int) []docmill.Bookmark {
	var out []docmill.Bookmark
	for _, e := range entries {
		children := shiftedEntries(e.Children, offset, count)
		if e.Page == nil {
			out = append(out, children...)
			continue
		}
		*count++
		out = append(out, docmill.Bookmark{Title: e.Title, Page: *e.Page + offset, Children: children})
	}
	return out
}
