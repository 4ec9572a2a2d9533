package pdfops

import (
	"context"
	stdcolor "image/color"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/font"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/color"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/draw"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	docmill "github.com/docmill/docmill"
)

// This file holds what watermark-pdf and page-numbers share: drawing text
// on pages with pdfcpu's stamps, built as model.Watermark values in code.
// User text never goes through pdfcpu's stamp description syntax ("font:
// Helvetica, points: 48, ..."), in which commas, colons and other
// characters of the text would be misparsed.

// textStamp is text to draw on pages, with validated settings, as the
// reader should see it.
type textStamp struct {
	text     string // as the user wrote it, line breaks normalised to "\n"
	spot     stampSpot
	rotation float64 // degrees counter-clockwise, -180..180
	color    color.SimpleColor
	opacity  float64
	onTop    bool // over the page content, or under it
}

// lines splits the text into lines as pdfcpu will.
func (s textStamp) lines() []string { return model.SplitMultilineStr(s.text) }

// size returns the unturned box of the text at fontSize, as pdfcpu
// computes it: the widest line by the line count times the font's
// bounding-box height.
func (s textStamp) size(fontSize float64) (w, h float64, err error) {
	lines := s.lines()
	for _, l := range lines {
		lw, err := font.TextWidthFloat(l, stampFontName, fontSize)
		if err != nil {
			return 0, 0, err
		}
		w = max(w, lw)
	}
	bb, err := font.BoundingBox(stampFontName)
	if err != nil {
		return 0, 0, err
	}
	return w, float64(len(lines)) * bb.Height() / 1000 * fontSize, nil
}

// The automatic font size: the turned text spans autoFillCenter of the
// page, up to autoMaxCenter points, when centered -- a classic diagonal
// watermark -- and autoFillEdge of it, up to autoMaxEdge points, at an
// edge or corner. It is never below autoMin points.
const (
	autoFillCenter = 0.75
	autoMaxCenter  = 144
	autoFillEdge   = 0.3
	autoMaxEdge    = 72
	autoMin        = 8
)

// autoFontSize returns the automatic font size of s on page p.
func (s textStamp) autoFontSize(p stampPage) (int, error) {
	w, h, err := s.size(1)
	if err != nil {
		return 0, err
	}
	fill, most := autoFillEdge, autoMaxEdge
	if s.spot == (stampSpot{}) {
		fill, most = autoFillCenter, autoMaxCenter
	}
	size := most
	if rw, rh := rotatedSize(w, h, s.rotation); rw > 0 && rh > 0 {
		size = int(min(fill*p.width/rw, fill*p.height/rh, float64(most)))
	}
	return max(size, autoMin), nil
}

// stampPlacement is how a stamp is drawn on one page, in the page's
// unturned frame; pages with equal placements share one drawing.
type stampPlacement struct {
	fontSize int
	spot     stampSpot
	angle    float64
	dx, dy   float64
}

// place returns the placement of s at fontSize on page p.
//
// A stamp on a page the viewer shows turned is drawn on the unturned page,
// turned and moved so that it shows upright at the chosen spot; the page
// keeps its /Rotate. (pdfcpu would otherwise bake the page's rotation into
// its content and drop /Rotate, which leaves its annotations, trim and
// bleed boxes unturned, and breaks on a rotation inherited from the page
// tree.)
func (s textStamp) place(fontSize int, p stampPage) (stampPlacement, error) {
	w, h, err := s.size(float64(fontSize))
	if err != nil {
		return stampPlacement{}, err
	}
	pl := stampPlacement{
		fontSize: fontSize,
		spot:     s.spot.unrotated(p.rot),
		angle:    unrotatedAngle(s.rotation, p.rot),
	}
	pl.dx, pl.dy = stampOffset(pl.spot, pl.angle, w, h, p.margin())
	return pl, nil
}

// watermark returns the pdfcpu text stamp for s placed as pl.
func (s textStamp) watermark(pl stampPlacement) *model.Watermark {
	wm := model.DefaultWatermarkConfig()
	wm.Mode = model.WMText
	wm.OnTop = s.onTop
	wm.TextString = escapeStampText(s.text)
	wm.FontName = stampFontName
	wm.FontSize = pl.fontSize
	wm.ScaleAbs, wm.Scale = true, 1
	wm.Pos = pl.spot.anchor()
	wm.Dx, wm.Dy = pl.dx, pl.dy
	wm.Rotation = pl.angle
	wm.Diagonal = model.NoDiagonal
	wm.UserRotOrDiagonal = true
	wm.Color, wm.FillColor, wm.StrokeColor = s.color, s.color, s.color
	wm.RenderMode = draw.RMFill
	wm.Opacity = s.opacity
	return wm
}

// stampColor is c as pdfcpu draws it.
func stampColor(c stdcolor.RGBA) color.SimpleColor {
	return color.SimpleColor{R: float32(c.R) / 255, G: float32(c.G) / 255, B: float32(c.B) / 255}
}

// newStampConfig returns the configuration for a stamping run. Its empty
// timestamp format is what makes escapeStampText's escape expand to
// nothing.
func newStampConfig() *model.Configuration {
	conf := newConfig(model.ADDWATERMARKS)
	conf.TimestampFormat = ""
	return conf
}

// stampJob is one run of a stamping tool on its single input, after the
// tool has validated its own parameters.
type stampJob struct {
	action pageAction // names the result and counts the stamped pages
	// plan returns the stamp for each selected page (ascending, no
	// duplicates); pages may share a *model.Watermark, which lets pdfcpu
	// share one drawing between them.
	plan func(pages []int, sizes []stampPage) (map[int]*model.Watermark, error)
}

// run stamps the pages of doc, the input, that its "pages" parameter
// selects and writes the result, holding the stamp font (acquireStampFont) throughout.
func (j stampJob) run(ctx context.Context, in *docmill.RunInput, b *budget, doc *model.Context) (*docmill.RunOutput, error) {
	release, err := acquireStampFont()
	if err != nil {
		return nil, err
	}
	defer release()
	doc.TimestampFormat = "" // as newStampConfig: see escapeStampText
	pages, err := docmill.Pages(in.Params.PageRanges(pagesName), doc.PageCount)
	if err != nil {
		return nil, docmill.ParamError(pagesName, "%s", err)
	}
	slices.Sort(pages)
	pages = slices.Compact(pages)
	if err := balanceStampPageTree(doc); err != nil {
		return nil, docmill.InvalidDocument(err, "The file's page tree could not be read: it is damaged.")
	}
	sizes, err := stampPageSizes(doc)
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file's page sizes could not be read: it is damaged.")
	}
	m, err := j.plan(pages, sizes)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	undo, err := prepareStampPages(doc, pages)
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file's pages could not be read: it is damaged.")
	}
	err = pdfcpu.AddWatermarksMap(doc, m)
	undo()
	if err != nil {
		return nil, docmill.InvalidDocument(err, "The file's pages could not be stamped: it is damaged or uses a structure this tool does not support.")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return j.action.output(doc, in, len(pages))
}
