package pdfops

import (
	"context"
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// maxFieldDepth bounds the nesting of an AcroForm field tree walked, as
// pdf-form-fields does: real forms nest a few levels, a hostile one may
// nest without end.
const maxFieldDepth = 32

func removeAnnotationsTool() *docmill.Tool {
	return onePDFTool(docmill.Tool{
		Slug: "remove-annotations",
		Meta: []docmill.MetaField{
			documentPages,
			{Name: "removed", Type: docmill.MetaInteger, Description: "Annotations removed."},
			{Name: "kept", Type: docmill.MetaInteger, Description: "Annotations kept on the selected pages (links, form fields)."},
			{Name: "form_removed", Type: docmill.MetaBoolean, Description: "Whether the form (AcroForm) was removed because no field was left."},
		},
		Title: "Remove PDF annotations",
		Description: "Remove the annotations of a PDF: comments, highlights, notes, stamps, drawings, file attachments and, " +
			"unless kept, links. The page content itself is not changed. Form fields are kept unless keep_forms is false.",
		Params: []docmill.Param{
			pagesParam(`Pages whose annotations are removed, such as "1-3,5,8-"`),
			{Name: keepLinksParam, Type: docmill.TypeBoolean, Default: "false",
				Description: "Keep link annotations (table of contents, web links); every annotation is removed by default."},
			{Name: keepFormsParam, Type: docmill.TypeBoolean, Default: "true",
				Description: "Keep the widgets of form fields, without which a form cannot be seen or filled. " +
					"When false they are removed too, with the fields left without any widget."},
		},
	}, model.REMOVEANNOTATIONS, runRemoveAnnotations)
}

// annotFilter says which annotations remove-annotations keeps.
type annotFilter struct {
	keepLinks, keepForms bool
}

// keeps reports whether the annotation of subtype sub stays.
func (f annotFilter) keeps(sub string) bool {
	return (f.keepLinks && sub == "Link") || (f.keepForms && sub == "Widget")
}

// runRemoveAnnotations drops the unwanted entries of the selected pages'
// /Annots. The annotation objects themselves are no longer written unless
// something else refers to them (a structure tree's OBJR, which a reader
// then ignores): unlike pdfcpu's own removal, the structure tree, and so
// the document's tagging, is kept.
func runRemoveAnnotations(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	ranges := in.Params.PageRanges(pagesName)
	filter := annotFilter{keepLinks: in.Params.Bool(keepLinksParam), keepForms: in.Params.Bool(keepFormsParam)}
	pages, err := docmill.Pages(ranges, doc.PageCount)
	if err != nil {
		return nil, docmill.ParamError(pagesName, "%s", err)
	}
	removedWidgets := map[int]bool{}
	removed, kept := 0, 0
	for _, p := range pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, k, err := filterPageAnnots(doc, p, filter, removedWidgets)
		if err != nil {
			return nil, docmill.InvalidDocument(err, "The annotations of page %d could not be read: the file is damaged.", p)
		}
		removed, kept = removed+r, kept+k
	}
	formRemoved := false
	if len(removedWidgets) > 0 {
		if formRemoved, err = pruneFormFields(doc, removedWidgets); err != nil {
			return nil, docmill.InvalidDocument(err, "The file's form could not be read: it is damaged.")
		}
	}
	return writeOutput(doc, in.WorkDir, "annotations-removed.pdf", docmill.ResultName(in.Files[0].Filename, ".pdf", "-no-annotations.pdf"),
		map[string]any{"pages": doc.PageCount, "removed": removed, "kept": kept, "form_removed": formRemoved})
}

// filterPageAnnots removes from page p's /Annots what filter does not
// keep, and returns how many it removed and kept. The object numbers of
// removed widgets are added to removedWidgets.
func filterPageAnnots(doc *model.Context, p int, filter annotFilter, removedWidgets map[int]bool) (removed, kept int, err error) {
	page, _, _, err := doc.PageDict(p, false)
	if err != nil {
		return 0, 0, err
	}
	if page == nil || page["Annots"] == nil {
		return 0, 0, nil
	}
	annots, err := doc.DereferenceArray(page["Annots"])
	if err != nil {
		return 0, 0, err
	}
	var keep types.Array
	for _, a := range annots {
		d, err := doc.DereferenceDict(a)
		if err != nil || d == nil { // a dangling or null entry: nothing to keep
			removed++
			continue
		}
		sub := ""
		if n := d.NameEntry("Subtype"); n != nil {
			sub = *n
		}
		if filter.keeps(sub) {
			keep = append(keep, a)
			continue
		}
		removed++
		if ref, ok := a.(types.IndirectRef); ok && sub == "Widget" {
			removedWidgets[ref.ObjectNumber.Value()] = true
		}
	}
	if len(keep) == 0 {
		delete(page, "Annots")
	} else {
		page["Annots"] = keep
	}
	return removed, len(keep), nil
}

// pruneFormFields removes from the AcroForm's field tree the widgets in
// removed, and the fields left without widgets; when no field is left the
// AcroForm goes too, so that viewers do not offer a form that cannot be
// seen. It reports whether the AcroForm was removed.
func pruneFormFields(doc *model.Context, removed map[int]bool) (bool, error) {
	root, err := doc.Catalog()
	if err != nil {
		return false, err
	}
	if root["AcroForm"] == nil {
		return false, nil
	}
	af, err := doc.DereferenceDict(root["AcroForm"])
	if err != nil || af == nil {
		return false, err
	}
	fields, err := doc.DereferenceArray(af["Fields"])
	if err != nil {
		return false, err
	}
	left, err := pruneFieldKids(doc, fields, removed, map[int]bool{}, 0)
	if err != nil {
		return false, err
	}
	if len(left) == 0 {
		delete(root, "AcroForm")
		return true, nil
	}
	af["Fields"] = left
	return false, nil
}

// pruneFieldKids returns kids without the removed widgets and without
// the fields whose kids were all removed. seen guards against cycles.
func pruneFieldKids(doc *model.Context, kids types.Array, removed, seen map[int]bool, depth int) (types.Array, error) {
	if depth > maxFieldDepth {
		return nil, fmt.Errorf("form field tree deeper than %d", maxFieldDepth)
	}
	var left types.Array
	for _, k := range kids {
		if ref, ok := k.(types.IndirectRef); ok {
			n := ref.ObjectNumber.Value()
			if removed[n] {
				continue
			}
			if seen[n] {
				continue // a cycle or a field listed twice: keep one
			}
			seen[n] = true
		}
		d, err := doc.DereferenceDict(k)
		if err != nil {
			return nil, err
		}
		if d == nil || d["Kids"] == nil {
			left = append(left, k)
			continue
		}
		sub, err := doc.DereferenceArray(d["Kids"])
		if err != nil {
			return nil, err
		}
		pruned, err := pruneFieldKids(doc, sub, removed, seen, depth+1)
		if err != nil {
			return nil, err
		}
		if len(pruned) == 0 && len(sub) > 0 {
			continue
		}
		d["Kids"] = pruned
		left = append(left, k)
	}
	return left, nil
}
