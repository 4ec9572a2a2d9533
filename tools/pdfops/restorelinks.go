package pdfops

import (
	"context"
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// maxLinks bounds the links one run restores, so that a hostile document
// cannot make the output unbounded.
const maxLinks = 100_000

// RestoreLinksStep is flatten-pdf's last step,
// run in the PDF helper since it parses a user's document: Ghostscript,
// which draws the annotations into the pages, drops the link annotations
// (they have nothing to draw), and this step puts them back. It takes
// the document before flattening, then the flattened one, which must
// have the same pages, and copies each web link (a URI action) and
// internal link (to a page of the document, named destinations
// resolved) of the first onto the same page of the second, rebuilt from
// plain values so that nothing else of the first comes along. Links of
// other kinds (to other files, scripts) are not copied. Its output is
// the flattened document with its links, with "pages" and "links" in
// meta. With the param drawn_by_qpdf "true" (the flattened file is
// qpdf's), a flattened file that does not show what Ghostscript's would
// (undrawnByQPDF) is returned as it is, with "undrawn" in meta counting
// why, for the caller to flatten with Ghostscript instead.
func RestoreLinksStep() *docmill.EngineStep {
	return pdfStep("flatten-restore-links", 2, 2, runRestoreLinks)
}

func runRestoreLinks(ctx context.Context, in *docmill.RunInput, b *budget) (out *docmill.RunOutput, err error) {
	label := func(i int) string { return []string{theFile, "The flattened file"}[i] }
	if err := checkSizes(b, in.Files, "PDFs", label); err != nil {
		return nil, err
	}
	src, err := readDocument(ctx, b, in.Files[0], newConfig(model.ADDANNOTATIONS), label(0))
	if err != nil {
		return nil, err
	}
	dst, err := readDocument(ctx, b, in.Files[1], newConfig(model.ADDANNOTATIONS), label(1))
	if err != nil {
		return nil, err
	}
	if src.PageCount != dst.PageCount {
		return nil, fmt.Errorf("pdfops: restore links: %d pages, flattened %d", src.PageCount, dst.PageCount)
	}
	if in.Params.Bool(drawnByQPDFParam) {
		if n := undrawnByQPDF(src, dst); n > 0 {
			flat := in.Files[1]
			return &docmill.RunOutput{Path: flat.Path, Filename: flat.Filename, ContentType: pdfContentType,
				Meta: map[string]any{"pages": dst.PageCount, "undrawn": n}}, nil
		}
	}
	l, err := newLinker(src, dst)
	if err != nil {
		return nil, err
	}
	n := 0
	for p := 1; p <= dst.PageCount && n < maxLinks; p++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		added, err := l.copyPageLinks(dst, p, maxLinks-n)
		if err != nil {
			return nil, err
		}
		n += added
	}
	meta := map[string]any{"pages": dst.PageCount, "links": n}
	if n == 0 { // nothing to put back: the flattened file is the output
		flat := in.Files[1]
		return &docmill.RunOutput{Path: flat.Path, Filename: flat.Filename, ContentType: pdfContentType, Meta: meta}, nil
	}
	return writeOutput(dst, in.WorkDir, "linked.pdf", in.Files[1].Filename, meta)
}

// linker copies links from src: pageOf maps the object number of each of
// its pages to the page's number, dstPages are the pages they go to.
type linker struct {
	src      *model.Context
	pageOf   map[int]int
	dstPages []types.IndirectRef
}

// newLinker returns the linker of links from src to the same pages of
// dst, which has as many (src itself when links stay in their document),
// src's named destinations located.
func newLinker(src, dst *model.Context) (*linker, error) {
	if err := src.LocateNameTree("Dests", false); err != nil {
		return nil, docmill.InvalidDocument(err, "The file's named destinations could not be read: it is damaged.")
	}
	l := &linker{src: src, pageOf: map[int]int{}}
	for p := 1; p <= dst.PageCount; p++ {
		sr, err := src.PageDictIndRef(p)
		if err != nil {
			return nil, docmill.InvalidDocument(err, "The file's pages could not be read: it is damaged.")
		}
		dr, err := dst.PageDictIndRef(p)
		if err != nil {
			return nil, fmt.Errorf("pdfops: restore links: flattened page %d: %w", p, err)
		}
		l.pageOf[sr.ObjectNumber.Value()] = p
		l.dstPages = append(l.dstPages, *dr)
	}
	return l, nil
}

