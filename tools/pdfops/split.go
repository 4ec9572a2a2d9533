package pdfops

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ziparchive"
)

// Caps on what one split makes, beyond the caps on its input.
const (
	// maxSplitFiles bounds the parts of one split. Every part is a whole
	// PDF that repeats the fonts and other resources its pages share with
	// the rest of the document, and costs a pass of pdfcpu's page copy and
	// writer, so the number of parts drives the run's time and the
	// archive's size: splitting a 117-page LaTeX book page by page takes
	// about 2 s and makes 9.6 MB from 1.8 MB. 1,000 parts keep a split
	// well inside the tool's timeout; a longer document splits with a
	// larger every, or by ranges.
	maxSplitFiles = 1000
	// maxSplitBytes bounds the archive, four times the default of
	// Limits.PDFBytes: a bound on what the tool writes, fixed so that a
	// node's input limit does not change which splits succeed. A split's output can be far larger
	// than its input when many small parts each carry the same large font
	// or image; past this size the split fails with file_too_large. The
	// pages of all parts together, which ranges that overlap ("1-,1-,1-")
	// could otherwise multiply, are bounded by Limits.PDFPages.
	maxSplitBytes int64 = 4 * MaxInputBytes
)

func splitTool() *docmill.Tool {
	return onePDFTool(docmill.Tool{
		Slug:   "split-pdf",
		Meta:   []docmill.MetaField{documentPages, {Name: "files", Type: docmill.MetaInteger, Description: "Documents made (one is returned as is, several as a zip)."}},
		Title:  "Split PDF",
		MayZip: true,
		Description: "Split a PDF into several PDFs: one per page range, every N pages, one per top-level bookmark, or parts of at most " +
			"a size; returned together as a zip archive of files named <name>-<range>.pdf (<name>-<NN>-<bookmark>.pdf by bookmarks). " +
			"A split that makes a single file returns that PDF itself. With no way given, each page becomes its own file.",
		Params: []docmill.Param{
			{
				Name: rangesParam,
				Type: docmill.TypePages,
				Description: `One output file per range, such as "1-3,5,8-" (three files: pages 1-3, page 5, ` +
					`pages 8 to the last). Not with every, by_bookmarks or max_size_mb.`,
			},
			{
				// No declared default: a default would make every look given
				// alongside ranges. Run uses 1 when no way is given.
				Name:        everyParam,
				Type:        docmill.TypeInteger,
				Description: "Pages per output file, from the first page on; the last file takes what is left. Not with the other ways. 1 (each page its own file) when no way is given.",
				Min:         docmill.Bound(1),
				Max:         docmill.Bound(MaxPages),
			},
			{
				Name: byBookmarksParam,
				Type: docmill.TypeBoolean,
				Description: "true: one file per top-level bookmark, from its page to the page before the next one's, named by its number " +
					"and title; pages before the first bookmark make a file of their own (00-start). A document without bookmarks " +
					"to a page is refused. Not with the other ways.",
			},
			{
				Name: maxSizeParam,
				Type: docmill.TypeNumber,
				Description: "Parts of at most this many megabytes each, in page order, each as many pages as fit; a page that alone " +
					"makes a larger PDF is refused. Not with the other ways.",
				Min: docmill.Bound(0.1),
				Max: docmill.Bound(float64(maxSplitBytes >> 20)),
			},
		},
		CheckParams: checkSplitWays,
	}, model.COLLECT, runSplit)
}

// checkSplitWays refuses more than one way of cutting, naming the later
// one in the declaration's order.
func checkSplitWays(p docmill.Params) error {
	given := ""
	for _, name := range []string{rangesParam, everyParam, byBookmarksParam, maxSizeParam} {
		if !p.Has(name) || (name == byBookmarksParam && !p.Bool(name)) {
			continue
		}
		if given != "" {
			return docmill.ParamError(name, "cannot be combined with %s; give one way of splitting", given)
		}
		given = name
	}
	return nil
}

// splitPart is one file a split makes: its pages and the label its name
// ends with ("5", "8-12", "03-Results").
type splitPart struct {
	span
	label string
}

// runSplit copies each part's pages into a new document. One part is
// returned as a PDF; several are written, one at a time, into a zip
// archive, so that only one part is held in memory at once.
func runSplit(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	preparePageTree(doc)
	parts, err := cutParts(ctx, in.Params, doc, b.l.PDFPages)
	if err != nil {
		return nil, err
	}
	name := in.Files[0].Filename
	meta := map[string]any{"pages": doc.PageCount, "files": len(parts)}
	if len(parts) == 1 {
		return splitSingle(ctx, doc, parts[0], name, in.WorkDir, meta)
	}
	path := filepath.Join(in.WorkDir, "split.zip")
	if err := writeSplitZip(ctx, doc, parts, name, path); err != nil {
		return nil, err
	}
	return ziparchive.Result(path, docmill.ResultName(name, ".pdf", "-split.zip"), meta), nil
}

