package poppler

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ziparchive"
)

// Caps on one rendering, checked from pdfinfo's page sizes before any page
// is drawn, so a request that would exceed them fails at once with
// invalid_parameter rather than after minutes of work. The pages of one
// job, the pixels of one page and the pixels of all pages together come
// from docmill.Limits (RenderPages, RenderPagePixels, RenderPixelsTotal);
// the defaults are sized so that a capped job fits in the tools' timeout
// on two cores: 2,000 A4 pages at 150 dpi (4.4 gigapixels) take about a
// minute and a half, and pdftoppm holds a whole page as an RGB bitmap
// (3 bytes a pixel), so 100 megapixels is about 300 MB per run, enough
// for A3 at 600 dpi (70 MP). The archive (or the single image) is held
// to Limits.RenderOutputBytes, past which the job fails with
// file_too_large. What no setting can change is fixed here.
//
// maxPageSide bounds either side of an image, a fact of the format, not
// a cost: JPEG cannot be wider or taller than 65,535 pixels, and a long
// thin page would otherwise pass the pixel cap.
const maxPageSide = 65_000

// Bounds and defaults of the params.
const (
	minDPI, maxDPI, defaultDPI = 72, 600, 150
	defaultQuality             = 85
)

// imageFormat is what one of the two render tools makes.
type imageFormat struct {
	slug, title string
	ext         string // file extension, without the dot
	contentType string
	args        func(quality int) []string // pdftoppm's output options
	quality     bool                       // whether the tool takes quality
	provides    docmill.Capability         // what the tool does for other tools
}

var (
	jpegFormat = imageFormat{
		slug: "pdf-to-jpg", title: "PDF to JPG", ext: "jpg", contentType: "image/jpeg", quality: true,
		args: func(q int) []string { return []string{"-jpeg", "-jpegopt", "quality=" + strconv.Itoa(q)} },
	}
	pngFormat = imageFormat{
		slug: "pdf-to-png", title: "PDF to PNG", ext: "png", contentType: "image/png", provides: docmill.CapPDFToPNG,
		args: func(int) []string { return []string{"-png"} },
	}
)

// renderTool declares pdf-to-jpg or pdf-to-png.
func renderTool(f imageFormat, pdftoppm, pdfinfo *sandbox.Engine, limits docmill.Limits) *docmill.Tool {
	params := []docmill.Param{{
		Name: paramDPI, Type: docmill.TypeInteger, Default: strconv.Itoa(defaultDPI),
		Description: "Resolution of the images, in dots per inch; a page of W x H points becomes " +
			"W*dpi/72 x H*dpi/72 pixels.",
		Min: docmill.Bound(minDPI), Max: docmill.Bound(maxDPI),
	}}
	if f.quality {
		params = append(params, docmill.Param{
			Name: paramQuality, Type: docmill.TypeInteger, Default: strconv.Itoa(defaultQuality),
			Description: "JPEG quality, 1 (smallest) to 100 (best).",
			Min:         docmill.Bound(1), Max: docmill.Bound(100),
		})
	}
	params = append(params, docmill.Param{
		Name: paramPages, Type: docmill.TypePages,
		Description: `Pages to convert, such as "1-3,5,8-"; every page when absent. Each page is ` +
			`converted once, in page order, whatever order or repeats the selection has.`,
	})
	return engineTool(docmill.Tool{
		Slug:     f.slug,
		Provides: f.provides,
		Meta:     []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."}, {Name: "images", Type: docmill.MetaInteger, Description: "Images made (one is returned as is, several as a zip)."}, {Name: "dpi", Type: docmill.MetaInteger, Description: "The resolution rendered at."}},
		Title:    f.title,
		Description: fmt.Sprintf("Render PDF pages as %s images. One page gives <name>-<page>.%s; several give "+
			"a zip archive <name>-images.zip of <name>-<page>.%s, page numbers zero-padded so they sort. "+
			"At most %d pages and %s a page.",
			f.ext, f.ext, f.ext, limits.RenderPages, pixelCount(limits.RenderPagePixels)),
		Outputs: []string{f.contentType},
		MayZip:  true,
		Params:  params,
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return runRender(ctx, f, pdftoppm, pdfinfo, limits, in)
		},
	}, pdftoppm, pdfinfo)
}

