package pdfops

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"

	docmill "github.com/docmill/docmill"
)

// maxImageFiles is the tool's MaxFiles.
const maxImageFiles = 200

// Page geometry, in points (1/72 inch).
var (
	imagePageSizes = map[string][2]float64{"a4": {595.28, 841.89}, "letter": {612, 792}}
	// imageMargins are the white borders of iLovePDF's "small" and "big".
	imageMargins = map[string]float64{"none": 0, "small": 20, "big": 50}
)

const (
	// maxPageSide is the largest page side PDF 1.x readers accept (200
	// inches); larger fit pages are scaled down to it.
	maxPageSide = 14400
	// minPageSide is the smallest; smaller fit pages are padded to it.
	minPageSide = 3
)

// imageFormats names the formats jpg-to-pdf reads, by sniffed type.
var imageFormats = map[string]string{"jpeg": "JPEG", "png": "PNG", "gif": "GIF", "tiff": "TIFF", "webp": "WebP"}

// imagesToPDFTool declares jpg-to-pdf.
func imagesToPDFTool() *docmill.Tool {
	return pdfTool(docmill.Tool{
		Slug: "jpg-to-pdf",
		// A HEIC or AVIF photo is converted to a JPEG, embedded as it is
		// (a PNG of a 12 MP photo would make a PDF ten times larger).
		ConvertsImages: "jpg",
		Meta:           []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document: one per image."}},
		Title:          "JPG to PDF",
		Description:    "Convert JPEG, PNG, GIF, TIFF and WebP images to a PDF, one page per image in the order they are uploaded. JPEGs are embedded without re-compression; EXIF orientation is honoured.",
		Accepts:        []string{"image/jpeg", "image/png", "image/gif", "image/tiff", "image/webp"},
		MinFiles:       1,
		MaxFiles:       maxImageFiles,
		Params: []docmill.Param{
			{
				Name:        pageSizeName,
				Type:        docmill.TypeString,
				Description: "fit: each page is the size of its image, at the image's declared resolution (72 dpi when none); a4, letter: each image is scaled to fill the page inside the margins, centred.",
				Enum:        []string{"fit", "a4", "letter"},
				Default:     "fit",
			},
			{
				Name:        orientationParam,
				Type:        docmill.TypeString,
				Description: "Page orientation for a4 and letter; auto makes a page landscape when its image is wider than tall. Ignored for fit.",
				Enum:        []string{"auto", "portrait", "landscape"},
				Default:     "auto",
			},
			{
				Name:        marginParam,
				Type:        docmill.TypeString,
				Description: "White border around each image: none, small (20 pt, 7 mm) or big (50 pt, 18 mm).",
				Enum:        []string{"none", "small", "big"},
				Default:     "none",
			},
		},
	}, runImagesToPDF)
}

// runImagesToPDF makes one page per image, in upload order. All images
// are probed and capped first; then each is embedded and its page built
// in turn, so at most one decoded image is in memory at a time.
func runImagesToPDF(ctx context.Context, in *docmill.RunInput, b *budget) (out *docmill.RunOutput, err error) {
	lay := imageLayoutParams(in.Params)
	files := in.Files
	label := func(i int) string {
		if len(files) == 1 {
			return fmt.Sprintf("The file (%q)", files[i].Filename)
		}
		return fmt.Sprintf("File %d (%q)", i+1, files[i].Filename)
	}
	if err := checkSizes(b, in.Files, "images", label); err != nil {
		return nil, err
	}
	probes, err := probeImages(b, in.Files, label)
	if err != nil {
		return nil, err
	}

	doc, pagesRef, pages, err := newImageDocument()
	if err != nil {
		return nil, err
	}
	for i, f := range in.Files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := addImagePage(doc, pagesRef, pages, f.Path, probes[i], lay, label(i)); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	return writeOutput(doc, in.WorkDir, "images.pdf", imagesOutputName(in.Files), map[string]any{"pages": doc.PageCount})
}

// newImageDocument returns an empty document and its page tree node, by
// reference and dereferenced, ready for addImagePage.
func newImageDocument() (*model.Context, types.IndirectRef, types.Dict, error) {
	doc, err := pdfcpu.CreateContextWithXRefTable(newConfig(model.IMPORTIMAGES), &types.Dim{Width: 612, Height: 792})
	if err != nil {
		return nil, types.IndirectRef{}, nil, fmt.Errorf("pdfops: new document: %w", err)
	}
	ref, err := doc.Pages()
	if err != nil || ref == nil {
		return nil, types.IndirectRef{}, nil, fmt.Errorf("pdfops: new document: no page tree: %v", err)
	}
	pages, err := doc.DereferenceDict(*ref)
	if err != nil || pages == nil {
		return nil, types.IndirectRef{}, nil, fmt.Errorf("pdfops: new document: no page tree: %v", err)
	}
	pages.Delete("MediaBox") // every page has its own
	return doc, *ref, pages, nil
}

