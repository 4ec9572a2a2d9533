package pdfops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/color"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/draw"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/docmill/docmill/tools/rawpdf"
)

// How the compare report is laid out: A4 summary pages of up to
// summaryLinesPerPage lines of summaryFontSize-point text, a margin of
// reportMargin points; diff images fitted to A4 inside the margin.
const (
	summaryLinesPerPage = 50
	summaryFontSize     = 10
	reportMargin        = 40
	// outlineWidth is the line width of a word's box, and outlinePad how
	// far the box stands off the word, in points.
	outlineWidth = 1.2
	outlinePad   = 1.0
)

// outlineColors are the colours of the boxes on the original's pages
// (removed words, red) and on the changed document's (added, green), as
// PDF "RG" operands.
var outlineColors = [2]string{"0.85 0 0", "0 0.6 0"}

// compareReport is the report document being built: its summary pages
// first, then the pages appended to it.
type compareReport struct {
	doc      *model.Context
	pagesRef types.IndirectRef
	pages    types.Dict
	summary  []string // the summary's text, a page an entry
}

// newCompareSummary starts the report with blank A4 pages enough for the
// summary lines; their text is drawn by writeText. The pages are read by
// pdfcpu from a document written here, since pdfcpu stamps and merges
// only documents it has read.
func newCompareSummary(ctx context.Context, lines []string) (*compareReport, error) {
	r := &compareReport{}
	for start := 0; start < len(lines) || start == 0; start += summaryLinesPerPage {
		end := min(start+summaryLinesPerPage, len(lines))
		r.summary = append(r.summary, strings.Join(lines[start:end], "\n"))
	}
	doc, err := pdfcpu.ReadWithContext(ctx, bytes.NewReader(blankPDF(len(r.summary))), newStampConfig())
	if err == nil {
		err = doc.EnsurePageCount()
	}
	if err != nil {
		return nil, fmt.Errorf("pdfops: summary pages: %w", err)
	}
	ref, err := doc.Pages()
	if err != nil || ref == nil {
		return nil, fmt.Errorf("pdfops: summary pages: no page tree: %v", err)
	}
	pages, err := doc.DereferenceDict(*ref)
	if err != nil || pages == nil {
		return nil, fmt.Errorf("pdfops: summary pages: no page tree: %v", err)
	}
	r.doc, r.pagesRef, r.pages = doc, *ref, pages
	return r, nil
}

// blankPDF returns a PDF of n blank A4 pages.
func blankPDF(n int) []byte {
	a4 := imagePageSizes["a4"]
	return blankPagesPDF(n, a4[0], a4[1])
}

