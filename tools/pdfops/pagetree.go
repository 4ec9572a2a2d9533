package pdfops

import (
	"errors"
	"maps"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// inheritable lists the page attributes a page takes from its ancestors in
// the page tree when it does not set them itself (ISO 32000-1, 7.7.3.4).
var inheritable = []string{"Resources", "MediaBox", "CropBox", "Rotate"}

// Page tree shape. pdfcpu finds page N by walking the tree from the root,
// counting pages, and skips a subtree only by its /Count. In a flat tree,
// which many producers write, finding a page costs a look at every page
// before it: reordering a 10,000-page document of empty pages took 30 s,
// splitting it 50 s, and real pages cost more. A flat tree is rebuilt with
// nodes of at most pageTreeFanout kids, which makes a lookup cost a few
// dozen steps (the same document then takes 1 s and 2 s).
const (
	// flatPageTree is the number of kids of one node past which a tree
	// is rebuilt.
	flatPageTree = 64
	// pageTreeFanout is the number of kids of each node of a rebuilt tree.
	pageTreeFanout = 32
)

// preparePageTree readies doc, in memory, for pdfcpu's page copy.
//
// First, every page gets the inherited attributes it does not set itself.
// pdfcpu's copy carries the inherited media box and resources, but drops
// an inherited crop box and a negative inherited rotation (-90), which
// would change how the copied page looks. Then, with every page standing
// alone, a flat tree can be rebuilt (see flatPageTree) without changing
// any page.
//
// doc itself is never written, so nothing here reaches an output except
// through the pages copied from it. A tree that does not have the shape
// pdfcpu's own walk sees (a page count that differs, a kid that is not a
// reference) is left as it is.
func preparePageTree(doc *model.Context) {
	root, err := doc.Pages()
	if err != nil || root == nil {
		return
	}
	leaves, flat, ok := pushInheritedAttrs(doc, *root)
	if ok && flat && len(leaves) == doc.PageCount {
		rebuildPageTree(doc, *root, leaves)
	}
}

// pageTreeNode is a node waiting to be visited, with the attributes its
// ancestors pass down.
type pageTreeNode struct {
	ref       types.IndirectRef
	inherited types.Dict
}

// pushInheritedAttrs walks the page tree from root as pdfcpu does, writes
// into each page the inheritable attributes it lacks, and returns the
// pages in order; flat reports whether a node has more than flatPageTree
// kids, ok whether the tree has the regular shape rebuildPageTree needs.
func pushInheritedAttrs(doc *model.Context, root types.IndirectRef) (leaves []types.IndirectRef, flat, ok bool) {
	ok = true
	stack := []pageTreeNode{{ref: root, inherited: types.Dict{}}}
	seen := map[int]bool{}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		// Validation has refused cycles; a node reached twice would be
		// counted twice by pdfcpu, so the tree is not rebuilt.
		if seen[n.ref.ObjectNumber.Value()] {
			ok = false
			continue
		}
		seen[n.ref.ObjectNumber.Value()] = true
		d, err := doc.DereferenceDict(n.ref)
		if err != nil || d == nil {
			ok = false
			continue
		}
		inherited := n.inherited
		if n.ref != root && pageNodeType(d) == "Page" {
			for _, key := range inheritable {
				if v, found := d.Find(key); (!found || v == nil) && inherited[key] != nil {
					d[key] = inherited[key]
				}
			}
			leaves = append(leaves, n.ref)
			continue
		}
		// A shallow copy: values are shared, never changed, only replaced.
		inherited = maps.Clone(inherited)
		for _, key := range inheritable {
			if v, found := d.Find(key); found && v != nil {
				inherited[key] = v
			}
		}
		kids, err := doc.DereferenceArray(d["Kids"])
		if err != nil || kids == nil {
			ok = false
			continue
		}
		flat = flat || len(kids) > flatPageTree
		for i := len(kids) - 1; i >= 0; i-- {
			ref, isRef := kids[i].(types.IndirectRef)
			if !isRef {
				ok = false
				continue
			}
			kid, err := doc.DereferenceDict(ref)
			if err != nil || kid == nil {
				ok = false
				continue
			}
			// pdfcpu skips kids that are neither pages nor page nodes.
			if t := pageNodeType(kid); t == "Page" || t == "Pages" {
				stack = append(stack, pageTreeNode{ref, inherited})
			} else {
				ok = false
			}
		}
	}
	return leaves, flat, ok
}

// pageNodeType returns the type of a page tree node as pdfcpu's walk
// decides it: its /Type, or in relaxed mode "Pages" for an untyped node
// with /Count and /Kids.
func pageNodeType(d types.Dict) string {
	if t := d.Type(); t != nil {
		return *t
	}
	_, hasCount := d.Find("Count")
	_, hasKids := d.Find("Kids")
	if hasCount && hasKids {
		return "Pages"
	}
	return ""
}

// rebuildPageTree replaces the tree under root with a balanced one over
// leaves, in order. The old intermediate nodes are left unreferenced.
// Every leaf holds its inheritable attributes (pushInheritedAttrs), so the
// root's are removed: no page takes them from there any more.
func rebuildPageTree(doc *model.Context, root types.IndirectRef, leaves []types.IndirectRef) {
	rootDict, err := doc.DereferenceDict(root)
	if err != nil || rootDict == nil {
		return
	}
	level := refArray(leaves)
	counts := make([]int, len(leaves))
	for i := range counts {
		counts[i] = 1
	}
	for len(level) > pageTreeFanout {
		if level, counts, err = groupPageKids(doc, root, level, counts, pageTreeFanout); err != nil {
			return
		}
	}
	for _, key := range inheritable {
		delete(rootDict, key)
	}
	rootDict["Kids"] = level
	rootDict["Count"] = types.Integer(len(leaves))
	setParents(doc, level, root)
}

func refArray(refs []types.IndirectRef) types.Array {
	a := make(types.Array, len(refs))
	for i, r := range refs {
		a[i] = r
	}
	return a
}

func setParents(doc *model.Context, kids types.Array, parent types.IndirectRef) {
	for _, k := range kids {
		if d, err := doc.DereferenceDict(k); err == nil && d != nil {
			d["Parent"] = parent
		}
	}
}

// groupPageKids puts kids (of the node at parent, with their page counts)
// under new nodes of up to fanout kids each, and returns the new nodes
// and their counts: one level of a balanced page tree. A kid that is not
// a dictionary fails it.
func groupPageKids(doc *model.Context, parent types.IndirectRef, kids types.Array, counts []int, fanout int) (types.Array, []int, error) {
	var nodes types.Array
	var nodeCounts []int
	for start := 0; start < len(kids); start += fanout {
		end := min(start+fanout, len(kids))
		n := 0
		for _, c := range counts[start:end] {
			n += c
		}
		ref, err := doc.IndRefForNewObject(types.Dict{
			"Type":   types.Name("Pages"),
			"Parent": parent,
			"Kids":   slices.Clone(kids[start:end]),
			"Count":  types.Integer(n),
		})
		if err != nil {
			return nil, nil, err
		}
		for _, k := range kids[start:end] {
			kd, err := doc.DereferenceDict(k)
			if err != nil || kd == nil {
				return nil, nil, errors.Join(errors.New("page tree kid is not a dictionary"), err)
			}
			kd["Parent"] = *ref
		}
		nodes = append(nodes, *ref)
		nodeCounts = append(nodeCounts, n)
	}
	return nodes, nodeCounts, nil
}
