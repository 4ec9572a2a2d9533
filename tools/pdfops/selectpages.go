package pdfops

import (
	"context"
	"path/filepath"

	docmill "github.com/docmill/docmill"
)

// SelectPagesStep is a step other tools take on a
// PDF an engine made from a user's document (LibreOffice's export,
// OCRmyPDF's output): it counts the pages and, when the "pages" param
// selects some, keeps only those, in the order given. It runs in the PDF
// helper like the public pdfcpu tools, so that such PDFs are not parsed
// in the server either, and within the same limits (Limits.PDFBytes and
// PDFPages). The output's meta holds "pages", the count of the
// result, and "input_pages", the document's own count; with no selection
// the output is the input itself.
func SelectPagesStep() *docmill.EngineStep {
	return pdfStep("select-pages", 1, 1, runSelectPages)
}

func runSelectPages(ctx context.Context, in *docmill.RunInput, b *budget) (out *docmill.RunOutput, err error) {
	f := in.Files[0]
	ranges := in.Params.PageRanges(pagesName)
	const label = "The converted document"
	if err := checkSizes(b, in.Files, "PDFs", func(int) string { return label }); err != nil {
		return nil, err
	}
	doc, err := readSource(ctx, b, f, label)
	if err != nil {
		return nil, err
	}
	out = &docmill.RunOutput{Path: f.Path, Filename: f.Filename, ContentType: pdfContentType,
		Meta: map[string]any{"pages": doc.PageCount, "input_pages": doc.PageCount}}
	if ranges == nil {
		return out, nil
	}
	sel, err := docmill.Pages(ranges, doc.PageCount)
	if err != nil {
		return nil, docmill.ParamError(pagesName, "%s", err.Error())
	}
	result, err := copyPages(doc, sel)
	if err != nil {
		return nil, err
	}
	out.Path = filepath.Join(in.WorkDir, "selected.pdf")
	if err := writeDocument(result, out.Path); err != nil {
		return nil, err
	}
	out.Meta["pages"] = len(sel)
	return out, nil
}
