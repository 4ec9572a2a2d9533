package pdfops

import (
	"context"
	"io"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ziparchive"
)

func extractAttachmentsTool() *docmill.Tool {
	return onePDFTool(docmill.Tool{
		Slug:  "extract-attachments",
		Meta:  []docmill.MetaField{documentPages, {Name: "files", Type: docmill.MetaInteger, Description: "Embedded files extracted."}},
		Title: "Extract PDF attachments",
		Description: "Extract the files embedded in a PDF, returned together as a zip under their own names. " +
			"A PDF without attachments gives an empty zip (meta files: 0), not an error.",
		MayZip:  true,
		Outputs: []string{ziparchive.ContentType},
	}, model.EXTRACTATTACHMENTS, runExtractAttachments)
}

func runExtractAttachments(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (out *docmill.RunOutput, err error) {
	var atts []model.Attachment
	if err := doc.LocateNameTree("EmbeddedFiles", false); err != nil {
		return nil, docmill.InvalidDocument(err, "The file's attachments could not be read: it is damaged.")
	}
	if doc.Names["EmbeddedFiles"] != nil {
		if atts, err = doc.ExtractAttachments(nil); err != nil {
			return nil, docmill.InvalidDocument(err, "The file's attachments could not be read: it is damaged or uses a structure this tool does not support.")
		}
	}
	p := filepath.Join(in.WorkDir, "attachments.zip")
	zw, err := ziparchive.Create(p, b.l.PDFBytes)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for i, a := range atts {
		if err := ctx.Err(); err != nil {
			zw.Close()
			return nil, err
		}
		w, err := zw.Add(entryName(a, i, used), true)
		if err != nil {
			zw.Close()
			return nil, zipError(err)
		}
		if _, err := io.Copy(w, a.Reader); err != nil {
			zw.Close()
			return nil, zipError(err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, zipError(err)
	}
	return ziparchive.Result(p, docmill.ResultName(in.Files[0].Filename, ".pdf", "-attachments.zip"),
		map[string]any{"pages": doc.PageCount, "files": len(atts)}), nil
}

// entryName is the zip entry of attachment i: its file name without any
// directory, made unique among used.
func entryName(a model.Attachment, i int, used map[string]bool) string {
	name := a.FileName
	if name == "" {
		name = a.ID
	}
	name = path.Base(strings.ReplaceAll(name, `\`, "/"))
	if name == "" || name == "." || name == ".." || name == "/" {
		name = "attachment-" + strconv.Itoa(i+1)
	}
	base, ext := name, path.Ext(name)
	base = strings.TrimSuffix(base, ext)
	for n := 2; used[name]; n++ {
		name = base + "-" + strconv.Itoa(n) + ext
	}
	used[name] = true
	return name
}
