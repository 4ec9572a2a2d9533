package pdfops

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// This file holds what the layout tools (resize-pdf, nup-pdf,
// booklet-pdf, insert-pages) share: named and custom page sizes, and the
// bound on the page content they copy.

// paperSizes are the named page sizes, in points, portrait.
var paperSizes = map[string]types.Dim{
	"a3":     {Width: 841.89, Height: 1190.55},
	"a4":     {Width: 595.28, Height: 841.89},
	"a5":     {Width: 419.53, Height: 595.28},
	"letter": {Width: 612, Height: 792},
	"legal":  {Width: 612, Height: 1008},
}

// Bounds of a custom page size, in millimetres: 10 mm, and PDF's largest
// page (14,400 units, 200 inches).
const (
	minPageMM = 10
	maxPageMM = 5080
)

// customPageSize reads "210x297" (millimetres, width first; "x", "X" or
// "×" between, spaces allowed, decimals with a point).
var customPageSize = regexp.MustCompile(`^\s*(\d+(?:\.\d+)?)\s*[xX×]\s*(\d+(?:\.\d+)?)\s*$`)

// pageSizeParam declares a "page_size" param: a named size or a custom
// one in millimetres, a4 by default. what says what the size is of.
func pageSizeParam(what string) docmill.Param {
	return docmill.Param{
		Name: pageSizeName,
		Type: docmill.TypeString,
		Description: what + `: a4, a3, a5, letter, legal, or width x height in millimetres such as "210x297"; ` +
			"a4 by default.",
		Default: "a4",
		Max:     docmill.Bound(32),
		Check: func(v string) error {
			_, err := parsePageSize(v)
			return err
		},
	}
}

// parsePageSize returns the size a page_size value names, in points, or
// a ParamError naming page_size.
func parsePageSize(v string) (types.Dim, error) {
	if d, ok := paperSizes[strings.ToLower(strings.TrimSpace(v))]; ok {
		return d, nil
	}
	m := customPageSize.FindStringSubmatch(v)
	if m == nil {
		return types.Dim{}, docmill.ParamError(pageSizeName, `must be a4, a3, a5, letter, legal, or width x height in millimetres such as "210x297"`)
	}
	w, errW := strconv.ParseFloat(m[1], 64)
	h, errH := strconv.ParseFloat(m[2], 64)
	if errW != nil || errH != nil || w < minPageMM || h < minPageMM || w > maxPageMM || h > maxPageMM {
		return types.Dim{}, docmill.ParamError(pageSizeName, "sides must be between %d and %d millimetres", minPageMM, maxPageMM)
	}
	const pointsPerMM = 72 / 25.4
	return types.Dim{Width: w * pointsPerMM, Height: h * pointsPerMM}, nil
}

// pageSizeOf returns the validated page_size param in points. It passed
// the param's Check, so it parses; a value that does not is a caller that
// skipped ParseParams.
func pageSizeOf(p docmill.Params) types.Dim {
	d, err := parsePageSize(p.String(pageSizeName))
	if err != nil {
		panic(fmt.Sprintf("pdfops: page_size was not validated: %v", err))
	}
	return d
}

// checkCopiedContent bounds the page content a layout tool is about to
// copy. pdfcpu's resize, n-up and booklet decode the content of each page
// they place and store a fresh copy of it, so a stream shared by many
// pages (a hostile document's thousands of pages on one large stream) is
// held once per page; checkDecodedSize, which counts each stream once,
// does not bound that. The content of pages, counted once per use, must
// fit in what is left of the run's decoding allowance.
func checkCopiedContent(ctx context.Context, b *budget, doc *model.Context, pages []int, label string) error {
	left := b.l.JobDecodedBytes - b.decoded
	sizes := map[int]int64{} // decoded size by object number
	var total int64
	for _, p := range pages {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, _, _, err := doc.PageDict(p, false)
		if err != nil || d == nil {
			return docmill.InvalidDocument(err, "%s has a page that could not be read: it is damaged.", label)
		}
		for _, ref := range contentRefs(doc, d) {
			nr := ref.ObjectNumber.Value()
			n, seen := sizes[nr]
			if !seen {
				if sd, _, err := doc.DereferenceStreamDict(ref); err == nil && sd != nil {
					n, _ = decodedSize(*sd, b.l.StreamDecodedBytes)
				}
				sizes[nr] = n
			}
			total += n
			if total > left {
				return docmill.LimitExceeded(fmt.Sprintf("%s has more page content than this tool copies (%d MB)", label, b.l.JobDecodedBytes>>20))
			}
		}
	}
	b.decoded += total
	return nil
}

// contentRefs returns the references to the content streams of the page
// d; direct streams are not allowed by PDF and not counted.
func contentRefs(doc *model.Context, d types.Dict) []types.IndirectRef {
	o, found := d.Find("Contents")
	if !found || o == nil {
		return nil
	}
	if ir, ok := o.(types.IndirectRef); ok {
		deref, err := doc.Dereference(ir)
		if err != nil {
			return nil
		}
		if _, isStream := deref.(types.StreamDict); isStream {
			return []types.IndirectRef{ir}
		}
		o = deref
	}
	a, ok := o.(types.Array)
	if !ok {
		return nil
	}
	var refs []types.IndirectRef
	for _, e := range a {
		if ir, ok := e.(types.IndirectRef); ok {
			refs = append(refs, ir)
		}
	}
	return refs
}

// selectedPages resolves the "pages" param against doc: the selected pages
// ascending, each once, as pdfcpu's page set.
func selectedPages(p docmill.Params, pageCount int) (types.IntSet, []int, error) {
	pages, err := docmill.Pages(p.PageRanges(pagesName), pageCount)
	if err != nil {
		return nil, nil, docmill.ParamError(pagesName, "%s", err)
	}
	set := types.IntSet{}
	for _, n := range pages {
		set[n] = true
	}
	sorted := make([]int, 0, len(set))
	for n := 1; n <= pageCount; n++ {
		if set[n] {
			sorted = append(sorted, n)
		}
	}
	return set, sorted, nil
}
