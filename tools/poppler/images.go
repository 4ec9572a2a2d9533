package poppler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ziparchive"
)

// defaultMinSize leaves out images whose smaller side is under 16 pixels:
// spacers, bullets and patterns, never a picture anyone wants back.
// maxMinSize bounds the min_size param, a bound on a param, not a cost.
const (
	defaultMinSize = 16
	maxMinSize     = 10_000
)

// imageArgs are pdfimages' output options: JPEG and JPEG 2000 images are
// written as they are stored (.jpg, .jp2), CMYK ones as TIFF and all
// others, JBIG2 and CCITT fax among them, decoded to PNG, which any
// viewer opens (their raw streams would need the PDF's parameters to be
// read). -p puts the page number in each name.
var imageArgs = []string{"-png", "-tiff", "-j", "-jp2", "-p"}

func extractImagesTool(e Engines, limits docmill.Limits) *docmill.Tool {
	return engineTool(docmill.Tool{
		Slug:  "extract-images",
		Title: "Extract images from PDF",
		Description: "Save the images embedded in a PDF, as a zip archive of <name>-p<page>-<n>.<ext>: JPEG and " +
			"JPEG 2000 images as stored, CMYK ones as TIFF, all others as PNG. Soft masks (transparency) are left " +
			"out, and so are images smaller than min_size; an image drawn several times (a logo on every page) is saved once, " +
			"named by the first page it is on. No images gives an empty zip. " +
			fmt.Sprintf("At most %d images, each at most %s.", limits.ArchiveEntries, pixelCount(limits.ImagePixels)),
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."},
			{Name: "images", Type: docmill.MetaInteger, Description: "Images in the zip."},
			{Name: "repeated", Type: docmill.MetaInteger, Description: "Placements of an image already in the zip, left out (a logo on every page is one image)."},
			{Name: "skipped_small", Type: docmill.MetaInteger, Description: "Images left out for being smaller than min_size."},
		},
		Params: []docmill.Param{
			{Name: paramMinSize, Type: docmill.TypeInteger, Default: strconv.Itoa(defaultMinSize),
				Min: docmill.Bound(0), Max: docmill.Bound(maxMinSize),
				Description: "Images whose smaller side is under this many pixels are left out (icons, bullets, " +
					"spacers); 0 keeps every image."},
			{Name: paramPages, Type: docmill.TypePages,
				Description: `Pages whose images to extract, such as "1-3,5,8-"; every page when absent.`},
		},
		Outputs: []string{ziparchive.ContentType},
		MayZip:  true,
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return runExtractImages(ctx, e, limits, in)
		},
	}, e.PDFImages, e.PDFInfo)
}

// runExtractImages lists the images of the selected pages (pdfimages
// -list), refuses what would pass the limits before anything is written,
// extracts them (pdfimages) and zips those kept, in page order.
func runExtractImages(ctx context.Context, e Engines, limits docmill.Limits, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f := in.Files[0]
	src, dir, pages, count, err := selectedPages(ctx, e.PDFInfo, in)
	if err != nil {
		return nil, err
	}
	first, last := pages[0], pages[len(pages)-1]
	listed, err := listEmbedded(ctx, e.PDFImages, src, dir, first, last, limits)
	if err != nil {
		return nil, err
	}
	keep, small := chooseImages(listed, pages, in.Params.Int(paramMinSize))
	meta := map[string]any{"pages": count, "images": len(keep), "skipped_small": small}
	name := docmill.ResultName(f.Filename, ".pdf", "-images.zip")
	zipPath := filepath.Join(dir, "images.zip")
	files := map[int]string{}
	if len(keep) > 0 {
		if files, err = extractEmbedded(ctx, e.PDFImages, src, dir, first, last); err != nil {
			return nil, err
		}
	}
	entries := make([]zipEntry, 0, len(keep))
	seen := map[string]bool{}
	for _, im := range keep {
		path, ok := files[im.num]
		if !ok {
			return nil, fmt.Errorf("poppler: pdfimages listed image %d but wrote no file of it", im.num)
		}
		// pdfimages lists and writes an image each time it is drawn: a
		// logo on every page, or one picture placed 5,000 times, is one
		// image object.
		if im.object != "" && seen[im.object] {
			continue
		}
		seen[im.object] = true
		entries = append(entries, zipEntry{
			name: docmill.ResultName(f.Filename, ".pdf", fmt.Sprintf("-p%0*d-%0*d%s", len(strconv.Itoa(count)), im.page,
				len(strconv.Itoa(len(listed))), im.num, filepath.Ext(path))),
			path: path,
		})
	}
	meta["images"], meta["repeated"] = len(entries), len(keep)-len(entries)
	if err := writeZip(ctx, zipPath, entries, limits.RenderOutputBytes); err != nil {
		return nil, err
	}
	return ziparchive.Result(zipPath, name, meta), nil
}

// chooseImages returns the listed images to extract, in order: pictures
// (not the soft masks and masks that carry another image's transparency)
// on the selected pages, whose smaller side is at least minSize; and the
// number left out for being smaller.
func chooseImages(listed []embeddedImage, pages []int, minSize int) (keep []embeddedImage, small int) {
	for _, im := range listed {
		if im.kind == "smask" || im.kind == "mask" {
			continue
		}
		if _, on := slices.BinarySearch(pages, im.page); !on {
			continue
		}
		if min(im.w, im.h) < minSize {
			small++
			continue
		}
		keep = append(keep, im)
	}
	return keep, small
}

// extractEmbedded writes the images of pages first to last with
// pdfimages into a directory of their own and returns their files by the
// image's number in pdfimages' listing ("i-007-012.png": page 7, image
// 12).
func extractEmbedded(ctx context.Context, pdfimages *sandbox.Engine, src, dir string, first, last int) (map[int]string, error) {
	out := filepath.Join(dir, "images")
	if err := os.Mkdir(out, 0o700); err != nil {
		return nil, fmt.Errorf("poppler: images dir: %w", err)
	}
	args := slices.Concat([]string{"-f", strconv.Itoa(first), "-l", strconv.Itoa(last)}, imageArgs, []string{src, filepath.Join(out, "i")})
	if _, err := pdfimages.Run(ctx, sandbox.Cmd{Args: args, Dir: dir}); err != nil {
		return nil, engineError(err, "extracting its images")
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return nil, fmt.Errorf("poppler: list images: %w", err)
	}
	files := make(map[int]string, len(entries))
	for _, en := range entries {
		num, ok := imageNumber(en.Name())
		if !ok || !en.Type().IsRegular() {
			return nil, fmt.Errorf("poppler: unexpected file %q from pdfimages", en.Name())
		}
		files[num] = filepath.Join(out, en.Name())
	}
	return files, nil
}
