package pdfops

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// maxTitleRunes bounds the part of a file name taken from a bookmark's
// title: names stay readable and well under file systems' 255 bytes.
const maxTitleRunes = 60

// bookmarkParts makes one part per top-level bookmark that goes to a page,
// from its page to the page before the next one's, in page order; pages
// before the first make a part of their own. Bookmarks that start on the
// same page make one part, titled by the first of them.
func bookmarkParts(doc *model.Context) ([]splitPart, error) {
	entries, err := readOutline(doc)
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file's bookmarks could not be read: they are damaged or too many.")
	}
	type start struct {
		page  int
		title string
	}
	var starts []start
	for _, e := range entries {
		if e.Page != nil {
			starts = append(starts, start{*e.Page, e.Title})
		}
	}
	if len(starts) == 0 {
		return nil, docmill.ParamError(byBookmarksParam, "asks for a file per bookmark, but the document has no top-level bookmark that goes to a page")
	}
	slices.SortStableFunc(starts, func(a, b start) int { return cmp.Compare(a.page, b.page) })
	starts = slices.CompactFunc(starts, func(a, b start) bool { return a.page == b.page })
	front := starts[0].page > 1 // pages before the first bookmark
	if front {
		starts = slices.Insert(starts, 0, start{1, ""})
	}
	if len(starts) > maxSplitFiles {
		return nil, docmill.ParamError(byBookmarksParam, "would split the document into %d files; a split makes at most %d files", len(starts), maxSplitFiles)
	}
	parts := make([]splitPart, len(starts))
	for i, s := range starts {
		end := doc.PageCount
		if i+1 < len(starts) {
			end = starts[i+1].page - 1
		}
		label := fmt.Sprintf("%02d-%s", i+1, titleForName(s.title))
		if front {
			label = fmt.Sprintf("%02d-%s", i, titleForName(s.title))
			if i == 0 {
				label = "00-start"
			}
		}
		parts[i] = splitPart{span{s.page, end}, label}
	}
	return parts, nil
}

// titleForName makes a bookmark's title safe and short enough for a file
// name: letters, digits, spaces, dots, dashes and underscores are kept,
// anything else (slashes, control and format characters) becomes "_".
func titleForName(title string) string {
	var b strings.Builder
	n := 0
	for _, r := range strings.TrimSpace(title) {
		if n == maxTitleRunes {
			break
		}
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == ' ', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && n > 0:
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
		n++
	}
	if s := strings.TrimSpace(b.String()); s != "" {
		return s
	}
	return "bookmark"
}

// sizeParts cuts doc into parts of as many pages, in order, as make a
// PDF of at most limit bytes. Each part's length is found by writing
// candidate parts (doubling, then halving the gap), so a part of n pages
// costs about 2·log2(n) writes, not n.
func sizeParts(ctx context.Context, doc *model.Context, limit int64) ([]span, error) {
	dests := snapshotDests(doc)
	defer restoreDests(doc, dests)
	fits := func(s span) (bool, error) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		n, err := partSize(doc, dests, s)
		return n <= limit, err
	}
	var parts []span
	for from := 1; from <= doc.PageCount; {
		if len(parts) == maxSplitFiles {
			return nil, docmill.ParamError(maxSizeParam, "would split the document into more than %d files; give a larger size", maxSplitFiles)
		}
		ok, err := fits(span{from, from})
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, docmill.ParamError(maxSizeParam, "is smaller than page %d alone makes; give a larger size", from)
		}
		to, err := longestFit(from, doc.PageCount, fits)
		if err != nil {
			return nil, err
		}
		parts = append(parts, span{from, to})
		from = to + 1
	}
	return parts, nil
}

// longestFit returns the last page of the longest part from page from
// (which fits alone) up to page last that fits.
func longestFit(from, last int, fits func(span) (bool, error)) (int, error) {
	good, step := from, 1
	bad := last + 1
	for good+step < bad { // doubling
		ok, err := fits(span{from, good + step})
		if err != nil {
			return 0, err
		}
		if !ok {
			bad = good + step
			break
		}
		good += step
		step *= 2
	}
	for bad-good > 1 { // halving the gap
		mid := good + (bad-good)/2
		ok, err := fits(span{from, mid})
		if err != nil {
			return 0, err
		}
		if ok {
			good = mid
		} else {
			bad = mid
		}
	}
	return good, nil
}

// partSize is the size of the PDF that split writes for pages s of doc.
func partSize(doc *model.Context, dests []namedDest, s span) (int64, error) {
	restoreDests(doc, dests)
	part, err := copyPages(doc, listPages([]span{s}))
	if err != nil {
		return 0, err
	}
	var w byteCounter
	if err := api.WriteContext(part, &w); err != nil {
		return 0, fmt.Errorf("pdfops: size of pages %s: %w", s.label(), err)
	}
	return int64(w), nil
}

// byteCounter counts the bytes written to it.
type byteCounter int64

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}