// imageLayoutParams reads the page layout from validated params: each is
// an enum with a default, page_size and margin of imagePageSizes' (and
// "fit") and imageMargins' keys (TestImageEnumsMatchTables).
func imageLayoutParams(p docmill.Params) imageLayout {
	return imageLayout{pageSize: p.String(pageSizeName), orientation: p.String(orientationParam),
		margin: imageMargins[p.String(marginParam)]}
}

// imageProbe is what the header of an input declares.
type imageProbe struct {
	format        string // a key of imageFormats
	width, height int    // stored pixel dimensions
}

// probeImages reads every input's format and dimensions, without
// decoding pixels, and applies the pixel caps.
func probeImages(b *budget, files []docmill.LocalFile, label func(int) string) ([]imageProbe, error) {
	l := b.l
	probes := make([]imageProbe, len(files))
	var decoded int64
	for i, f := range files {
		p, err := probeImage(f.Path, label(i))
		if err != nil {
			return nil, err
		}
		pixels, limit := int64(p.width)*int64(p.height), l.EmbeddedImagePixels
		if p.format != "jpeg" {
			limit = l.DecodedImagePixels
			decoded += pixels
		}
		if pixels > limit {
			return nil, docmill.InvalidDocument(nil, "%s is %d x %d pixels; this tool handles %s images of up to %d megapixels.",
				label(i), p.width, p.height, imageFormats[p.format], limit/1_000_000)
		}
		probes[i] = p
	}
	if decoded > l.DecodedImagePixelsTotal {
		return nil, docmill.InvalidDocument(nil, "The PNG, GIF, TIFF and WebP images total %d megapixels; this tool handles up to %d megapixels of them at once (JPEGs do not count). Send them in smaller batches.",
			decoded/1_000_000, l.DecodedImagePixelsTotal/1_000_000)
	}
	return probes, nil
}

// probeImage sniffs the format of the image at path from its bytes and
// reads its dimensions from its header.
func probeImage(path, label string) (p imageProbe, err error) {
	defer recoverImagePanic(&err, label)
	f, err := os.Open(path)
	if err != nil {
		return p, fmt.Errorf("pdfops: open input: %w", err)
	}
	defer f.Close()
	var head [12]byte
	n, _ := io.ReadFull(f, head[:])
	if n == 0 {
		return p, docmill.InvalidDocument(nil, "%s is empty.", label)
	}
	if p.format = sniffImage(head[:n]); p.format == "" {
		return p, docmill.InvalidDocument(nil, "%s is not a JPEG, PNG, GIF, TIFF or WebP image.", label)
	}
	r := bufio.NewReader(io.NewSectionReader(f, 0, 1<<62))
	var cfg image.Config
	switch p.format {
	case "jpeg":
		cfg, err = jpeg.DecodeConfig(r)
	case "png":
		cfg, err = png.DecodeConfig(r)
	case "gif":
		cfg, err = gif.DecodeConfig(r)
	case "webp":
		cfg, err = webp.DecodeConfig(r)
	case "tiff":
		cfg, err = tiff.DecodeConfig(r)
	}
	if err == nil && (cfg.Width <= 0 || cfg.Height <= 0) {
		err = fmt.Errorf("dimensions %dx%d", cfg.Width, cfg.Height)
	}
	if err != nil {
		return p, unreadableImage(err, label, p.format)
	}
	p.width, p.height = cfg.Width, cfg.Height
	return p, nil
}

// sniffImage returns the format whose signature starts head, or "".
func sniffImage(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\xFF\xD8\xFF")):
		return "jpeg"
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1A\n")):
		return "png"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "gif"
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		return "tiff"
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return "webp"
	}
	return ""
}

// unreadableImage is the invalid_document error for an image its decoder
// refuses; err, the decoder's reason, stays internal.
func unreadableImage(err error, label, format string) error {
	return docmill.InvalidDocument(err, "%s could not be read as a %s image: it is damaged, truncated or uses a variant this tool does not support.",
		label, imageFormats[format])
}

// recoverImagePanic turns a panic while reading one image (decoders have
// panicked on hostile input before) into an invalid_document error naming
// it. Functions defer it with a named result.
func recoverImagePanic(err *error, label string) {
	if r := recover(); r != nil {
		*err = docmill.InvalidDocument(fmt.Errorf("image panic: %v\n%s", r, debug.Stack()),
			"%s could not be read as an image: it is damaged or uses a variant this tool does not support.", label)
	}
}

// imageExtensions are stripped from an input's name to name the output.
var imageExtensions = map[string]bool{".jpg": true, ".jpeg": true, ".jpe": true, ".jfif": true,
	".png": true, ".gif": true, ".tif": true, ".tiff": true, ".webp": true}

// imagesOutputName is "<name>.pdf" for one image ("photo.jpg" ->
// "photo.pdf") and "images.pdf" for several.
func imagesOutputName(files []docmill.LocalFile) string {
	if len(files) != 1 {
		return "images.pdf"
	}
	name := files[0].Filename
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if ext := filepath.Ext(name); imageExtensions[strings.ToLower(ext)] {
		name = strings.TrimSuffix(name, ext)
	}
	return docmill.ResultName(name, ".pdf", ".pdf")
}
