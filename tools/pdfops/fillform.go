package pdfops

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/formvalues"
)

// More field flags (ISO 32000-1, 12.7.4.3 and 12.7.4.4).
const (
	flagComboEdit   = 1 << 18
	flagMultiSelect = 1 << 21
)

// maxNamesListed bounds the field names one error message lists.
const maxNamesListed = 20

// FillFormStep is fill-pdf-form's first step,
// run in the PDF helper since it parses a user's document: it sets the
// values of the form fields named in the param formvalues.Param (the
// names pdf-form-fields lists), checked against each field's kind and
// options, and asks viewers to draw the fields again from their values
// (/NeedAppearances); fill-pdf-form then has qpdf generate those
// appearances when it can (meta "latin1"). When a value is beyond
// Latin-1 (Cyrillic, say), qpdf cannot: this step then draws the text
// and choice fields filled itself, with the stamp font
// (drawFieldAppearances), and turns /NeedAppearances off, so that qpdf
// leaves them. Its output is the filled PDF, with "pages", "fields" (how
// many were filled), "latin1" and "undrawn" (widgets of filled fields
// left without an appearance, their rectangle empty or past a page's
// size, for viewers to draw) in meta.
func FillFormStep() *docmill.EngineStep {
	return onePDFStep("fill-pdf-form-values", model.FILLFORMFIELDS, runFillForm)
}

func runFillForm(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	values, err := formvalues.Parse(in.Params.String(formvalues.Param))
	if err != nil {
		return nil, err
	}
	nodes, err := walkFormFields(doc)
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file's form could not be read: it is damaged or uses a structure this tool does not support.")
	}
	byName := map[string][]*fieldNode{}
	for _, n := range nodes {
		byName[n.name] = append(byName[n.name], n)
	}
	if err := checkNames(values, byName); err != nil {
		return nil, err
	}
	latin1 := true
	var texts []drawnField // filled fields whose appearance shows text
	for _, name := range values.Names() {
		v := values[name]
		for _, n := range byName[name] {
			if err := fillField(doc, n, v); err != nil {
				return nil, docmill.ParamError(formvalues.Param, "field %q: %s", name, err)
			}
			if typ := fieldType(n.ft, n.flags); typ != "checkbox" && typ != "radio" {
				texts = append(texts, drawnField{node: n, text: drawnText(n, v.Text, v.List)})
			}
			latin1 = latin1 && isLatin1(v)
		}
	}
	if err := needAppearances(doc); err != nil {
		return nil, docmill.InvalidDocument(err, "The file's form could not be read: it is damaged.")
	}
	undrawn := 0
	if !latin1 {
		drawn, err := drawFieldAppearances(ctx, doc, texts, acroFormDA(doc))
		if err != nil {
			return nil, err
		}
		for _, f := range texts {
			undrawn += len(f.node.widgets)
		}
		undrawn -= drawn
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return writeOutput(doc, in.WorkDir, "filled.pdf", docmill.ResultName(in.Files[0].Filename, ".pdf", "-filled.pdf"),
		map[string]any{"pages": doc.PageCount, "fields": len(values), "latin1": latin1, "undrawn": undrawn})
}

// acroFormDA is doc's AcroForm's default appearance string, which a
// field without its own /DA inherits; "" when it has none.
func acroFormDA(doc *model.Context) string {
	root, err := doc.Catalog()
	if err != nil {
		return ""
	}
	af, err := doc.DereferenceDict(root["AcroForm"])
	if err != nil || af == nil {
		return ""
	}
	if s, ok := af["DA"].(types.StringLiteral); ok {
		return s.Value()
	}
	return ""
}

// isLatin1 reports whether v's text is all Latin-1, which qpdf draws in
// a form's standard fonts; beyond it qpdf draws question marks.
func isLatin1(v formvalues.Value) bool {
	for _, s := range append([]string{v.Text}, v.List...) {
		for _, r := range s {
			if r > 0xff {
				return false
			}
		}
	}
	return true
}

// checkNames refuses values naming fields the form does not have, listing
// them (up to maxNamesListed).
func checkNames(values formvalues.Values, byName map[string][]*fieldNode) error {
	var unknown []string
	for _, name := range values.Names() {
		if len(byName[name]) == 0 {
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	if len(byName) == 0 {
		return docmill.ParamError(formvalues.Param, "names fields, but the document has no form fields")
	}
	more := ""
	if len(unknown) > maxNamesListed {
		more = fmt.Sprintf(" and %d more", len(unknown)-maxNamesListed)
		unknown = unknown[:maxNamesListed]
	}
	return docmill.ParamError(formvalues.Param, "names fields the form does not have: %s%s (pdf-form-fields lists the form's fields)",
		strings.Join(unknown, ", "), more)
}

// fillField sets field n to v, as its kind takes values; an error says
// what is wrong with v for it.
func fillField(doc *model.Context, n *fieldNode, v formvalues.Value) error {
	if n.flags&flagReadOnly != 0 {
		return fmt.Errorf("is read-only")
	}
	typ := fieldType(n.ft, n.flags)
	if v.IsList && typ != "list" {
		return fmt.Errorf("takes one value, not a list")
	}
	switch typ {
	case "text":
		return fillText(doc, n, v.Text)
	case "checkbox", "radio":
		return fillButton(doc, n, typ, v.Text)
	case "combo", "list":
		return fillChoice(doc, n, typ, v)
	}
	return fmt.Errorf("is a %s field, which cannot be filled", typ)
}

// pdfText encodes s as a PDF text string: PDFDocEncoding when it is
// printable ASCII, UTF-16 otherwise.
func pdfText(s string) (types.StringLiteral, error) {
	enc := types.Escape
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			enc = types.EscapedUTF16String
			break
		}
	}
	e, err := enc(s)
	if err != nil {
		return "", err
	}
	return types.StringLiteral(*e), nil
}

