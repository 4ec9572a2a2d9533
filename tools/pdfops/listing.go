package pdfops

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// jsonContentType is the type of the listing tools' output.
const jsonContentType = "application/json"

// listFunc reads what a listing tool lists from the document, and how
// many things that is; its errors are the run's.
type listFunc func(doc *model.Context) (list any, count int, err error)

// listingTool completes the declaration of a tool that lists the things
// called name in one PDF (onePDFTool), read for cmd: its result is the
// JSON object {name: list}, written as "name.json" and offered under the
// input's name with "-name.json", and its meta the document's "pages"
// and name, the count list gives.
func listingTool(t docmill.Tool, cmd model.CommandMode, name string, list listFunc) *docmill.Tool {
	t.Outputs = []string{jsonContentType}
	return onePDFTool(t, cmd, func(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (*docmill.RunOutput, error) {
		v, n, err := list(doc)
		if err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := json.MarshalIndent(map[string]any{name: v}, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("pdfops: encode %s: %w", name, err)
		}
		path := filepath.Join(in.WorkDir, name+".json")
		if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
			return nil, fmt.Errorf("pdfops: write %s: %w", name, err)
		}
		return &docmill.RunOutput{
			Path: path, Filename: docmill.ResultName(in.Files[0].Filename, ".pdf", "-"+name+".json"), ContentType: jsonContentType,
			Meta: map[string]any{"pages": doc.PageCount, name: n},
		}, nil
	})
}
