package pdfops

import (
	"context"
	"fmt"
	"time"

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
	params := make([]docmill.Param, 0, len(infoFields)+3)
	for _, f := range infoFields {
		params = append(params, docmill.Param{Name: f.param, Type: docmill.TypeString, Description: f.what + " Left as it is when not given.", Max: docmill.Bound(maxMetadataChars)})
	}
	params = append(params,
		docmill.Param{Name: languageParam, Type: docmill.TypeString, Description: "The document's language, a BCP 47 tag such as \"en\" or \"ru-RU\". Left as it is when not given.", Max: docmill.Bound(35)},
		docmill.Param{Name: producerParam, Type: docmill.TypeString, Description: "The application that made the PDF. The writer's own name (pdfcpu) when not given.", Max: docmill.Bound(maxMetadataChars)},
		docmill.Param{Name: clearParam, Type: docmill.TypeBoolean, Description: "Remove every existing entry first; values given are then set. A PDF/A or PDF/UA identification in the XMP metadata is kept.", Default: "false"},
	)
	return onePDFTool(docmill.Tool{
		Slug:  "edit-metadata",
		Meta:  []docmill.MetaField{documentPages, {Name: "cleared", Type: docmill.MetaBoolean, Description: "Whether the existing entries were removed first (clear)."}, {Name: "pdfa", Type: docmill.MetaString, Description: "The PDF/A part and conformance (\"2B\") the input's XMP claims and the output keeps; \"\" when none."}},
		Title: "Edit PDF metadata",
		Description: "Set the title, author, subject, keywords, creator and language of a PDF, or clear them. " +
			"The document information dictionary and the XMP metadata, which readers may prefer to it, are written in step; " +
			"a PDF/A or PDF/UA identification in the input's XMP is kept. The dates are set to the time of writing.",
		Params: params,
	}, model.ADDPROPERTIES, runEditMetadata)
}

// runEditMetadata updates the Info dictionary and the catalog's /Lang,
// and replaces the XMP stream by one stating the same values, so that
// the two never disagree.
func runEditMetadata(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	clear, producer := in.Params.Bool(clearParam), in.Params.String(producerParam)
	if producer != "" && doc.Encrypt != nil {
		return nil, docmill.ParamError(producerParam, "cannot be set on an encrypted document")
	}
	lang := in.Params.String(languageParam)
	hasLang := lang != ""

	root, err := doc.Catalog()
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file's catalog could not be read: it is damaged.")
	}
	info, err := infoDict(doc)
	if err != nil {
		return nil, err
	}
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
			return nil, docmill.ParamError(languageParam, "cannot be written to a PDF: %s", err)
		}
		root["Lang"] = types.StringLiteral(*s)
	}
	if producer == "" {
		producer = pdfcpuProducer
	} else {
		if _, err := types.EscapedUTF16String(producer); err != nil {
			return nil, docmill.ParamError(producerParam, "cannot be written to a PDF: %s", err)
		}
		useXRefTable(doc)
	}
	kept, err := metadataInStep(doc, root, info, producer, nil)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out, err = writeOutput(doc, in.WorkDir, "metadata.pdf", docmill.ResultName(in.Files[0].Filename, ".pdf", "-metadata.pdf"),
		map[string]any{"pages": doc.PageCount, "cleared": clear, "pdfa": kept[nsPDFAID+" part"] + kept[nsPDFAID+" conformance"]})
	if err != nil || producer == pdfcpuProducer {
		return out, err
	}
	if err := appendProducer(out.Path, doc, producer); err != nil {
		return nil, fmt.Errorf("pdfops: set producer: %w", err)
	}
	return out, nil
}

// metadataInStep replaces the catalog's XMP by a packet stating the Info
// dictionary's values, the catalog's /Lang, the producer and dates pdfcpu
// writes or producer, and the input packet's kept properties with set's
// laid over them, which it returns.
func metadataInStep(doc *model.Context, root, info types.Dict, producer string, set xmpProps) (xmpProps, error) {
	text := func(d types.Dict, key string) string {
		if d[key] == nil {
			return ""
		}
		s, _ := doc.DereferenceText(d[key]) // an unreadable value is left out
		return s
	}
	// pdfcpu sets both dates to the time it writes, a moment later.
	now := time.Now().Truncate(time.Second)
	kept := readKeptXMP(doc, root)
	if kept == nil && len(set) > 0 {
		kept = xmpProps{}
	}
	for name, value := range set {
		kept[name] = value
	}
	packet := buildXMP(xmpValues{
		title: text(info, "Title"), author: text(info, "Author"), subject: text(info, "Subject"),
		keywords: text(info, "Keywords"), creator: text(info, "Creator"), lang: text(root, "Lang"),
		producer: producer, created: now, modified: now,
	}, kept)
	if err := setXMP(doc, root, packet); err != nil {
		return nil, fmt.Errorf("pdfops: write XMP metadata: %w", err)
	}
	return kept, nil
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
