package poppler

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// compareTool declares compare-pdf: the words of two PDFs (pdftotext
// -bbox) are diffed and their pages drawn (pdftoppm) and compared pixel
// by pixel; report (Steps.CompareReport) builds the report PDF.
func compareTool(e Engines, limits docmill.Limits, report docmill.RunFunc) *docmill.Tool {
	limits = limits.WithDefaults()
	return engineTool(docmill.Tool{
		Slug:  "compare-pdf",
		Title: "Compare PDFs",
		Description: "Compare two PDFs, the original first and the changed version second, and get a PDF report: " +
			"a summary (counts and the first changes, such as page 2: \"quick\" -> \"slow\"), the original's pages " +
			"with removed and replaced words boxed in red, the changed version's pages with added and replacing words " +
			"boxed in green, and for each page that looks different a diff image (differing pixels in red over the " +
			"faded original page). Words are compared in reading order; pages are drawn at 50 dpi. " +
			fmt.Sprintf("At most %d pages and %d words a document.", limits.RenderPages, maxCompareWords),
		Meta: []docmill.MetaField{
			{Name: "identical", Type: docmill.MetaBoolean, Description: "Whether the documents have the same words, the same page count and pages that look the same."},
			{Name: "words_added", Type: docmill.MetaInteger, Description: "Words only in the changed document."},
			{Name: "words_removed", Type: docmill.MetaInteger, Description: "Words only in the original."},
			{Name: "words_changed", Type: docmill.MetaInteger, Description: "Words of the original replaced by others (each counted once)."},
			{Name: "pages_differing", Type: docmill.MetaInteger, Description: "Pages, of those both documents have, that look different."},
			{Name: "differing_pages", Type: docmill.MetaIntegers, Description: "The numbers of those pages, in order."},
			{Name: "pages_original", Type: docmill.MetaInteger, Description: "Pages of the original."},
			{Name: "pages_changed", Type: docmill.MetaInteger, Description: "Pages of the changed document."},
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the report."},
		},
		Outputs:   []string{pdfContentType},
		MinFiles:  2,
		MaxFiles:  2,
		Available: func() bool { return report != nil },
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return runCompare(ctx, e, limits, report, in)
		},
	}, e.PDFToText, e.PDFToPPM, e.PDFInfo)
}

// compareInput is one of the two documents: its absolute path, how
// messages name it, its page count and sizes, and its words.
type compareInput struct {
	src, label string
	pages      int
	sizes      map[int]pageSize
	words      []pageWord
}

// runCompare reads both documents' page sizes (refusing one of too many
// pages before anything else is done), their words and their pictures,
// then has report build the report from the plan.
func runCompare(ctx context.Context, e Engines, limits docmill.Limits, report docmill.RunFunc, in *docmill.RunInput) (*docmill.RunOutput, error) {
	if !e.PDFToPPM.Available() || !e.PDFToText.Available() || report == nil {
		return nil, engineError(sandbox.ErrUnavailable, "")
	}
	dir, err := filepath.Abs(in.WorkDir)
	if err != nil {
		return nil, fmt.Errorf("poppler: work dir: %w", err)
	}
	var docs [2]*compareInput
	for i, f := range in.Files {
		d := &compareInput{label: fmt.Sprintf("File %d (%q)", i+1, f.Filename)}
		if d.src, err = filepath.Abs(f.Path); err != nil {
			return nil, fmt.Errorf("poppler: input path: %w", err)
		}
		if d.pages, d.sizes, err = pageInfo(ctx, e.PDFInfo, d.src, dir, limits.RenderPages); err != nil {
			return nil, namedError(err, d.label)
		}
		if d.pages > limits.RenderPages {
			return nil, docmill.LimitExceeded(fmt.Sprintf("%s has %d pages; documents of at most %d pages are compared", d.label, d.pages, limits.RenderPages))
		}
		docs[i] = d
	}
	for i, d := range docs {
		if d.words, err = documentWords(ctx, e.PDFToText, d.src, dir, fmt.Sprintf("compare-words-%d.xhtml", i), d.label, limits.CompareLayoutBytes); err != nil {
			return nil, err
		}
	}
	changes := compareText(docs[0].words, docs[1].words)
	visual, err := compareRenderings(ctx, e, limits, [2]string{docs[0].src, docs[1].src}, dir,
		min(docs[0].pages, docs[1].pages), [2]map[int]pageSize{docs[0].sizes, docs[1].sizes}, [2]string{docs[0].label, docs[1].label})
	if err != nil {
		return nil, err
	}
	plan, files := reportPlan(in.Files, docs, changes, visual)
	planPath := filepath.Join(dir, "compare-plan.json")
	b, err := json.Marshal(plan)
	if err != nil {
		return nil, docmill.Internal(err)
	}
	if err := os.WriteFile(planPath, b, 0o600); err != nil {
		return nil, docmill.Internal(err)
	}
	stepFiles := append([]docmill.LocalFile{in.Files[0], in.Files[1], {Path: planPath, Filename: "plan.json", ContentType: "application/json"}}, files...)
	out, err := report(ctx, &docmill.RunInput{Files: stepFiles, WorkDir: in.WorkDir, Limits: in.Limits, Params: docmill.Params{}})
	if err != nil {
		return nil, err
	}
	counts := changes.counts()
	identical := counts == (wordCounts{}) && len(visual.differing) == 0 && docs[0].pages == docs[1].pages
	out.Filename = docmill.ResultName(in.Files[1].Filename, ".pdf", "-comparison.pdf")
	out.Meta = map[string]any{
		"identical": identical, "words_added": counts.added, "words_removed": counts.removed, "words_changed": counts.changed,
		"pages_differing": len(visual.differing), "differing_pages": append([]int{}, visual.differing...),
		"pages_original": docs[0].pages, "pages_changed": docs[1].pages, "pages": out.Meta["pages"],
	}
	return out, nil
}
