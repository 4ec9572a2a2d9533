package office

import (
	"context"
	"os"
	"path/filepath"

	docmill "github.com/docmill/docmill"
)

// docFormat is a format convert-document writes: its enum value (also the
// result's extension), the family of documents it fits, its content type,
// and LibreOffice's export filter and options.
type docFormat struct {
	ext         string
	fam         family
	contentType string
	export      string
	options     string
}

// docFormats are the formats convert-document writes, in the catalogue's
// order: text documents, then spreadsheets, then presentations.
var docFormats = []docFormat{
	{"docx", text, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "MS Word 2007 XML", ""},
	{"odt", text, "application/vnd.oasis.opendocument.text", "writer8", ""},
	{"rtf", text, "application/rtf", "Rich Text Format", ""},
	{"txt", text, "text/plain", "Text (encoded)", "UTF8"},
	{"epub", text, "application/epub+zip", "EPUB", ""},
	{"xlsx", spreadsheet, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "Calc MS Excel 2007 XML", ""},
	{"ods", spreadsheet, "application/vnd.oasis.opendocument.spreadsheet", "calc8", ""},
	// Comma-separated, fields quoted with ", UTF-8 (76), from line 1.
	{"csv", spreadsheet, "text/csv", "Text - txt - csv (StarCalc)", "44,34,76,1"},
	{"pptx", presentation, "application/vnd.openxmlformats-officedocument.presentationml.presentation", "Impress MS PowerPoint 2007 XML", ""},
	{"odp", presentation, "application/vnd.oasis.opendocument.presentation", "impress8", ""},
}

func docFormatByExt(ext string) (docFormat, bool) {
	for _, f := range docFormats {
		if f.ext == ext {
			return f, true
		}
	}
	return docFormat{}, false
}

// ConvertTool returns convert-document: an office document saved in
// another format of its family, served by p.
func (p *Pool) ConvertTool() *docmill.Tool {
	var enum, outputs []string
	for _, f := range docFormats {
		enum = append(enum, f.ext)
		outputs = append(outputs, f.contentType)
	}
	return &docmill.Tool{
		Slug:  "convert-document",
		Lane:  docmill.LaneOffice,
		Title: "Convert document",
		Description: "Save an office document in another format of its kind: text documents (doc, docx, odt, rtf, txt) as docx, odt, rtf, txt or epub; " +
			"spreadsheets (xls, xlsx, ods, csv) as xlsx, ods or csv (the first sheet); presentations (ppt, pptx, odp) as pptx or odp.",
		Meta: []docmill.MetaField{
			{Name: "engine", Type: docmill.MetaString, Description: "The engine that converted it."},
			{Name: "engine_version", Type: docmill.MetaString, Description: "The engine's version."},
			{Name: "input_format", Type: docmill.MetaString, Description: "The input's format, by its content (docx, odt, ...)."},
		},
		Accepts:  accepts(text),
		Outputs:  outputs,
		MinFiles: 1, MaxFiles: 1,
		Params: []docmill.Param{{
			Name: paramFormat, Type: docmill.TypeString, Required: true, Enum: enum, Example: "odt",
			Description: "The format to save in; it must fit the document: docx, odt, rtf, txt or epub for a text document, xlsx, ods or csv for a spreadsheet, pptx or odp for a presentation.",
		}},
		OutputsFor: func(ps docmill.Params) []string {
			if f, ok := docFormatByExt(ps.String(paramFormat)); ok {
				return []string{f.contentType}
			}
			return outputs
		},
		Engine:    engineName,
		Timeout:   2*p.opts.Timeout + startTimeout,
		Rates:     rates(p.opts),
		Available: p.Available,
		Engines:   p.Status,
		Run:       p.convertDocument,
	}
}

