package ghostscript

import (
	"context"
	"fmt"
	"path/filepath"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/formvalues"
)

// fillTool declares fill-pdf-form. It lives here rather than among the
// pdfcpu tools because every run needs qpdf (to draw the fields from
// their new values) and, with flatten, Ghostscript; the filling itself
// is pdfcpu's, the step Fill, run in the PDF helper.
func (e *engines) fillTool() *docmill.Tool {
	return e.tool(docmill.Tool{
		Slug: "fill-pdf-form",
		Lane: docmill.LaneRender,
		Meta: []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."},
			{Name: "fields", Type: docmill.MetaInteger, Description: "Form fields filled."},
			{Name: "flattened", Type: docmill.MetaBoolean, Description: "Whether the form was flattened (flatten)."},
			{Name: "appearances_generated", Type: docmill.MetaBoolean, Description: "Whether the fields filled were drawn from their new values in the file (by qpdf, or, for values beyond Latin-1, with docmill's own font); false when a widget could not be drawn and is left to viewers."}},
		Title: "Fill PDF form",
		Description: "Fill in the form fields of a PDF: text fields, check boxes, radio buttons, combo and list boxes, " +
			"by the names pdf-form-fields lists. With flatten, the values are drawn into the pages and the form removed.",
		Params: []docmill.Param{
			{
				Name: formvalues.Param, Type: docmill.TypeString, Required: true, Max: docmill.Bound(64000),
				Description: `A JSON object of field names to values: text for a text field, true or false (or its on state) ` +
					`for a check box, the chosen option for a radio group or a combo box, a list of options for a list box ` +
					`that takes several; such as {"Name": "Jane Roe", "Agree": true, "Size": "M"}. ` +
					`A name the form does not have, or a value not among a field's options, is refused.`,
				Example: `{"Name": "Jane Roe"}`,
				Check:   formvalues.Check,
			},
			{Name: paramFlatten, Type: docmill.TypeBoolean, Default: "false",
				Description: "Draw the filled fields into the pages and remove the form, so the values can no longer be changed."},
		},
		Engine:    "pdfcpu",
		Available: func() bool { return e.steps.Fill != nil && e.available() },
		Run:       e.runFill,
	})
}

// runFill fills the fields in the PDF helper (which refuses unknown names and
// values a field does not take), then has qpdf generate the fields'
// appearances from their new values, so that every viewer shows them,
// not only those that honour /NeedAppearances; with flatten, the form is
// flattened as flatten-pdf does instead.
//
// qpdf draws only Latin-1 text (it writes "?" for the rest): when a
// value is beyond Latin-1 the step has drawn the filled fields itself,
// with a font that has Cyrillic and Greek, and qpdf is left out (with
// flatten, it only draws the fields nobody filled, if they lack an
// appearance).
func (e *engines) runFill(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	if e.steps.Fill == nil {
		return nil, failure(sandbox.ErrUnavailable, msgDamaged)
	}
	if _, err := e.checkInput(ctx, in.Files[0], in.WorkDir); err != nil {
		return nil, err
	}
	filled, err := e.steps.Fill(ctx, in)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(in.WorkDir, "form.pdf")
	flatten := in.Params.Bool(paramFlatten)
	pages := filled.Meta["pages"]
	latin1 := filled.Meta["latin1"] == true
	// A count, an int here or a float64 back from the PDF helper.
	generated := latin1 || fmt.Sprint(filled.Meta["undrawn"]) == "0"
	switch {
	case !latin1 && !flatten:
		out = filled.Path
	case flatten:
		if out, pages, err = e.flatten(ctx, in, filled.Path); err != nil {
			return nil, err
		}
	default:
		_, err := e.qpdf.Run(ctx, sandbox.Cmd{Dir: in.WorkDir, Args: []string{"--generate-appearances", filled.Path, out}})
		if err = qpdfOK(err); err != nil {
			return nil, failure(err, msgDamaged)
		}
	}
	return pdfResult(in, out, "-filled.pdf", map[string]any{
		"pages": pages, "fields": filled.Meta["fields"], "flattened": flatten, "appearances_generated": generated}), nil
}
