package pdfops

import (
	"fmt"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// Field flags of an AcroForm field (ISO 32000-1, 12.7.3.1 and 12.7.4).
const (
	flagReadOnly   = 1 << 0
	flagRequired   = 1 << 1
	flagRadio      = 1 << 15
	flagPushButton = 1 << 16
	flagCombo      = 1 << 17
)

// maxFormFields bounds the fields listed, so that a hostile field tree
// cannot make the output unbounded.
const maxFormFields = 10_000

// formField is one AcroForm field as pdf-form-fields lists it.
type formField struct {
	Name     string    `json:"name"`
	Type     string    `json:"type"`
	Value    any       `json:"value"`
	Options  []string  `json:"options,omitempty"`
	Required bool      `json:"required"`
	ReadOnly bool      `json:"read_only"`
	Page     int       `json:"page,omitempty"`
	Rect     []float64 `json:"rect,omitempty"`
}

func formFieldsTool() *docmill.Tool {
	return listingTool(docmill.Tool{
		Slug:        "pdf-form-fields",
		Title:       "PDF form fields",
		Description: "List the fillable form fields of a PDF as JSON: name, type, value, options, required, read-only, page and position.",
		Meta:        []docmill.MetaField{documentPages, {Name: "fields", Type: docmill.MetaInteger, Description: "Form fields listed."}},
	}, model.LISTFORMFIELDS, "fields", listFormFields)
}

// listFormFields lists the document's AcroForm fields, as
// pdf-form-fields writes them in its JSON object {"fields": [...]}; a
// document without a form gives an empty list.
func listFormFields(doc *model.Context) (any, int, error) {
	fields, err := collectFormFields(doc)
	if err != nil {
		return nil, 0, docmill.InvalidDocument(err, "The file's form could not be read: it is damaged or uses a structure this tool does not support.")
	}
	return fields, len(fields), nil
}

// fieldNode is a terminal AcroForm field: its dictionary, its widgets and
// the attributes it inherits.
type fieldNode struct {
	name    string
	dict    types.Dict
	ft      string
	flags   int
	value   types.Object
	widgets []types.Dict
	refs    []int // object numbers of the widgets, 0 when direct
}

// walkFormFields returns the terminal fields of doc's AcroForm in
// document order, with fully qualified names.
func walkFormFields(doc *model.Context) ([]*fieldNode, error) {
	root, err := doc.Catalog()
	if err != nil {
		return nil, err
	}
	o, found := root.Find("AcroForm")
	if !found {
		return nil, nil
	}
	af, err := doc.DereferenceDict(o)
	if err != nil || af == nil {
		return nil, err
	}
	kids, err := doc.DereferenceArray(af["Fields"])
	if err != nil {
		return nil, err
	}
	w := &fieldWalk{doc: doc, seen: map[int]bool{}}
	return w.out, w.walk(kids, fieldNode{}, 0)
}

// fieldWalk is walkFormFields' walk of the field tree: each object is
// visited once, whatever the tree's references say, to at most 32
// levels and maxFormFields fields.
type fieldWalk struct {
	doc  *model.Context
	seen map[int]bool
	out  []*fieldNode
}

// walk visits kids, the fields below parent (whose name, type, flags and
// value they inherit), at depth.
func (w *fieldWalk) walk(kids types.Array, parent fieldNode, depth int) error {
	if depth > 32 {
		return fmt.Errorf("form field tree deeper than 32")
	}
	for _, k := range kids {
		if ref, ok := k.(types.IndirectRef); ok {
			if w.seen[ref.ObjectNumber.Value()] {
				continue
			}
			w.seen[ref.ObjectNumber.Value()] = true
		}
		d, err := w.doc.DereferenceDict(k)
		if err != nil {
			return err
		}
		if d == nil {
			continue
		}
		f := w.inherit(d, parent)
		sub, err := w.doc.DereferenceArray(d["Kids"])
		if err != nil {
			return err
		}
		fieldKids, err := w.widgets(sub, &f)
		if err != nil {
			return err
		}
		if len(fieldKids) > 0 {
			if err := w.walk(fieldKids, f, depth+1); err != nil {
				return err
			}
			continue
		}
		if len(sub) == 0 {
			f.widgets, f.refs = []types.Dict{d}, []int{objNr(k)}
		}
		if len(w.out) >= maxFormFields {
			return fmt.Errorf("more than %d form fields", maxFormFields)
		}
		w.out = append(w.out, &f)
	}
	return nil
}

// inherit is the field d below parent: its qualified name, and its own
// type, flags and value where it has them, else parent's.
func (w *fieldWalk) inherit(d types.Dict, parent fieldNode) fieldNode {
	f := fieldNode{name: parent.name, dict: d, ft: parent.ft, flags: parent.flags, value: parent.value}
	if t, err := w.doc.DereferenceText(d["T"]); err == nil && d["T"] != nil {
		if f.name != "" {
			f.name += "."
		}
		f.name += t
	}
	if n := d.NameEntry("FT"); n != nil {
		f.ft = *n
	}
	if o, ok := d.Find("Ff"); ok {
		if i, err := w.doc.DereferenceInteger(o); err == nil && i != nil {
			f.flags = i.Value()
		}
	}
	if o, ok := d.Find("V"); ok {
		f.value = o
	}
	return f
}

// widgets sorts a field's kids: those with a name are fields, returned;
// those without are the field's widgets, added to f.
func (w *fieldWalk) widgets(kids types.Array, f *fieldNode) (fields types.Array, err error) {
	for _, k := range kids {
		kd, err := w.doc.DereferenceDict(k)
		if err != nil {
			return nil, err
		}
		if kd == nil {
			continue
		}
		if _, named := kd.Find("T"); named {
			fields = append(fields, k)
			continue
		}
		f.widgets = append(f.widgets, kd)
		f.refs = append(f.refs, objNr(k))
	}
	return fields, nil
}

func objNr(o types.Object) int {
	if ref, ok := o.(types.IndirectRef); ok {
		return ref.ObjectNumber.Value()
	}
	return 0
}

// fieldType names a field's kind as pdf-form-fields lists it.
func fieldType(ft string, flags int) string {
	switch ft {
	case "Tx":
		return "text"
	case "Btn":
		switch {
		case flags&flagPushButton != 0:
			return "button"
		case flags&flagRadio != 0:
			return "radio"
		}
		return "checkbox"
	case "Ch":
		if flags&flagCombo != 0 {
			return "combo"
		}
		return "list"
	case "Sig":
		return "signature"
	}
	return "unknown"
}

// collectFormFields lists doc's form fields.
func collectFormFields(doc *model.Context) ([]formField, error) {
	nodes, err := walkFormFields(doc)
	if err != nil {
		return nil, err
	}
	pageOf, err := widgetPages(doc)
	if err != nil {
		return nil, err
	}
	fields := make([]formField, 0, len(nodes))
	for _, n := range nodes {
		f := formField{
			Name: n.name, Type: fieldType(n.ft, n.flags),
			Required: n.flags&flagRequired != 0, ReadOnly: n.flags&flagReadOnly != 0,
		}
		f.Value = fieldValue(doc, f.Type, n.value)
		f.Options = fieldOptions(doc, f.Type, n)
		if len(n.widgets) > 0 {
			f.Page = pageOf[n.refs[0]]
			f.Rect = rectOf(doc, n.widgets[0])
		}
		fields = append(fields, f)
	}
	return fields, nil
}

// widgetPages maps the object number of every annotation to its page.
func widgetPages(doc *model.Context) (map[int]int, error) {
	m := map[int]int{}
	for p := 1; p <= doc.PageCount; p++ {
		d, _, _, err := doc.PageDict(p, false)
		if err != nil {
			return nil, err
		}
		annots, err := doc.DereferenceArray(d["Annots"])
		if err != nil {
			continue
		}
		for _, a := range annots {
			if nr := objNr(a); nr != 0 {
				if _, ok := m[nr]; !ok {
					m[nr] = p
				}
			}
		}
	}
	return m, nil
}

func rectOf(doc *model.Context, w types.Dict) []float64 {
	a, err := doc.DereferenceArray(w["Rect"])
	if err != nil || len(a) != 4 {
		return nil
	}
	r := make([]float64, 4)
	for i, o := range a {
		v, err := doc.DereferenceNumber(o)
		if err != nil {
			return nil
		}
		r[i] = v
	}
	return r
}

// fieldValue returns a field's value: a string, a list of strings for a
// list box with several selected, a bool for a check box, or nil.
func fieldValue(doc *model.Context, typ string, v types.Object) any {
	o, err := doc.Dereference(v)
	if err != nil || o == nil {
		if typ == "checkbox" {
			return false
		}
		return nil
	}
	switch o := o.(type) {
	case types.Name:
		if typ == "checkbox" {
			return o.Value() != "Off"
		}
		if o.Value() == "Off" {
			return nil
		}
		return o.Value()
	case types.Array:
		var vs []string
		for _, e := range o {
			if s, err := doc.DereferenceText(e); err == nil {
				vs = append(vs, s)
			}
		}
		return vs
	}
	if s, err := doc.DereferenceText(o); err == nil {
		return s
	}
	return nil
}

// fieldOptions returns the choices of a choice field, or the states other
// than Off of a check box's or radio group's widgets.
func fieldOptions(doc *model.Context, typ string, n *fieldNode) []string {
	var opts []string
	switch typ {
	case "combo", "list":
		a, _ := doc.DereferenceArray(n.dict["Opt"])
		for _, e := range a {
			e, _ = doc.Dereference(e)
			if pair, ok := e.(types.Array); ok && len(pair) > 0 {
				e, _ = doc.Dereference(pair[0])
			}
			if s, err := doc.DereferenceText(e); err == nil {
				opts = append(opts, s)
			}
		}
	case "checkbox", "radio":
		for _, w := range n.widgets {
			for _, s := range onStates(doc, w) {
				if !slices.Contains(opts, s) {
					opts = append(opts, s)
				}
			}
		}
	}
	return opts
}

// onStates returns the appearance states of widget w other than Off.
func onStates(doc *model.Context, w types.Dict) []string {
	ap, err := doc.DereferenceDict(w["AP"])
	if err != nil || ap == nil {
		return nil
	}
	var states []string
	for _, key := range []string{"N", "D"} {
		d, err := doc.DereferenceDict(ap[key])
		if err != nil || d == nil {
			continue
		}
		for k := range d {
			if k != "Off" && !slices.Contains(states, k) {
				states = append(states, k)
			}
		}
	}
	slices.Sort(states)
	return states
}
