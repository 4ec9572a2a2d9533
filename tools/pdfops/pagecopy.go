package pdfops

import (
	"context"
	"slices"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// readSource reads the document the page tools copy pages from, and
// prepares its page tree with preparePageTree.
//
// It reads under pdfcpu's COLLECT command for every tool, split-pdf
// included: pdfcpu writes documents made under SPLIT (and EXTRACTPAGES)
// with a "reduced feature set" that drops named destinations, which would
// break the links inside each part. COLLECT asks of an encrypted file the
// same permission as SPLIT (extracting content).
// An encrypted file that opens without a password is read; copyPages
// gives the copy its encryption.
func readSource(ctx context.Context, b *budget, f docmill.LocalFile, label string) (*model.Context, error) {
	doc, err := readDocument(ctx, b, f, newConfig(model.COLLECT), label)
	if err != nil {
		return nil, err
	}
	preparePageTree(doc)
	return doc, nil
}

// copyPages returns a new document made of doc's pages in the order of
// pages (1-based, existing, repeats allowed), built in memory by pdfcpu's
// ExtractPages, the function behind its own collect, split and remove
// commands.
//
// What a page carries comes with it: content, resources, effective
// rotation, media box, annotations (links, comments), form fields and the
// named destinations that point at copied pages. Document-level parts that
// describe the whole input (outline, page labels, attachments, metadata
// stream) are not carried, as they would point at pages that are gone.
// The encryption of doc, if any, is carried (carryEncryption).
// A repeated page becomes a separate page object, so the page tree stays
// valid; it shares its resources and annotations with its first copy.
//
// pdfcpu trims each page's resources to what its content stream uses, so a
// part does not carry the fonts and images of the whole document. That
// step parses the content stream and refuses some damaged ones a viewer
// still shows; on such a failure the copy is retried with the resources
// kept as they are, and later copies from doc keep them too.
func copyPages(doc *model.Context, pages []int) (*model.Context, error) {
	out, err := pdfcpu.ExtractPages(doc, pages, false)
	if err != nil && doc.Conf.OptimizeResourceDicts {
		doc.Conf.OptimizeResourceDicts = false
		out, err = pdfcpu.ExtractPages(doc, pages, false)
	}
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file's pages could not be copied: it is damaged or uses a structure this tool does not support.")
	}
	if err := carryEncryption(doc, out); err != nil {
		return nil, err
	}
	return out, nil
}

// namedDest is one entry of a document's named destinations, held as a
// direct object that refers to pages of the source document.
type namedDest struct {
	name  string
	value types.Object
}

// snapshotDests copies doc's named destinations out of the document.
//
// pdfcpu's ExtractPages rewrites the source's destination name tree in
// place: it drops the entries whose page was not copied and renumbers the
// rest to the new document's objects. Extracting twice from one document,
// as split-pdf does, would leave the second part with the first part's
// leftovers, pointing at unrelated objects. split-pdf therefore gives each
// part a fresh tree made by restoreDests from this snapshot. Entries that
// cannot be read are left out: a broken named destination only disables
// the links that use it.
func snapshotDests(doc *model.Context) []namedDest {
	tree := doc.Names["Dests"]
	if tree == nil {
		return nil
	}
	var out []namedDest
	_ = tree.Process(doc.XRefTable, func(xt *model.XRefTable, name string, v *types.Object) error {
		if v == nil || *v == nil {
			return nil
		}
		o, err := xt.Dereference(*v)
		if err != nil || o == nil {
			return nil
		}
		o = o.Clone()
		// A destination dictionary's /D array may be indirect; pdfcpu only
		// follows it when it is direct.
		if d, ok := o.(types.Dict); ok {
			if dv, found := d.Find("D"); found {
				if a, err := xt.DereferenceArray(dv); err == nil && a != nil {
					d["D"] = a.Clone()
				}
			}
		}
		out = append(out, namedDest{name, o})
		return nil
	})
	// A damaged tree may be out of order or repeat a name; the first
	// entry of a name wins, as a lookup in the tree would find it.
	slices.SortStableFunc(out, func(a, b namedDest) int { return strings.Compare(a.name, b.name) })
	return slices.CompactFunc(out, func(a, b namedDest) bool { return a.name == b.name })
}

// restoreDests gives doc a fresh destination name tree holding a copy of
// dests, or none when dests is empty. The tree is a single leaf (a name
// tree's leaves may hold any number of entries) with its entries sorted
// and its key limits set: pdfcpu's removal of an entry relies on both.
func restoreDests(doc *model.Context, dests []namedDest) {
	if len(dests) == 0 {
		delete(doc.Names, "Dests")
		return
	}
	tree := &model.Node{D: types.NewDict(), Kmin: dests[0].name, Kmax: dests[len(dests)-1].name}
	for _, d := range dests {
		tree.AppendToNames(d.name, d.value.Clone())
	}
	if doc.Names == nil {
		doc.Names = map[string]*model.Node{}
	}
	doc.Names["Dests"] = tree
}
