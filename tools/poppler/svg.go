package poppler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ziparchive"
)

// svgContentType is what pdf-to-svg makes of one page.
const svgContentType = "image/svg+xml"

func svgTool(e Engines, limits docmill.Limits) *docmill.Tool {
	return engineTool(docmill.Tool{
		Slug:  "pdf-to-svg",
		Title: "PDF to SVG",
		Description: "Convert PDF pages to SVG vector drawings (text drawn as glyph outlines, images embedded). " +
			"One page gives <name>-<page>.svg; several give a zip archive <name>-svg.zip of <name>-<page>.svg, " +
			fmt.Sprintf("page numbers zero-padded so they sort. At most %d pages.", limits.RenderPages),
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."},
			{Name: "images", Type: docmill.MetaInteger, Description: "SVG files made (one is returned as is, several as a zip)."},
		},
		Params: []docmill.Param{{
			Name: paramPages, Type: docmill.TypePages,
			Description: `Pages to convert, such as "1-3,5,8-"; every page when absent. Each page is ` +
				`converted once, in page order, whatever order or repeats the selection has.`,
		}},
		Outputs: []string{svgContentType},
		MayZip:  true,
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return runSVG(ctx, e, limits, in)
		},
	}, e.PDFToCairo, e.PDFInfo)
}

// runSVG converts the selected pages, once each and in order, with one
// pdftocairo run a page (its SVG output holds one page), as many at once
// as the engine has slots, and returns the one SVG or a zip of several.
// The SVGs of a job together are held to limits.RenderOutputBytes as they are
// made, and every file to the sandbox's file size limit.
func runSVG(ctx context.Context, e Engines, limits docmill.Limits, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f := in.Files[0]
	src, dir, pages, count, err := selectedPages(ctx, e.PDFInfo, in)
	if err != nil {
		return nil, err
	}
	if len(pages) > limits.RenderPages {
		return nil, docmill.ParamError(paramPages, "selects %d pages; at most %d pages can be converted at once", len(pages), limits.RenderPages)
	}
	out := filepath.Join(dir, "svg")
	if err := os.Mkdir(out, 0o700); err != nil {
		return nil, fmt.Errorf("poppler: svg dir: %w", err)
	}
	svgs, err := convertSVGs(ctx, e.PDFToCairo, src, dir, out, pages, limits.RenderOutputBytes)
	if err != nil {
		return nil, err
	}
	meta := map[string]any{"pages": count, "images": len(pages)}
	if len(pages) == 1 {
		return &docmill.RunOutput{Path: svgs[0], ContentType: svgContentType, Meta: meta,
			Filename: docmill.ResultName(f.Filename, ".pdf", fmt.Sprintf("-%d.svg", pages[0]))}, nil
	}
	width := len(strconv.Itoa(count))
	entries := make([]zipEntry, len(pages))
	for i, p := range pages {
		entries[i] = zipEntry{name: docmill.ResultName(f.Filename, ".pdf", fmt.Sprintf("-%0*d.svg", width, p)), path: svgs[i]}
	}
	zipPath := filepath.Join(dir, "svg.zip")
	if err := writeZip(ctx, zipPath, entries, limits.RenderOutputBytes); err != nil {
		return nil, err
	}
	return ziparchive.Result(zipPath, docmill.ResultName(f.Filename, ".pdf", "-svg.zip"), meta), nil
}

// convertSVGs writes the SVG of each page into out, with at most the
// engine's slots of pdftocairo runs at once, and returns their paths in
// the order of pages. The first failure stops the others and is the
// error returned; so is passing maxBytes, the SVGs together.
func convertSVGs(ctx context.Context, pdftocairo *sandbox.Engine, src, dir, out string, pages []int, maxBytes int64) ([]string, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	paths := make([]string, len(pages))
	var (
		next  atomic.Int64 // index of the next page to take
		total atomic.Int64 // bytes written
		wg    sync.WaitGroup
	)
	for range min(max(1, pdftocairo.Slots()), len(pages)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(pages) && ctx.Err() == nil; i = int(next.Add(1) - 1) {
				path := filepath.Join(out, fmt.Sprintf("p-%d.svg", pages[i]))
				p := strconv.Itoa(pages[i])
				if _, err := pdftocairo.Run(ctx, sandbox.Cmd{Args: []string{"-svg", "-f", p, "-l", p, src, path}, Dir: dir}); err != nil {
					cancel(engineError(err, "converting it"))
					return
				}
				st, err := os.Lstat(path)
				if err != nil || !st.Mode().IsRegular() {
					cancel(fmt.Errorf("poppler: pdftocairo made no regular SVG of page %d (%v)", pages[i], err))
					return
				}
				if total.Add(st.Size()) > maxBytes {
					cancel(tooLarge(ziparchive.ErrTooLarge, maxBytes))
					return
				}
				paths[i] = path
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return paths, nil
}