// runRender renders the selected pages with pdftoppm, in parallel runs, and
// returns one image, or a zip archive of several.
func runRender(ctx context.Context, f imageFormat, pdftoppm, pdfinfo *sandbox.Engine, limits docmill.Limits, in *docmill.RunInput) (*docmill.RunOutput, error) {
	file := in.Files[0]
	ranges := in.Params.PageRanges(paramPages)
	dpi, quality := in.Params.Int(paramDPI), in.Params.Int(paramQuality)
	if !pdftoppm.Available() {
		return nil, engineError(sandbox.ErrUnavailable, "")
	}
	// The engines run in scratch directories of their own, so every path
	// they get must be absolute.
	src, err := filepath.Abs(file.Path)
	if err != nil {
		return nil, fmt.Errorf("poppler: input path: %w", err)
	}
	workDir, err := filepath.Abs(in.WorkDir)
	if err != nil {
		return nil, fmt.Errorf("poppler: work dir: %w", err)
	}
	count, pages, err := selectPages(ctx, pdfinfo, src, workDir, ranges, dpi, limits)
	if err != nil {
		return nil, err
	}
	r := renderer{engine: pdftoppm, src: src, dir: workDir, args: renderArgs(f, dpi, quality)}
	images, err := r.renderAll(ctx, splitRuns(pages, pdftoppm.Slots()), pdftoppm.Slots())
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"pages": count, "images": len(pages), "dpi": dpi}
	return packImages(ctx, f, file.Filename, workDir, count, pages, images, meta, limits.RenderOutputBytes)
}

// packImages returns the one image of a single page as it is, or writes
// several into a zip archive, named after the client's file and the page
// numbers, zero-padded to the width of the document's page count; either
// at most maxBytes.
func packImages(ctx context.Context, f imageFormat, filename, workDir string, count int, pages []int, images map[int]string, meta map[string]any, maxBytes int64) (*docmill.RunOutput, error) {
	if len(pages) == 1 {
		if err := checkOutputSize(images[pages[0]], maxBytes); err != nil {
			return nil, err
		}
		return &docmill.RunOutput{
			Path:        images[pages[0]],
			Filename:    docmill.ResultName(filename, ".pdf", fmt.Sprintf("-%d.%s", pages[0], f.ext)),
			ContentType: f.contentType,
			Meta:        meta,
		}, nil
	}
	width := len(strconv.Itoa(count))
	entries := make([]zipEntry, len(pages))
	for i, p := range pages {
		entries[i] = zipEntry{name: docmill.ResultName(filename, ".pdf", fmt.Sprintf("-%0*d.%s", width, p, f.ext)), path: images[p]}
	}
	path := filepath.Join(workDir, "images.zip")
	if err := writeZip(ctx, path, entries, maxBytes); err != nil {
		return nil, err
	}
	return ziparchive.Result(path, docmill.ResultName(filename, ".pdf", "-images.zip"), meta), nil
}

// renderArgs returns pdftoppm's options for every run of a job: the crop
// box (what viewers show) at dpi, in format f.
func renderArgs(f imageFormat, dpi, quality int) []string {
	return append([]string{"-r", strconv.Itoa(dpi), "-cropbox"}, f.args(quality)...)
}

