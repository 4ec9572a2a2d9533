package pdfops

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// maxAttachments bounds the files one run of add-attachments embeds;
// their size, with the PDF's, is bounded by Limits.PDFBytes, since pdfcpu
// holds every one in memory until the output is written.
const maxAttachments = 50

func addAttachmentsTool() *docmill.Tool {
	return pdfTool(docmill.Tool{
		Slug:  "add-attachments",
		Meta:  []docmill.MetaField{documentPages, {Name: "files", Type: docmill.MetaInteger, Description: "Files embedded."}},
		Title: "Add PDF attachments",
		Description: fmt.Sprintf("Embed files of any type in a PDF: the first file sent is the PDF, the others (1 to %d) "+
			"are attached under their own names (directories left out, a name already taken numbered).", maxAttachments),
		Accepts:  []string{pdfContentType, docmill.AnyType},
		MinFiles: 2,
		MaxFiles: maxAttachments + 1,
		Params: []docmill.Param{{Name: descriptionParam, Type: docmill.TypeString, Max: docmill.Bound(1000),
			Description: "A description given to every file attached, which PDF viewers show beside it."}},
	}, runAddAttachments)
}

// runAddAttachments embeds files 2..N in the PDF that is file 1, as they
// are: they are never parsed, whatever their type.
func runAddAttachments(ctx context.Context, in *docmill.RunInput, b *budget) (out *docmill.RunOutput, err error) {
	pdf := in.Files[0]
	if pdf.ContentType != pdfContentType {
		return nil, docmill.Errorf(docmill.CodeUnsupportedFileType, "The first file must be the PDF to attach the others to; %q is not a PDF.", pdf.Filename)
	}
	label := func(i int) string {
		if i == 0 {
			return "The PDF"
		}
		return fmt.Sprintf("File %d (%q)", i+1, in.Files[i].Filename)
	}
	if err := checkSizes(b, in.Files, "files", label); err != nil {
		return nil, err
	}
	doc, err := readDocument(ctx, b, pdf, newConfig(model.ADDATTACHMENTS), "The PDF")
	if err != nil {
		return nil, err
	}
	used, err := attachmentNames(doc)
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The PDF's attachments could not be read: it is damaged.")
	}
	now := time.Now()
	for i, f := range in.Files[1:] {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		name := entryName(model.Attachment{FileName: f.Filename}, i, used)
		if err := attach(doc, f.Path, name, in.Params.String(descriptionParam), now); err != nil {
			return nil, err
		}
	}
	return writeOutput(doc, in.WorkDir, "attached.pdf", docmill.ResultName(pdf.Filename, ".pdf", "-attachments.pdf"),
		map[string]any{"pages": doc.PageCount, "files": len(in.Files) - 1})
}

// attachmentNames returns the names the document's attachments already
// have, which new ones must not take.
func attachmentNames(doc *model.Context) (map[string]bool, error) {
	used := map[string]bool{}
	if err := doc.LocateNameTree("EmbeddedFiles", false); err != nil {
		return nil, err
	}
	if doc.Names["EmbeddedFiles"] == nil {
		return used, nil
	}
	atts, err := doc.ListAttachments()
	if err != nil {
		return nil, err
	}
	for _, a := range atts {
		used[a.ID] = true
		used[a.FileName] = true
	}
	return used, nil
}

// attach embeds the file at path in doc as name.
func attach(doc *model.Context, path, name, desc string, modTime time.Time) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("pdfops: open attachment: %w", err)
	}
	defer f.Close()
	a := model.Attachment{Reader: f, ID: name, FileName: name, Desc: desc, ModTime: &modTime}
	if err := doc.AddAttachment(a, false); err != nil {
		return docmill.InvalidDocument(err, "The file %q could not be attached: the PDF's attachments are damaged.", name)
	}
	return nil
}
