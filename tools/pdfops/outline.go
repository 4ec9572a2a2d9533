package pdfops

import (
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// Bounds of an outline as read from a document, which may be hostile: an
// outline item list may loop (/Next back to an earlier item, /First
// pointing at an ancestor) or be made huge to cost memory. Items already
// seen are not followed again, so a loop ends; past these bounds the
// document is refused. They are wider than what edit-bookmarks writes
// (docmill.MaxBookmarks), so that real documents' outlines are listed.
const (
	maxOutlineItems = 20_000
	maxOutlineDepth = 32
)

// outlineEntry is one bookmark as pdf-bookmarks lists it. Page is nil
// when the bookmark goes to no page of the document (a web link, another
// file, a destination that does not resolve).
type outlineEntry struct {
	Title    string         `json:"title"`
	Page     *int           `json:"page"`
	Children []outlineEntry `json:"children"`
}

// outlineReader walks a document's outline within the bounds.
type outlineReader struct {
	doc    *model.Context
	pageOf map[int]int // page object number → page number
	seen   map[int]bool
	count  int
}

// readOutline returns doc's outline; a document without one gives an
// empty list.
func readOutline(doc *model.Context) ([]outlineEntry, error) {
	root, err := doc.Catalog()
	if err != nil {
		return nil, err
	}
	entries := []outlineEntry{}
	o, found := root.Find("Outlines")
	if !found {
		return entries, nil
	}
	outlines, err := doc.DereferenceDict(o)
	if err != nil || outlines == nil {
		return entries, err
	}
	// Named destinations are looked up in the Dests name tree; a
	// document whose tree cannot be read still lists its titles.
	_ = doc.LocateNameTree("Dests", false)
	pageOf, err := pageNumbers(doc)
	if err != nil {
		return nil, err
	}
	r := &outlineReader{doc: doc, pageOf: pageOf, seen: map[int]bool{}}
	if ref, ok := o.(types.IndirectRef); ok {
		r.seen[ref.ObjectNumber.Value()] = true // an item's /First may point back up here
	}
	return r.items(outlines["First"], 1)
}

// pageNumbers maps the object number of every page of doc to its number.
func pageNumbers(doc *model.Context) (map[int]int, error) {
	m := make(map[int]int, doc.PageCount)
	for p := 1; p <= doc.PageCount; p++ {
		_, ref, _, err := doc.PageDict(p, false)
		if err != nil {
			return nil, err
		}
		if ref != nil {
			m[ref.ObjectNumber.Value()] = p
		}
	}
	return m, nil
}

// items lists the item at first and its siblings (/Next), at depth.
func (r *outlineReader) items(first types.Object, depth int) ([]outlineEntry, error) {
	out := []outlineEntry{}
	for o := first; o != nil; {
		ref, ok := o.(types.IndirectRef)
		if !ok || r.seen[ref.ObjectNumber.Value()] {
			break // outline items are indirect; a seen one closes a loop
		}
		r.seen[ref.ObjectNumber.Value()] = true
		if depth > maxOutlineDepth {
			return nil, fmt.Errorf("outline nested deeper than %d levels", maxOutlineDepth)
		}
		if r.count++; r.count > maxOutlineItems {
			return nil, fmt.Errorf("outline of more than %d items", maxOutlineItems)
		}
		d, err := r.doc.DereferenceDict(ref)
		if err != nil || d == nil {
			break
		}
		title, _ := r.doc.DereferenceText(d["Title"])
		e := outlineEntry{Title: title, Page: r.page(d)}
		if e.Children, err = r.items(d["First"], depth+1); err != nil {
			return nil, err
		}
		out = append(out, e)
		o = d["Next"]
	}
	return out, nil
}

// page resolves an outline item's destination (/Dest, or a GoTo action's
// /D) to a page number of the document, or nil.
func (r *outlineReader) page(item types.Dict) *int {
	dest, ok := item["Dest"]
	if !ok {
		a, err := r.doc.DereferenceDict(item["A"])
		if err != nil || a == nil || a.NameEntry("S") == nil || *a.NameEntry("S") != "GoTo" {
			return nil
		}
		dest = a["D"]
	}
	arr, err := r.destArray(dest)
	if err != nil || len(arr) == 0 {
		return nil
	}
	switch target := arr[0].(type) {
	case types.IndirectRef:
		if p, ok := r.pageOf[target.ObjectNumber.Value()]; ok {
			return &p
		}
	case types.Integer: // a page index, as some producers write it
		if p := target.Value() + 1; p >= 1 && p <= r.doc.PageCount {
			return &p
		}
	}
	return nil
}

// destArray returns the explicit destination of dest: dest itself, or
// what a named destination (a name or a string) stands for.
func (r *outlineReader) destArray(dest types.Object) (types.Array, error) {
	dest, err := r.doc.Dereference(dest)
	if err != nil {
		return nil, err
	}
	switch d := dest.(type) {
	case types.Array:
		return d, nil
	case types.Dict: // a destination dictionary: its /D
		return r.doc.DereferenceArray(d["D"])
	case types.Name:
		return r.doc.DereferenceDestArray(d.Value())
	case types.StringLiteral, types.HexLiteral:
		s, err := model.Text(d)
		if err != nil {
			return nil, err
		}
		return r.doc.DereferenceDestArray(s)
	}
	return nil, fmt.Errorf("destination of type %T", dest)
}

// writeOutline replaces doc's outline with bookmarks, whose pages exist
// (checkBookmarkPages); an empty list removes it. Each item goes to its
// page, the whole page in view (/Fit). Items are closed, so a viewer
// shows the top level until the reader opens one.
func writeOutline(doc *model.Context, bookmarks []docmill.Bookmark) error {
	root, err := doc.Catalog()
	if err != nil {
		return err
	}
	delete(root, "Outlines")
	doc.Outlines = nil
	if len(bookmarks) == 0 {
		return nil
	}
	pages := make([]types.IndirectRef, doc.PageCount+1)
	for p := 1; p <= doc.PageCount; p++ {
		_, ref, _, err := doc.PageDict(p, false)
		if err != nil || ref == nil {
			return fmt.Errorf("page %d: %v", p, err)
		}
		pages[p] = *ref
	}
	outlines := types.Dict{"Type": types.Name("Outlines")}
	ref, err := doc.IndRefForNewObject(outlines)
	if err != nil {
		return err
	}
	if err := writeItems(doc, pages, bookmarks, *ref, outlines); err != nil {
		return err
	}
	outlines["Count"] = types.Integer(len(bookmarks)) // the top level is visible
	root["Outlines"] = *ref
	doc.Outlines = outlines
	return nil
}

// writeItems makes the items of list, children of the item (or outline
// root) parent whose dictionary is parentDict, and links them in.
func writeItems(doc *model.Context, pages []types.IndirectRef, list []docmill.Bookmark, parent types.IndirectRef, parentDict types.Dict) error {
	var prev types.Dict
	var prevRef *types.IndirectRef
	for _, b := range list {
		title, err := types.EscapedUTF16String(b.Title)
		if err != nil {
			return err
		}
		d := types.Dict{
			"Title":  types.StringLiteral(*title),
			"Parent": parent,
			"Dest":   types.Array{pages[b.Page], types.Name("Fit")},
		}
		ref, err := doc.IndRefForNewObject(d)
		if err != nil {
			return err
		}
		if prev == nil {
			parentDict["First"] = *ref
		} else {
			prev["Next"] = *ref
			d["Prev"] = *prevRef
		}
		if len(b.Children) > 0 {
			if err := writeItems(doc, pages, b.Children, *ref, d); err != nil {
				return err
			}
			// Closed: minus the items that opening it shows.
			d["Count"] = types.Integer(-len(b.Children))
		}
		prev, prevRef = d, ref
	}
	parentDict["Last"] = *prevRef
	return nil
}

// checkBookmarkPages refuses, naming field, a bookmark that goes past
// the document's last page.
func checkBookmarkPages(field string, list []docmill.Bookmark, pageCount int) error {
	for _, b := range list {
		if b.Page > pageCount {
			return docmill.ParamError(field, "has bookmark %q on page %d, but the document has %d pages", b.Title, b.Page, pageCount)
		}
		if err := checkBookmarkPages(field, b.Children, pageCount); err != nil {
			return err
		}
	}
	return nil
}