// selectPages reads the document's page count and resolves ranges against
// it: the pages to render, once each and in order, checked against the
// caps of limits at dpi. A page past the end or a cap exceeded is
// invalid_parameter. One pdfinfo run gives the count and the sizes of the
// first limits.RenderPages pages, which hold every selection of a
// document that short; a selection further in takes a second run.
func selectPages(ctx context.Context, pdfinfo *sandbox.Engine, src, dir string, ranges []docmill.PageRange, dpi int, limits docmill.Limits) (int, []int, error) {
	count, sizes, err := pageInfo(ctx, pdfinfo, src, dir, limits.RenderPages)
	if err != nil {
		return 0, nil, err
	}
	sel, err := docmill.Pages(ranges, count)
	if err != nil {
		return 0, nil, docmill.ParamError(paramPages, "%s", err)
	}
	slices.Sort(sel)
	pages := slices.Compact(sel)
	if len(pages) > limits.RenderPages {
		return 0, nil, docmill.ParamError(paramPages, "selects %d pages; at most %d pages can be converted at once", len(pages), limits.RenderPages)
	}
	if last := pages[len(pages)-1]; last > limits.RenderPages {
		if sizes, err = pageSizes(ctx, pdfinfo, src, dir, pages[0], last); err != nil {
			return 0, nil, err
		}
	}
	if err := checkPixels(limits, pages, sizes, dpi); err != nil {
		return 0, nil, err
	}
	return count, pages, nil
}

// checkPixels refuses a rendering whose images would pass the caps of
// limits: one page too large at dpi (naming the highest dpi that fits it),
// a page too large at any dpi, or all pages together too many pixels.
func checkPixels(limits docmill.Limits, pages []int, sizes map[int]pageSize, dpi int) error {
	var total int64
	for _, p := range pages {
		s, ok := sizes[p]
		if !ok || s.w == 0 || s.h == 0 {
			return docmill.Errorf(docmill.CodeInvalidDocument, "Page %d has no usable size; the document is damaged.", p)
		}
		w, h := s.pixels(dpi)
		if !fits(limits, w, h) {
			fit := fittingDPI(limits, s)
			if fit < minDPI {
				return docmill.ParamError(paramPages, "selects page %d, which at %.0f x %.0f pt is too large to render", p, s.w, s.h)
			}
			return docmill.ParamError(paramDPI, "is too high for page %d (%.0f x %.0f pt): it would be %d x %d pixels, "+
				"above the limit of %s and %d pixels a side; use at most %d dpi", p, s.w, s.h, w, h,
				pixelCount(limits.RenderPagePixels), maxPageSide, fit)
		}
		total += w * h
	}
	if total > limits.RenderPixelsTotal {
		return docmill.ParamError(paramDPI, "is too high for %d pages: the images would total %s, "+
			"above the limit of %s; lower the dpi or select fewer pages", len(pages),
			pixelCount(total), pixelCount(limits.RenderPixelsTotal))
	}
	return nil
}

// fits reports whether an image of w x h pixels is within the per-page
// caps.
func fits(limits docmill.Limits, w, h int64) bool {
	return w <= maxPageSide && h <= maxPageSide && w*h <= limits.RenderPagePixels
}

// fittingDPI returns the highest dpi at which page s stays within the
// per-page caps.
func fittingDPI(limits docmill.Limits, s pageSize) int {
	bySide := float64(maxPageSide) * 72 / math.Max(s.w, s.h)
	byArea := math.Sqrt(float64(limits.RenderPagePixels)/(s.w*s.h)) * 72
	d := int(math.Min(bySide, byArea))
	for d > 0 {
		if w, h := s.pixels(d); fits(limits, w, h) {
			break
		}
		d--
	}
	return d
}

// pixelCount formats a pixel count for a message, in gigapixels from one
// gigapixel and in megapixels below, to two decimals at most
// ("100 megapixels", "4.4 gigapixels").
func pixelCount(n int64) string {
	unit, scale := "megapixels", 1e6
	if n >= 1e9 {
		unit, scale = "gigapixels", 1e9
	}
	return strconv.FormatFloat(math.Round(float64(n)/scale*100)/100, 'f', -1, 64) + " " + unit
}
