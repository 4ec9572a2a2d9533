package poppler

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// absPaths returns the absolute paths of a one-file run's input and work
// directory, as the engines are given them (the sandbox maps absolute
// paths into the jail).
func absPaths(in *docmill.RunInput) (src, dir string, err error) {
	if src, err = filepath.Abs(in.Files[0].Path); err != nil {
		return "", "", fmt.Errorf("poppler: input path: %w", err)
	}
	if dir, err = filepath.Abs(in.WorkDir); err != nil {
		return "", "", fmt.Errorf("poppler: work dir: %w", err)
	}
	return src, dir, nil
}

// selectedPages is the prologue of a one-file run that acts on the pages
// its "pages" param selects: it returns the absolute paths of the input
// and the work directory (absPaths), the pages selected, ascending, each
// once, and the document's page count, read by pdfinfo. A selection past
// the last page is invalid_parameter naming pages.
func selectedPages(ctx context.Context, pdfinfo *sandbox.Engine, in *docmill.RunInput) (src, dir string, pages []int, count int, err error) {
	if src, dir, err = absPaths(in); err != nil {
		return "", "", nil, 0, err
	}
	if count, _, err = pageInfo(ctx, pdfinfo, src, dir, 1); err != nil {
		return "", "", nil, 0, err
	}
	sel, err := docmill.Pages(in.Params.PageRanges(paramPages), count)
	if err != nil {
		return "", "", nil, 0, docmill.ParamError(paramPages, "%s", err)
	}
	slices.Sort(sel)
	return src, dir, slices.Compact(sel), count, nil
}
