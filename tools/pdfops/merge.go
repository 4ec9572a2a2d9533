package pdfops

import (
	"cmp"
	"context"
	"fmt"
	"strconv"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

func mergeTool() *docmill.Tool {
	return pdfTool(docmill.Tool{
		Slug:        "merge-pdf",
		Meta:        []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the merged document."}, {Name: "files", Type: docmill.MetaInteger, Description: "Documents merged."}},
		Title:       "Merge PDF",
		Description: "Combine several PDFs into one, in the order they are uploaded.",
		MinFiles:    2,
		MaxFiles:    50,
		Params:      []docmill.Param{mergeBookmarksParam},
	}, runMerge)
}

// runMerge appends the pages of every input to the first, in upload order.
// Each input's outline (bookmarks) is kept as it is, or under a bookmark
// of its own (mergeBookmarksParam). The merged document keeps the
// encryption of the first input that has one (mergedEncryption).
func runMerge(ctx context.Context, in *docmill.RunInput, b *budget) (out *docmill.RunOutput, err error) {
	files := in.Files
	label := func(i int) string {
		return fmt.Sprintf("File %d (%q)", i+1, files[i].Filename)
	}
	if err := checkSizes(b, files, "PDFs", label); err != nil {
		return nil, err
	}

	mode := cmp.Or(in.Params.String(bookmarksParam), mergeKeepOutlines)
	conf := mergeConfig(mode)
	srcs := make([]*model.Context, len(files))
	var outlines []inputOutline
	for i, f := range files {
		if srcs[i], err = readDocument(ctx, b, f, conf, label(i)); err != nil {
			return nil, err
		}
		if mode != mergeKeepOutlines {
			o, err := readInputOutline(srcs[i], mode, f.Filename)
			if err != nil {
				return nil, err
			}
			outlines = append(outlines, o)
		}
	}
	keep, err := mergedEncryption(srcs)
	if err != nil {
		return nil, err
	}
	dest := srcs[0]
	if keep != nil && keep != dest {
		// Before the merge, which renumbers keep's objects.
		if err := carryEncryption(keep, dest); err != nil {
			return nil, err
		}
	}
	if dest.XRefTable.Version() < model.V20 {
		dest.EnsureVersionForWriting()
	}
	for i, src := range srcs[1:] {
		if err := appendDocument(dest, src, i+1, label(i+1), b.l.PDFPages); err != nil {
			return nil, err
		}
		srcs[i+1] = nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if mode != mergeKeepOutlines {
		if err := writeMergedOutline(dest, outlines); err != nil {
			return nil, err
		}
	}
	if conf.OptimizeBeforeWriting {
		if err := api.OptimizeContext(dest); err != nil {
			return nil, docmill.InvalidDocument(err, "The merged document could not be built: one of the files is damaged.")
		}
	}

	return writeOutput(dest, in.WorkDir, "merged.pdf", "merged.pdf", map[string]any{"pages": dest.PageCount, "files": len(files)})
}

// mergeConfig returns the configuration for reading documents to merge
// by mode: pdfcpu keeps each input's outline as it is, or, when runMerge
// writes the outline itself, leaves them.
func mergeConfig(mode string) *model.Configuration {
	conf := newConfig(model.MERGECREATE)
	conf.CreateBookmarks = mode == mergeKeepOutlines
	conf.MergeBookmarkMode = model.MergeBookmarkModePreserve
	return conf
}

// writeMergedOutline gives dest, merged from inputs, an outline of a
// bookmark per input with the input's own outline under it.
func writeMergedOutline(dest *model.Context, inputs []inputOutline) error {
	list, err := wrappedOutline(inputs)
	if err != nil {
		return err
	}
	if err := writeOutline(dest, list); err != nil {
		return docmill.InvalidDocument(err, "The merged document's bookmarks could not be written: one of the files is damaged.")
	}
	return nil
}

// appendDocument appends src, the input at index i, to dest, refusing a
// result of more than maxPages pages (Limits.PDFPages).
func appendDocument(dest, src *model.Context, i int, label string, maxPages int) error {
	if total := dest.PageCount + src.PageCount; total > maxPages {
		return docmill.InvalidDocument(nil, "The merged document would have %d pages; this tool makes documents of up to %d pages.", total, maxPages)
	}
	if dest.XRefTable.Version() < model.V20 && src.XRefTable.Version() == model.V20 {
		return docmill.InvalidDocument(nil, "%s is a PDF 2.0 file, which cannot be appended to an older PDF; upload it first.", label)
	}
	if err := pdfcpu.MergeXRefTables(strconv.Itoa(i), src, dest, false, false); err != nil {
		return docmill.InvalidDocument(err, "%s could not be merged: it is damaged or uses a structure this tool does not support.", label)
	}
	return nil
}
