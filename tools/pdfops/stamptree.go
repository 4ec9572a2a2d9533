package pdfops

import (
	"errors"
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// stampTreeFanout is the most kids balanceStampPageTree leaves on a page
// tree node.
const stampTreeFanout = 64

// balanceStampPageTree regroups page tree nodes with more than
// stampTreeFanout kids under new intermediate nodes, keeping the page
// order and what pages inherit (the new nodes carry no attributes).
//
// Why: pdfcpu stamps page by page, and finds each page by walking the tree
// from the root, skipping whole subtrees by their /Count but looking at
// every kid of the nodes on the way. On a flat tree -- one node with all
// the pages, as some producers write -- that is quadratic: numbering
// 10,000 such pages took over two minutes. Balanced, each lookup visits a
// few hundred nodes at most.
func balanceStampPageTree(doc *model.Context) error {
	root, err := doc.Pages()
	if err != nil {
		return err
	}
	if root == nil {
		return errors.New("no page tree")
	}
	_, err = balancePagesNode(doc, *root, map[int]bool{})
	return err
}

// balancePagesNode balances the subtree at ir and returns its page count.
// seen holds the nodes already on the walk, so a cycle fails rather than
// recursing forever.
func balancePagesNode(doc *model.Context, ir types.IndirectRef, seen map[int]bool) (int, error) {
	nr := ir.ObjectNumber.Value()
	if seen[nr] {
		return 0, fmt.Errorf("page tree node %d is its own descendant or shared", nr)
	}
	seen[nr] = true
	d, err := doc.DereferenceDict(ir)
	if err != nil || d == nil {
		return 0, errors.Join(fmt.Errorf("page tree node %d is not a dictionary", nr), err)
	}
	kidsObj, _ := d.Find("Kids")
	kids, err := doc.DereferenceArray(kidsObj)
	if err != nil {
		return 0, fmt.Errorf("page tree node %d kids: %w", nr, err)
	}
	counts := make([]int, len(kids))
	total := 0
	for i, k := range kids {
		kr, ok := k.(types.IndirectRef)
		if !ok {
			return 0, fmt.Errorf("page tree node %d: kid %d is not a reference", nr, i)
		}
		kd, err := doc.DereferenceDict(kr)
		if err != nil || kd == nil {
			return 0, errors.Join(fmt.Errorf("page tree node %d: kid %d is not a dictionary", nr, i), err)
		}
		counts[i] = 1
		if t := kd.Type(); t != nil && *t == "Pages" {
			if counts[i], err = balancePagesNode(doc, kr, seen); err != nil {
				return 0, err
			}
		}
		total += counts[i]
	}
	// The count pdfcpu skips subtrees by must match the walk.
	d["Count"] = types.Integer(total)
	if len(kids) <= stampTreeFanout {
		return total, nil
	}
	for len(kids) > stampTreeFanout {
		if kids, counts, err = groupPageKids(doc, ir, kids, counts, stampTreeFanout); err != nil {
			return 0, err
		}
	}
	d["Kids"] = kids
	return total, nil
}