// convertDocument runs convert-document. A plain-text input is read as a
// text document or as CSV by the family of the format asked for.
func (p *Pool) convertDocument(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	if !p.ok {
		return nil, unavailable(p.whyNot)
	}
	to, ok := docFormatByExt(in.Params.String(paramFormat))
	if !ok {
		return nil, docmill.ParamError(paramFormat, "Unknown format %q.", in.Params.String(paramFormat))
	}
	file := in.Files[0]
	k, err := sniff(file.Path, to.fam, p.opts.Limits)
	if err != nil {
		return nil, err
	}
	if k.fam != to.fam {
		return nil, docmill.ParamError(paramFormat, "The file is %s (%s), which cannot be saved as %s; choose %s.", k.fam, k.ext, to.ext, formatsOf(k.fam))
	}
	if err := checkArchive(file.Path, p.opts.Limits); err != nil {
		return nil, err
	}
	j := job{Export: to.export, ExportOptions: to.options, Fresh: in.FreshEngines}
	if to.ext == "csv" {
		j.MaxCells, j.ActiveSheet = p.opts.Limits.SheetCells, true
	}
	out, err := p.stageAndConvert(ctx, in.WorkDir, file.Path, k, j, to.ext)
	if err != nil {
		return nil, err
	}
	return &docmill.RunOutput{
		Path: out, Filename: docmill.ResultName(file.Filename, "", "."+to.ext), ContentType: to.contentType,
		Meta: map[string]any{"engine": engineName, "engine_version": p.soffice.Version(), "input_format": k.ext},
	}, nil
}

// formatsOf lists the formats of family f, for a message.
func formatsOf(f family) string {
	s := ""
	for _, d := range docFormats {
		if d.fam != f {
			continue
		}
		if s != "" {
			s += ", "
		}
		s += d.ext
	}
	return s
}

// stageAndConvert shows LibreOffice the document at path as
// "document.<k.ext>" in a directory of this job's under workDir, converts
// it with j's export settings (and k's import filter), and returns the
// path of the result, "document.<outExt>" beside it.
func (p *Pool) stageAndConvert(ctx context.Context, workDir, path string, k kind, j job, outExt string) (string, error) {
	dir, err := os.MkdirTemp(workDir, "office-")
	if err != nil {
		return "", docmill.Internal(err)
	}
	src := filepath.Join(dir, "document."+k.ext)
	if err := os.Link(path, src); err != nil {
		if err := os.Symlink(path, src); err != nil {
			return "", docmill.Internal(err)
		}
	}
	// The output's name differs from the input's even when the format is
	// the same (docx to docx).
	out := filepath.Join(dir, "converted."+outExt)
	j.In, j.Out, j.Filter, j.Options = src, out, k.filter, k.options
	if err := p.convert(ctx, j); err != nil {
		return "", err
	}
	return out, nil
}

// pdfExports are the PDF export filters of each family.
var pdfExports = map[family]string{text: "writer_pdf_Export", spreadsheet: "calc_pdf_Export", presentation: "impress_pdf_Export"}

// FirstPagePDF is a step for tools that show a document (document-
// thumbnail): it exports the first page of an office document of any
// family (plain text read as text) to PDF, as the PDF tools do, with the
// same checks. Its output is the PDF, "application/pdf".
func (p *Pool) FirstPagePDF(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	if !p.ok {
		return nil, unavailable(p.whyNot)
	}
	file := in.Files[0]
	k, err := sniff(file.Path, text, p.opts.Limits)
	if err != nil {
		return nil, err
	}
	if err := checkArchive(file.Path, p.opts.Limits); err != nil {
		return nil, err
	}
	out, err := p.stageAndConvert(ctx, in.WorkDir, file.Path, k, p.cellBound(k, job{Export: pdfExports[k.fam], PageRange: "1", Fresh: in.FreshEngines}), "pdf")
	if err != nil {
		return nil, err
	}
	return &docmill.RunOutput{Path: out, Filename: docmill.ResultName(file.Filename, "", ".pdf"), ContentType: "application/pdf",
		Meta: map[string]any{"input_format": k.ext}}, nil
}

// Accepts lists the content types of the office documents the pool
// reads, of every family.
func Accepts() []string { return accepts(text) }