func fillText(doc *model.Context, n *fieldNode, s string) error {
	if o, ok := n.dict.Find("MaxLen"); ok {
		if m, err := doc.DereferenceInteger(o); err == nil && m != nil && len([]rune(s)) > m.Value() {
			return fmt.Errorf("takes at most %d characters", m.Value())
		}
	}
	v, err := pdfText(s)
	if err != nil {
		return fmt.Errorf("cannot be written to a PDF: %w", err)
	}
	n.dict["V"] = v
	return nil
}

// fillButton sets a check box ("true", "false" or an on state's name) or
// a radio group (an option's name): the field's value, and the state each
// widget shows.
func fillButton(doc *model.Context, n *fieldNode, typ, s string) error {
	opts := fieldOptions(doc, typ, n)
	state := s
	switch {
	case typ == "checkbox" && (s == "false" || s == "Off"):
		state = "Off"
	case typ == "checkbox" && s == "true" && len(opts) > 0:
		state = opts[0]
	case typ == "radio" && s == "Off": // no option chosen

	case !slices.Contains(opts, s):
		return fmt.Errorf("%q is not one of its options (%s)", s, optionList(typ, opts))
	}
	n.dict["V"] = types.Name(state)
	for _, w := range n.widgets {
		if slices.Contains(onStates(doc, w), state) {
			w["AS"] = types.Name(state)
		} else {
			w["AS"] = types.Name("Off")
		}
	}
	return nil
}

// optionList names a field's options in an error message.
func optionList(typ string, opts []string) string {
	quoted := make([]string, len(opts))
	for i, o := range opts {
		quoted[i] = fmt.Sprintf("%q", o)
	}
	if typ == "checkbox" {
		quoted = append(quoted, "true", "false")
	}
	if len(quoted) == 0 {
		return "none"
	}
	return strings.Join(quoted, ", ")
}

// fillChoice sets a combo box (an option, or any text when it is
// editable) or a list box (an option, or several as a list when it allows
// several): the value, and for a list box the selected indices.
func fillChoice(doc *model.Context, n *fieldNode, typ string, v formvalues.Value) error {
	opts := fieldOptions(doc, typ, n)
	chosen := []string{v.Text}
	if v.Text == "" && !v.IsList || v.IsList && len(v.List) == 0 { // nothing chosen
		delete(n.dict, "V")
		delete(n.dict, "I")
		return nil
	}
	if v.IsList {
		if n.flags&flagMultiSelect == 0 && len(v.List) > 1 {
			return fmt.Errorf("takes one option, not several")
		}
		chosen = v.List
	}
	var indices types.Array
	for _, c := range chosen {
		i := slices.Index(opts, c)
		if i < 0 && !(typ == "combo" && n.flags&flagComboEdit != 0) {
			return fmt.Errorf("%q is not one of its options (%s)", c, optionList(typ, opts))
		}
		if i >= 0 && !slices.Contains(indices, types.Object(types.Integer(i))) {
			indices = append(indices, types.Integer(i))
		}
	}
	var value types.Object
	if v.IsList {
		a := types.Array{}
		for _, c := range chosen {
			s, err := pdfText(c)
			if err != nil {
				return fmt.Errorf("cannot be written to a PDF: %w", err)
			}
			a = append(a, s)
		}
		value = a
	} else {
		s, err := pdfText(v.Text)
		if err != nil {
			return fmt.Errorf("cannot be written to a PDF: %w", err)
		}
		value = s
	}
	n.dict["V"] = value
	delete(n.dict, "I")
	if typ == "list" && len(indices) > 0 {
		slices.SortFunc(indices, func(a, b types.Object) int { return int(a.(types.Integer)) - int(b.(types.Integer)) })
		n.dict["I"] = indices
	}
	return nil
}

// needAppearances marks the document's form as needing its fields drawn
// again from their values.
func needAppearances(doc *model.Context) error {
	root, err := doc.Catalog()
	if err != nil {
		return err
	}
	af, err := doc.DereferenceDict(root["AcroForm"])
	if err != nil || af == nil {
		return fmt.Errorf("no AcroForm dictionary: %v", err)
	}
	af["NeedAppearances"] = types.Boolean(true)
	return nil
}
