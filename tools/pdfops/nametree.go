package pdfops

import (
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// maxNameTreeNodes bounds the nodes of one name tree that loopingNameTree
// walks; a real tree of a few million names has a few thousand nodes.
const maxNameTreeNodes = 1 << 20

// loopingNameTree reports the first name tree of the catalog's /Names
// (EmbeddedFiles, Dests, JavaScript, ...), or number tree (PageLabels,
// the structure tree's ParentTree), whose /Kids reach a node twice:
// a node that is its own ancestor, or a kid of two parents. pdfcpu's
// validation walks name trees without remembering the nodes it saw and
// recurses into a looping one, with a depth bound but once per path:
// two kids each looping back make 2^depth visits, which kept the helper
// busy past every timeout, so readDocument refuses
// such a document before validation.
func loopingNameTree(doc *model.Context) (string, bool) {
	root, err := doc.Catalog()
	if err != nil {
		return "", false
	}
	// The number trees pdfcpu validates alike.
	if !treeWalks(doc, root["PageLabels"]) {
		return "PageLabels", true
	}
	if st, err := doc.DereferenceDict(root["StructTreeRoot"]); err == nil && st != nil && !treeWalks(doc, st["ParentTree"]) {
		return "ParentTree", true
	}
	names, err := doc.DereferenceDict(root["Names"])
	if err != nil || names == nil {
		return "", false
	}
	for key, tree := range names {
		if !treeWalks(doc, tree) {
			return key, true
		}
	}
	return "", false
}

// treeWalks reports whether the name tree at node reaches no node twice
// within maxNameTreeNodes nodes.
func treeWalks(doc *model.Context, node types.Object) bool {
	seen := map[int]bool{}
	stack := []types.Object{node}
	for len(stack) > 0 {
		o := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if ref, ok := o.(types.IndirectRef); ok {
			nr := ref.ObjectNumber.Value()
			if seen[nr] || len(seen) >= maxNameTreeNodes {
				return false
			}
			seen[nr] = true
		}
		d, err := doc.DereferenceDict(o)
		if err != nil || d == nil {
			continue
		}
		kids, err := doc.DereferenceArray(d["Kids"])
		if err != nil {
			continue
		}
		stack = append(stack, kids...)
	}
	return true
}