// copyPageLinks adds up to max links of src's page p to dst's page p and
// returns how many it added.
func (l *linker) copyPageLinks(dst *model.Context, p, max int) (int, error) {
	sd, _, _, err := l.src.PageDict(p, false)
	if err != nil {
		return 0, docmill.InvalidDocument(err, "The file's pages could not be read: it is damaged.")
	}
	annots, _ := l.src.DereferenceArray(sd["Annots"])
	var links types.Array
	for _, a := range annots {
		if len(links) == max {
			break
		}
		d, err := l.src.DereferenceDict(a)
		if err != nil || d == nil || d.Subtype() == nil || *d.Subtype() != "Link" {
			continue
		}
		if link := l.link(d); link != nil {
			ir, err := dst.IndRefForNewObject(link)
			if err != nil {
				return 0, fmt.Errorf("pdfops: restore links: %w", err)
			}
			links = append(links, *ir)
		}
	}
	if len(links) == 0 {
		return 0, nil
	}
	dd, _, _, err := dst.PageDict(p, false)
	if err != nil {
		return 0, fmt.Errorf("pdfops: restore links: flattened page %d: %w", p, err)
	}
	existing, _ := dst.DereferenceArray(dd["Annots"])
	dd["Annots"] = append(append(types.Array{}, existing...), links...)
	return len(links), nil
}

// link rebuilds link annotation a from plain values: its rectangle, and
// a URI action or a destination in the document; nil when it is neither.
func (l *linker) link(a types.Dict) types.Dict {
	rect, err := l.src.DereferenceArray(a["Rect"])
	if err != nil || len(rect) != 4 {
		return nil
	}
	r := make(types.Array, 4)
	for i, o := range rect {
		v, err := l.src.DereferenceNumber(o)
		if err != nil {
			return nil
		}
		r[i] = types.Float(v)
	}
	d := types.Dict{"Type": types.Name("Annot"), "Subtype": types.Name("Link"), "Rect": r,
		"Border": types.Array{types.Integer(0), types.Integer(0), types.Integer(0)}}
	if dest := l.dest(a["Dest"]); dest != nil {
		d["Dest"] = dest
		return d
	}
	act, err := l.src.DereferenceDict(a["A"])
	if err != nil || act == nil {
		return nil
	}
	switch s := act.NameEntry("S"); {
	case s != nil && *s == "URI":
		uri, err := l.src.Dereference(act["URI"])
		switch uri.(type) {
		case types.StringLiteral, types.HexLiteral:
			if err == nil {
				d["A"] = types.Dict{"S": types.Name("URI"), "URI": uri}
				return d
			}
		}
	case s != nil && *s == "GoTo":
		if dest := l.dest(act["D"]); dest != nil {
			d["Dest"] = dest
			return d
		}
	}
	return nil
}

// dest returns destination o (explicit, or named and resolved) rebuilt
// for the flattened document, or nil.
func (l *linker) dest(o types.Object) types.Array {
	o, err := l.src.Dereference(o)
	if err != nil || o == nil {
		return nil
	}
	var arr types.Array
	switch v := o.(type) {
	case types.Array:
		arr = v
	case types.Dict: // a named destination's value may be << /D [...] >>
		arr, _ = l.src.DereferenceArray(v["D"])
	case types.Name, types.StringLiteral, types.HexLiteral:
		name := v.String()
		if n, ok := v.(types.Name); ok {
			name = n.Value()
		} else if s, err := l.src.DereferenceText(v); err == nil {
			name = s
		}
		arr, _ = l.src.DereferenceDestArray(name)
	}
	if len(arr) < 2 {
		return nil
	}
	ref, ok := arr[0].(types.IndirectRef)
	if !ok {
		return nil
	}
	p, ok := l.pageOf[ref.ObjectNumber.Value()]
	if !ok {
		return nil
	}
	out := types.Array{l.dstPages[p-1]}
	for _, e := range arr[1:] {
		e, _ = l.src.Dereference(e)
		switch e.(type) {
		case types.Name, types.Integer, types.Float, nil:
			out = append(out, e)
		default:
			return nil
		}
	}
	return out
}