// blankPagesPDF returns a PDF of n blank pages of w by h points.
func blankPagesPDF(n int, w, h float64) []byte {
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", ""}
	kids := make([]string, n)
	for i := range n {
		kids[i] = fmt.Sprintf("%d 0 R", i+3)
		objects = append(objects, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.2f %.2f] /Resources << >> >>", w, h))
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	return rawpdf.Write(objects...)
}

// addImage appends a page showing the PNG at path, fitted to A4.
func (r *compareReport) addImage(path, label string) error {
	lay := imageLayout{pageSize: "a4", orientation: "auto", margin: reportMargin}
	return addImagePage(r.doc, r.pagesRef, r.pages, path, imageProbe{format: "png"}, lay, label)
}

// writeText draws the summary text on the first pages and the captions
// on the image pages that follow them.
func (r *compareReport) writeText(captions []string) error {
	stamps := map[int]*model.Watermark{}
	for i, text := range r.summary {
		stamps[i+1] = reportText(text)
	}
	for i, c := range captions {
		if c != "" {
			stamps[len(r.summary)+i+1] = reportText(c)
		}
	}
	if err := pdfcpu.AddWatermarksMap(r.doc, stamps); err != nil {
		return fmt.Errorf("pdfops: report text: %w", err)
	}
	return nil
}

// reorder puts the pages after the summary in the plan's order: order[i]
// is the current page number of the plan's item i.
func (r *compareReport) reorder(order []int) error {
	return reorderPages(r.doc, func(leaves []types.IndirectRef) ([]types.IndirectRef, error) {
		out := append([]types.IndirectRef(nil), leaves[:len(r.summary)]...)
		for _, p := range order {
			if p < 1 || p > len(leaves) {
				return nil, fmt.Errorf("report page %d of %d", p, len(leaves))
			}
			out = append(out, leaves[p-1])
		}
		return out, nil
	})
}

// reportText returns the stamp that writes text, black, at the top left
// of a report page; characters the stamp font lacks become "?".
func reportText(text string) *model.Watermark {
	return textAtTopLeft(text, summaryFontSize, reportMargin)
}

// textAtTopLeft returns the stamp that writes text, black, in the stamp
// font at fontSize points, margin points from the top left corner of a
// page; characters the stamp font lacks become "?". The compare report
// and the visible signature draw their text with it.
func textAtTopLeft(text string, fontSize int, margin float64) *model.Watermark {
	if bad, err := undrawableRunes(text); err == nil {
		for _, c := range bad {
			text = strings.ReplaceAll(text, string(c), "?")
		}
	}
	wm := model.DefaultWatermarkConfig()
	wm.Mode = model.WMText
	wm.OnTop = true
	wm.TextString = escapeStampText(text)
	wm.FontName = stampFontName
	wm.FontSize = fontSize
	wm.ScaleAbs, wm.Scale = true, 1
	wm.Pos = types.TopLeft
	wm.Dx, wm.Dy = margin, -margin
	wm.Diagonal = model.NoDiagonal
	wm.UserRotOrDiagonal = true
	black := color.SimpleColor{}
	wm.Color, wm.FillColor, wm.StrokeColor = black, black, black
	wm.RenderMode = draw.RMFill
	wm.Opacity = 1
	return wm
}

// outlineWords draws boxes round words on page p of doc, in the colour of
// document d: the page gets one new content stream, its own content
// between "q" and "Q" followed by the boxes, so that whatever graphics
// state its content leaves, the boxes are drawn in the page's default
// user space. boxes are in pdftotext's coordinates
// (points from the top-left corner of the crop box as shown, the page's
// /Rotate applied) and are turned back to the unturned page.
func outlineWords(doc *model.Context, p int, boxes [][4]float64, d int) error {
	if len(boxes) == 0 {
		return nil
	}
	page, _, attrs, err := doc.PageDict(p, false)
	if err != nil || page == nil || attrs == nil || attrs.MediaBox == nil {
		return fmt.Errorf("page %d: %v", p, err)
	}
	box := attrs.MediaBox
	if attrs.CropBox != nil {
		box = attrs.CropBox
	}
	rot := ((attrs.Rotate % 360) + 360) % 360
	var b strings.Builder
	fmt.Fprintf(&b, "Q q %s RG %.2f w\n", outlineColors[d], outlineWidth)
	for _, w := range boxes {
		x0, y0 := unturn(box, rot, w[0]-outlinePad, w[1]-outlinePad)
		x1, y1 := unturn(box, rot, w[2]+outlinePad, w[3]+outlinePad)
		fmt.Fprintf(&b, "%.2f %.2f %.2f %.2f re S\n", math.Min(x0, x1), math.Min(y0, y1), math.Abs(x1-x0), math.Abs(y1-y0))
	}
	b.WriteString("Q\n")
	own, err := doc.PageContent(page, p)
	if err != nil && !errors.Is(err, model.ErrNoContent) {
		return err
	}
	ref, err := newContentStream(doc, "q\n"+string(own)+"\n"+b.String())
	if err != nil {
		return err
	}
	page["Contents"] = *ref
	return nil
}

// unturn maps a point given from the top-left corner of box as shown,
// turned rot degrees clockwise, to the page's default user space.
func unturn(box *types.Rectangle, rot int, x, y float64) (float64, float64) {
	switch rot {
	case 90:
		return box.LL.X + y, box.LL.Y + x
	case 180:
		return box.UR.X - x, box.LL.Y + y
	case 270:
		return box.UR.X - y, box.UR.Y - x
	}
	return box.LL.X + x, box.UR.Y - y
}
