package pdfops

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// MaxCompareReportPages bounds the pages of a compare-pdf report beyond
// its summary: highlighted pages of both documents and diff images
// together. The plan's maker keeps to it; the step refuses more.
const MaxCompareReportPages = 400

// maxCompareSummaryLines bounds the summary text, about ten pages.
const maxCompareSummaryLines = 600

// CompareReportPlan is what compare-pdf asks of CompareReportStep, as
// JSON in the step's third file.
type CompareReportPlan struct {
	// Summary is the text of the summary pages, a line an entry.
	Summary []string `json:"summary"`
	// Items are the report's pages after the summary, in order.
	Items []CompareReportItem `json:"items"`
}

// CompareReportItem is one page of the report: a page of one of the two
// documents with boxes drawn round words, or a diff image.
type CompareReportItem struct {
	// Doc is 0 for the original (file 1), 1 for the changed document
	// (file 2); ignored for an image.
	Doc int `json:"doc"`
	// Page is the page of Doc, 1-based.
	Page int `json:"page"`
	// Boxes are the word boxes to outline, x0, y0, x1, y1 in points from
	// the top-left corner of the page as shown (pdftotext's coordinates).
	Boxes [][4]float64 `json:"boxes,omitempty"`
	// Image, when above 0, makes the item the image of file Image (a PNG,
	// 0-based index into the step's files) instead of a page.
	Image int `json:"image,omitempty"`
	// Caption is drawn at the top of an image page.
	Caption string `json:"caption,omitempty"`
}

// CompareReportStep is compare-pdf's step, run in
// the PDF helper: its files are the original PDF, the changed PDF, the
// plan (CompareReportPlan as JSON) and the diff images the plan names
// (PNG). It writes the report: the summary pages (text in the stamp
// font), then the plan's items, boxes outlined in red on the original's
// pages (removed words) and in green on the changed document's (added
// words). Meta "pages" is the report's page count.
func CompareReportStep() *docmill.EngineStep {
	return pdfStep("compare-report", 3, 3+MaxCompareReportPages, runCompareReport)
}

func runCompareReport(ctx context.Context, in *docmill.RunInput, b *budget) (out *docmill.RunOutput, err error) {
	plan, err := readComparePlan(in)
	if err != nil {
		return nil, err
	}
	release, err := acquireStampFont()
	if err != nil {
		return nil, err
	}
	defer release()
	label := func(i int) string { return fmt.Sprintf("File %d (%q)", i+1, in.Files[i].Filename) }
	if err := checkSizes(b, in.Files[:2], "PDFs", label); err != nil {
		return nil, err
	}
	report, err := newCompareSummary(ctx, plan.Summary)
	if err != nil {
		return nil, err
	}
	// order maps each item to its page in the merged report, whose pages
	// come summary, images, original's, changed's before reorder.
	order := make([]int, len(plan.Items))
	var captions []string
	for i, it := range plan.Items {
		if it.Image > 0 {
			if err := report.addImage(in.Files[it.Image].Path, fmt.Sprintf("diff image %d", i+1)); err != nil {
				return nil, err
			}
			order[i] = report.doc.PageCount
			captions = append(captions, it.Caption)
		}
	}
	if err := report.writeText(captions); err != nil {
		return nil, err
	}
	// pdfcpu merges only documents it has read.
	if report.doc, err = reread(ctx, b, report.doc, in.WorkDir, "compare-summary.pdf"); err != nil {
		return nil, err
	}
	for d := range 2 {
		next := report.doc.PageCount + 1
		src, err := readSource(ctx, b, in.Files[d], label(d))
		if err != nil {
			return nil, err
		}
		var pages []int
		for i, it := range plan.Items {
			if it.Image > 0 || it.Doc != d {
				continue
			}
			if it.Page < 1 || it.Page > src.PageCount {
				return nil, fmt.Errorf("pdfops: compare plan names page %d of %d", it.Page, src.PageCount)
			}
			if err := outlineWords(src, it.Page, it.Boxes, d); err != nil {
				return nil, docmill.InvalidDocument(err, "Page %d of %s could not be marked: it is damaged.", it.Page, strings.ToLower(label(d)[:1])+label(d)[1:])
			}
			pages = append(pages, it.Page)
			order[i] = next + len(pages) - 1
		}
		if len(pages) == 0 {
			continue
		}
		part, err := copyPages(src, pages)
		if err == nil {
			part, err = reread(ctx, b, part, in.WorkDir, fmt.Sprintf("compare-part-%d.pdf", d))
		}
		if err != nil {
			return nil, err
		}
		if err := appendDocument(report.doc, part, d+1, label(d), b.l.PDFPages); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if err := report.reorder(order); err != nil {
		return nil, err
	}
	return writeOutput(report.doc, in.WorkDir, "compare.pdf", "comparison.pdf", map[string]any{"pages": report.doc.PageCount})
}

// readComparePlan reads and bounds the plan in the step's third file.
func readComparePlan(in *docmill.RunInput) (*CompareReportPlan, error) {
	b, err := os.ReadFile(in.Files[2].Path)
	if err != nil {
		return nil, fmt.Errorf("pdfops: read compare plan: %w", err)
	}
	var plan CompareReportPlan
	if err := json.Unmarshal(b, &plan); err != nil {
		return nil, fmt.Errorf("pdfops: compare plan: %w", err)
	}
	if len(plan.Items) > MaxCompareReportPages || len(plan.Summary) > maxCompareSummaryLines {
		return nil, fmt.Errorf("pdfops: compare plan of %d items and %d lines", len(plan.Items), len(plan.Summary))
	}
	for _, it := range plan.Items {
		if it.Image >= len(in.Files) || it.Image < 0 || (it.Image > 0 && it.Image < 3) || it.Doc < 0 || it.Doc > 1 {
			return nil, fmt.Errorf("pdfops: compare plan item %+v", it)
		}
	}
	return &plan, nil
}

// reread writes doc to a file of dir and reads it back: pdfcpu merges
// only documents it has read, and a copy of pages is made in memory.
func reread(ctx context.Context, b *budget, doc *model.Context, dir, name string) (*model.Context, error) {
	path := filepath.Join(dir, name)
	if err := writeDocument(doc, path); err != nil {
		return nil, err
	}
	defer os.Remove(path)
	out, err := readDocument(ctx, b, docmill.LocalFile{Path: path}, newConfig(model.MERGECREATE), "The report")
	if err != nil {
		return nil, fmt.Errorf("pdfops: read back %s: %w", name, err)
	}
	return out, nil
}
