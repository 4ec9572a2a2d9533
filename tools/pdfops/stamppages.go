package pdfops

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// prepareStampPages readies each page in pages for pdfcpu's stamping and
// returns a function that undoes what must not stay: call it once the
// stamps are on.
//
// Contents: pdfcpu stamps a page by editing its (first) content stream in
// place. Producers often share one content stream between identical pages
// (corpus file habibi-rotated.pdf has four pages on one stream), and
// pdfcpu would then put every page's stamp on all of them. Each page gets
// a copy of the stream instead; the copy shares the encoded bytes, which
// pdfcpu replaces rather than edits. An original no page uses any more is
// not written, since pdfcpu writes only the objects reachable from the
// document catalog.
//
// Rotation: the page is given an explicit /Rotate 0 while it is stamped,
// so that pdfcpu draws in the page's unturned frame (textStamp.place has
// turned the stamp to suit) instead of baking the rotation into the
// content; the undo function puts back the page's own /Rotate entry, or
// its absence, so it shows as before.
func prepareStampPages(doc *model.Context, pages []int) (undo func(), err error) {
	type rotation struct {
		page  types.Dict
		entry types.Object // nil: the page had none
	}
	var rotations []rotation
	undo = func() {
		for _, r := range rotations {
			delete(r.page, "Rotate")
			if r.entry != nil {
				r.page["Rotate"] = r.entry
			}
		}
	}
	for _, p := range pages {
		d, _, attrs, err := doc.PageDict(p, false)
		if err != nil || d == nil || attrs == nil {
			undo()
			return nil, errors.Join(fmt.Errorf("page %d", p), err)
		}
		if err := ownPageContents(doc, d); err != nil {
			undo()
			return nil, fmt.Errorf("page %d contents: %w", p, err)
		}
		if attrs.Rotate%360 != 0 {
			entry, _ := d.Find("Rotate")
			rotations = append(rotations, rotation{d, entry})
			d["Rotate"] = types.Integer(0)
		}
	}
	return undo, nil
}

// ownPageContents gives the page d content streams of its own where
// pdfcpu's stamping edits them.
func ownPageContents(doc *model.Context, d types.Dict) error {
	o, found := d.Find("Contents")
	if !found || o == nil {
		return nil
	}
	if ir, ok := o.(types.IndirectRef); ok {
		var err error
		if o, err = doc.Dereference(ir); err != nil {
			return err
		}
		if _, ok := o.(types.StreamDict); ok {
			own, err := copyContentStream(doc, ir)
			if err != nil {
				return err
			}
			d["Contents"] = *own
			return nil
		}
	}
	// An array of streams, direct or not: pdfcpu edits its first stream
	// and may append one, so the page gets its own array too.
	a, ok := o.(types.Array)
	if !ok || len(a) == 0 {
		return nil
	}
	a = slices.Clone(a)
	if ir, ok := a[0].(types.IndirectRef); ok {
		own, err := copyContentStream(doc, ir)
		if err != nil {
			return err
		}
		a[0] = *own
	}
	d["Contents"] = a
	return nil
}

// copyContentStream adds a copy of the stream at ir to doc and returns
// its reference; anything but a stream is returned as it is, for pdfcpu
// to report.
func copyContentStream(doc *model.Context, ir types.IndirectRef) (*types.IndirectRef, error) {
	o, err := doc.Dereference(ir)
	if err != nil {
		return nil, err
	}
	sd, ok := o.(types.StreamDict)
	if !ok {
		return &ir, nil
	}
	c := sd.Clone().(types.StreamDict)
	if len(c.FilterPipeline) == 0 {
		// Clone turns a nil pipeline into an empty one, which Decode
		// takes for a pipeline that produced nothing.
		c.FilterPipeline = nil
	}
	// Clip, so that an append to either copy's bytes cannot write into
	// the other's.
	c.Raw = slices.Clip(c.Raw)
	c.Content = slices.Clip(c.Content)
	return doc.IndRefForNewObject(c)
}