// cutParts cuts doc the way params ask (checkSplitWays let one through).
func cutParts(ctx context.Context, params docmill.Params, doc *model.Context, maxPages int) ([]splitPart, error) {
	var spans []span
	var err error
	switch {
	case params.Has(rangesParam):
		spans, err = rangeParts(params.PageRanges(rangesParam), doc.PageCount, maxPages)
	case params.Bool(byBookmarksParam):
		return bookmarkParts(doc)
	case params.Has(maxSizeParam):
		spans, err = sizeParts(ctx, doc, int64(params.Float(maxSizeParam)*(1<<20)))
	case params.Has(everyParam):
		spans, err = everyParts(params.Int(everyParam), doc.PageCount)
	default:
		spans, err = everyParts(1, doc.PageCount)
	}
	if err != nil {
		return nil, err
	}
	parts := make([]splitPart, len(spans))
	for i, s := range spans {
		parts[i] = splitPart{s, s.label()}
	}
	return parts, nil
}

// rangeParts makes one part per range, in the order given. Two ranges that
// resolve to the same pages ("3,3" or "8-,8-12" in a 12-page document)
// would give two files of the same name, so they are refused, as are
// parts of more than maxPages pages together.
func rangeParts(ranges []docmill.PageRange, pageCount, maxPages int) ([]span, error) {
	if len(ranges) > maxSplitFiles {
		return nil, docmill.ParamError(rangesParam, "lists %d ranges; a split makes at most %d files", len(ranges), maxSplitFiles)
	}
	parts, err := resolveSpans(rangesParam, ranges, pageCount)
	if err != nil {
		return nil, err
	}
	if n := totalPages(parts); n > maxPages {
		return nil, docmill.ParamError(rangesParam, "select %d pages in all; a split makes at most %d pages", n, maxPages)
	}
	seen := make(map[span]bool, len(parts))
	for _, p := range parts {
		if seen[p] {
			return nil, docmill.ParamError(rangesParam, "lists pages %s twice", p.label())
		}
		seen[p] = true
	}
	return parts, nil
}

// everyParts cuts the document into parts of every pages; the last part
// takes what is left.
func everyParts(every, pageCount int) ([]span, error) {
	if n := (pageCount + every - 1) / every; n > maxSplitFiles {
		return nil, docmill.ParamError(everyParam, "would split the %d pages into %d files; a split makes at most %d files, so use a larger value",
			pageCount, n, maxSplitFiles)
	}
	var parts []span
	for from := 1; from <= pageCount; from += every {
		parts = append(parts, span{from, min(from+every-1, pageCount)})
	}
	return parts, nil
}

// splitSingle returns a split's one part as a PDF.
func splitSingle(ctx context.Context, doc *model.Context, part splitPart, name, workDir string, meta map[string]any) (*docmill.RunOutput, error) {
	result, err := copyPages(doc, listPages([]span{part.span}))
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return writeOutput(result, workDir, "split.pdf", docmill.ResultName(name, ".pdf", "-"+part.label+".pdf"), meta)
}

// writeSplitZip writes each part of doc as an entry of a zip archive at
// path, named after name and the part's pages.
func writeSplitZip(ctx context.Context, doc *model.Context, parts []splitPart, name, path string) error {
	zw, err := ziparchive.Create(path, maxSplitBytes)
	if err != nil {
		return fmt.Errorf("pdfops: %w", err)
	}
	if err := writeSplitParts(ctx, zw, doc, parts, name); err != nil {
		zw.Close()
		return err
	}
	return zipError(zw.Close())
}

func writeSplitParts(ctx context.Context, zw *ziparchive.Writer, doc *model.Context, parts []splitPart, name string) error {
	dests := snapshotDests(doc)
	for _, part := range parts {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Each copy consumes the named destinations it carries (see
		// snapshotDests), so every part starts from the snapshot.
		restoreDests(doc, dests)
		result, err := copyPages(doc, listPages([]span{part.span}))
		if err != nil {
			return err
		}
		w, err := zw.Add(docmill.ResultName(name, ".pdf", "-"+part.label+".pdf"), true)
		if err != nil {
			return zipError(err)
		}
		if err := api.WriteContext(result, w); err != nil {
			return zipError(err)
		}
	}
	return nil
}

// zipError reports a failure to write the archive: file_too_large past
// maxSplitBytes, otherwise internal, since the parts themselves were
// built from a valid document and what fails is the disk.
func zipError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ziparchive.ErrTooLarge) {
		e := docmill.Errorf(docmill.CodeFileTooLarge,
			"The split files would total more than %s; split into fewer files or fewer pages.", megabytes(maxSplitBytes))
		e.Err = err
		return e
	}
	return fmt.Errorf("pdfops: write split archive: %w", err)
}
