package pdfops

import (
	"context"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

func rotateTool() *docmill.Tool {
	return pagesTool(docmill.Tool{
		Slug:        "rotate-pdf",
		Title:       "Rotate PDF",
		Description: "Rotate all or some pages of a PDF clockwise by 90, 180 or 270 degrees.",
		Params: []docmill.Param{
			{
				Name:        angleParam,
				Type:        docmill.TypeInteger,
				Description: "Degrees to rotate clockwise, added to each page's current rotation.",
				Enum:        []string{"90", "180", "270"},
				Default:     "90",
				Example:     "180",
			},
		},
	}, rotated, `Pages to rotate, such as "1-3,5,8-"`, model.ROTATE, runRotate)
}

// runRotate adds the angle to the rotation of each selected page, so a page
// shown at 90 degrees and rotated by 90 ends at 180.
func runRotate(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	selected, _, err := selectedPages(in.Params, doc.PageCount)
	if err != nil {
		return nil, err
	}
	if err := pdfcpu.RotatePages(doc, selected, in.Params.Int(angleParam)); err != nil {
		return nil, docmill.InvalidDocument(err, "The file's pages could not be rotated: it is damaged or uses a structure this tool does not support.")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return rotated.output(doc, in, len(selected))
}
