package pdfops

import (
	"context"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// maxMetadataChars bounds each metadata value.
const maxMetadataChars = 2000

// infoFields maps the params of edit-metadata to the keys of the document
// information dictionary they set.
var infoFields = []struct{ param, key, what string }{
	{"title", "Title", "The document's title."},
	{"author", "Author", "The person or organisation that wrote the document."},
	{"subject", "Subject", "What the document is about."},
	{"keywords", "Keywords", "Keywords, such as \"report, 2026, sales\"."},
	{"creator", "Creator", "The application that made the original document."},
}

func editMetadataTool() *docmill.Tool {
	params := make([]docmill.Param, 0, len(infoFields)+2)
	for _, f := range infoFields {
		params = append(params, docmill.Param{Name: f.param, Type: docmill.TypeString, Description: f.what + " Left as it is when not given.", Max: docmill.Bound(maxMetadataChars)})
	}
	params = append(params,
		docmill.Param{Name: "language", Type: docmill.TypeString, Description: "The document's language, a BCP 47 tag such as \"en\" or \"ru-RU\". Left as it is when not given.", Max: docmill.Bound(35)},
		docmill.Param{Name: "clear", Type: docmill.TypeBoolean, Description: "Remove every existing entry (and the XMP metadata) first; values given are then set.", Default: "false"},
	)
	return onePDFTool(docmill.Tool{
		Slug:  "edit-metadata",
		Meta:  []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."}, {Name: "cleared", Type: docmill.MetaBoolean, Description: "Whether the existing entries were removed first (clear)."}, {Name: "xmp_removed", Type: docmill.MetaBoolean, Description: "Whether the input's XMP metadata was removed."}},
		Title: "Edit PDF metadata",
		Description: "Set the title, author, subject, keywords, creator and language of a PDF, or clear them. " +
			"The document information dictionary is updated; XMP metadata, which readers may prefer to it, is " +
			"removed whenever something changes so that the two never disagree. The producer and dates are set by the writer.",
		Params: params,
		Run:    runEditMetadata,
	})
}

// runEditMetadata updates the Info dictionary and the catalog's /Lang.
// Any XMP stream is dropped rather than rewritten: pdfcpu cannot edit
// one, and a stale one would contradict the new values.
func runEditMetadata(ctx context.Context, in *docmill.RunInput) (out *docmill.RunOutput, err error) {
	defer recoverPanic(&err)
	if err := checkSize(ctx, in.Files); err != nil {
		return nil, err
	}
	doc, err := readDocument(ctx, in.Files[0], newConfig(model.ADDPROPERTIES), theFile)
	if err != nil {
		return nil, err
	}
	clear := in.Params.Bool("clear")
	set := 0
	for _, f := range infoFields {
		if in.Params.String(f.param) != "" {
			set++
		}
	}
	lang := in.Params.String("language")
	hasLang := lang != ""

	root, err := doc.Catalog()
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file's catalog could not be read: it is damaged.")
	}
	info, err := infoDict(doc)
	if err != nil {
		return nil, err
	}
	changed := clear || set > 0 || hasLang
	if clear {
		for k := range info {
			delete(info, k)
		}
		delete(root, "Lang")
	}
	for _, f := range infoFields {
		v := in.Params.String(f.param)
		if v == "" {
			continue
		}
		s, err := types.EscapedUTF16String(v)
		if err != nil {
			return nil, docmill.ParamError(f.param, "cannot be written to a PDF: %s", err)
		}
		info[f.key] = types.StringLiteral(*s)
	}
	if hasLang {
		s, err := types.EscapedUTF16String(lang)
		if err != nil {
			return nil, docmill.ParamError("language", "cannot be written to a PDF: %s", err)
		}
		root["Lang"] = types.StringLiteral(*s)
	}
	_, hadXMP := root["Metadata"]
	xmpRemoved := changed && hadXMP
	if xmpRemoved {
		delete(root, "Metadata")
		doc.CatalogXMPMeta = nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return writeOutput(doc, in.WorkDir, "metadata.pdf", docmill.ResultName(in.Files[0].Filename, ".pdf", "-metadata.pdf"),
		map[string]any{"pages": doc.PageCount, "cleared": clear, "xmp_removed": xmpRemoved})
}

// infoDict returns the document's information dictionary, made when it
// has none.
func infoDict(doc *model.Context) (types.Dict, error) {
	if doc.Info != nil {
		if d, err := doc.DereferenceDict(*doc.Info); err == nil && d != nil {
			return d, nil
		}
	}
	d := types.NewDict()
	ir, err := doc.IndRefForNewObject(d)
	if err != nil {
		return nil, err
	}
	doc.Info = ir
	return d, nil
}
