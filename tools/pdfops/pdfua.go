package pdfops

import (
	"context"
	"errors"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	docmill "github.com/docmill/docmill"
)

// pdfuaLangParam is the param of MarkPDFUAStep naming the document's
// language.
const pdfuaLangParam = "lang"

// MarkPDFUAStep adds to a tagged PDF (one with a structure tree, such as
// Chromium prints with tagging on) the document-level marks PDF/UA-1
// asks for: /MarkInfo /Marked true, /ViewerPreferences /DisplayDocTitle
// true, the catalog's /Lang from the param "lang" when the PDF has none,
// and an XMP packet stating the Info dictionary's values (dc:title among
// them) and pdfuaid:part 1. It checks nothing of the content: alt text,
// heading order and the rest are the page's. A PDF without a structure
// tree is the calling tool's fault (an internal error). It writes
// "<name>-pdfua.pdf", meta {"pages"}.
func MarkPDFUAStep() *docmill.EngineStep {
	return onePDFStep("mark-pdfua", model.ADDPROPERTIES, runMarkPDFUA)
}

func runMarkPDFUA(ctx context.Context, in *docmill.RunInput, _ *budget, doc *model.Context) (*docmill.RunOutput, error) {
	root, err := doc.Catalog()
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file's catalog could not be read: it is damaged.")
	}
	if root["StructTreeRoot"] == nil {
		return nil, errors.New("pdfops: mark PDF/UA: the PDF is not tagged")
	}
	for key, entry := range map[string]string{"MarkInfo": "Marked", "ViewerPreferences": "DisplayDocTitle"} {
		d, err := doc.DereferenceDict(root[key])
		if err != nil || d == nil {
			d = types.NewDict()
		}
		d[entry] = types.Boolean(true)
		root[key] = d
	}
	if lang := in.Params.String(pdfuaLangParam); lang != "" && root["Lang"] == nil {
		s, err := types.EscapedUTF16String(lang)
		if err != nil {
			return nil, docmill.Internal(err)
		}
		root["Lang"] = types.StringLiteral(*s)
	}
	info, err := infoDict(doc)
	if err != nil {
		return nil, err
	}
	if _, err := metadataInStep(doc, root, info, pdfcpuProducer, xmpProps{nsPDFUAID + " part": "1"}); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return writeOutput(doc, in.WorkDir, "pdfua.pdf", docmill.ResultName(in.Files[0].Filename, ".pdf", "-pdfua.pdf"),
		map[string]any{"pages": doc.PageCount})
}
