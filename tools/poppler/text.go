package poppler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// textContentType is the result's content type: what the files handler
// derives from the .txt extension (mime.TypeByExtension), so the job
// record and the download agree. pdftotext is run with -enc UTF-8.
const textContentType = "text/plain; charset=utf-8"

// textTool declares pdf-to-text.
func textTool(pdftotext *sandbox.Engine, maxBytes int64) *docmill.Tool {
	return engineTool(docmill.Tool{
		Slug:  "pdf-to-text",
		Meta:  []docmill.MetaField{{Name: "text_bytes", Type: docmill.MetaInteger, Description: "Bytes of the text extracted."}},
		Title: "PDF to text",
		Description: "Extract the text of a PDF as UTF-8 plain text, <name>.txt, pages separated by form feeds. " +
			"Scanned pages without a text layer give no text; run ocr-pdf first.",
		Outputs: []string{"text/plain"}, // textContentType, as a sniffed upload names it
		Params: []docmill.Param{{
			Name: paramLayout, Type: docmill.TypeBoolean, Default: "false",
			Description: "Keep the physical layout of the page (columns, indentation) with spaces, " +
				"instead of the reading order.",
		}},
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return runText(ctx, pdftotext, maxBytes, in)
		},
	}, pdftotext)
}

// runText runs pdftotext with its text on standard output, streamed into
// the result file, so that the sandbox's output bound (MaxOutput) caps it
// at maxBytes (Limits.TextBytes).
func runText(ctx context.Context, pdftotext *sandbox.Engine, maxBytes int64, in *docmill.RunInput) (*docmill.RunOutput, error) {
	file := in.Files[0]
	src, err := filepath.Abs(file.Path)
	if err != nil {
		return nil, fmt.Errorf("poppler: input path: %w", err)
	}
	args := []string{"-enc", "UTF-8"}
	if in.Params.Bool(paramLayout) {
		args = append(args, "-layout")
	}
	args = append(args, src, "-")

	path := filepath.Join(in.WorkDir, "text.txt")
	tooLarge := docmill.Errorf(docmill.CodeFileTooLarge, "The text of the document is larger than %d MB.", maxBytes>>20)
	if err := runPDFToText(ctx, pdftotext, in.WorkDir, path, args, maxBytes, tooLarge, "copying its text"); err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("poppler: stat text: %w", err)
	}
	return &docmill.RunOutput{
		Path:        path,
		Filename:    docmill.ResultName(file.Filename, ".pdf", ".txt"),
		ContentType: textContentType,
		Meta:        map[string]any{"text_bytes": st.Size()},
	}, nil
}
