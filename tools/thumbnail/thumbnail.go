// Package thumbnail provides document-thumbnail: a PNG of the first page
// of a PDF, an office document or an image, at a given width.
//
// It runs no engine of its own: it composes other tools, given as steps
// by cmd/docmill, so that every document still meets each engine's own
// checks and jail (the PDF stream check, LibreOffice's pool with macros
// off, vips' pixel cap). A PDF is drawn by pdf-to-png (its first page);
// an office document is first exported by LibreOffice to a PDF of its
// first page; the picture is then scaled to the width by resize-image,
// and an image input is scaled by resize-image and saved as PNG by
// convert-image.
package thumbnail

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	docmill "github.com/docmill/docmill"
)

// Bounds of the width param, in pixels: a thumbnail is a preview, and
// a page drawn wider is pdf-to-png's work, held to the render limits, so
// they are facts of the tool, not costs a node sets.
const (
	minWidth     = 16
	maxWidth     = 2000
	defaultWidth = 400
)

// Steps are the tools document-thumbnail runs. Each is used through its
// declaration: its params are parsed (defaults filled) and it is
// invoked, as the job runner would.
type Steps struct {
	// PDFToPNG draws pages of a PDF (poppler's pdf-to-png: dpi, pages).
	PDFToPNG *docmill.Tool
	// Resize scales an image (vips' resize-image: width, enlarge).
	Resize *docmill.Tool
	// ConvertImage saves an image in another format (vips'
	// convert-image: format).
	ConvertImage *docmill.Tool
	// OfficeToPDF exports the first page of an office document of any
	// family to PDF (office.Pool.FirstPagePDF).
	OfficeToPDF docmill.RunFunc
	// OfficeTypes are the content types OfficeToPDF takes.
	OfficeTypes []string
}

const pdfType = "application/pdf"

// imageTypes are the image inputs taken (those resize-image reads: it
// writes a HEIF/HEIC as a JPEG and an AVIF as an AVIF, which convert-image
// then saves as PNG).
var imageTypes = []string{"image/jpeg", "image/png", "image/webp", "image/tiff", "image/gif", "image/heif", "image/avif"}

// Tool returns document-thumbnail on steps.
func Tool(steps Steps) *docmill.Tool {
	accepts := slices.Concat([]string{pdfType}, imageTypes, steps.OfficeTypes)
	slices.Sort(accepts)
	accepts = slices.Compact(accepts)
	return &docmill.Tool{
		Slug:        "document-thumbnail",
		Lane:        docmill.LaneOffice,
		Title:       "Document thumbnail",
		Description: "Make a PNG picture of the first page of a PDF, an office document (Word, Excel, PowerPoint, OpenDocument, RTF, text) or an image, at the width asked for.",
		Accepts:     accepts,
		Outputs:     []string{"image/png"},
		MinFiles:    1, MaxFiles: 1,
		Params: []docmill.Param{{
			Name: paramWidth, Type: docmill.TypeInteger, Default: strconv.Itoa(defaultWidth),
			Min: docmill.Bound(minWidth), Max: docmill.Bound(maxWidth),
			Description: fmt.Sprintf("Width of the picture in pixels, %d-%d; the height follows the page's proportions.", minWidth, maxWidth),
		}},
		Meta: []docmill.MetaField{
			{Name: "width", Type: docmill.MetaInteger, Description: "Width of the picture, pixels."},
		},
		Engine:    "poppler, libreoffice, libvips",
		Timeout:   5 * time.Minute,
		Rates:     docmill.Unsized, // a render, or an office conversion that may wait for LibreOffice to start
		Available: func() bool { return steps.available() },
		Engines: func() []docmill.EngineStatus {
			var out []docmill.EngineStatus
			for _, t := range []*docmill.Tool{steps.PDFToPNG, steps.Resize, steps.ConvertImage} {
				if t != nil && t.Engines != nil {
					out = append(out, t.Engines()...)
				}
			}
			return out
		},
		Run: steps.run,
	}
}

// available: the PDF and image steps are required; an office input
// without its step answers engine_unavailable from OfficeToPDF's pool.
func (s Steps) available() bool {
	return s.PDFToPNG != nil && s.Resize != nil && s.ConvertImage != nil &&
		s.PDFToPNG.IsAvailable() && s.Resize.IsAvailable() && s.ConvertImage.IsAvailable()
}

func (s Steps) run(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	width := in.Params.Int(paramWidth)
	file := in.Files[0]
	var err error
	switch {
	case slices.Contains(imageTypes, file.ContentType):
		if file, err = s.step(ctx, in, s.Resize, file, map[string]string{docmill.CapParamWidth: strconv.Itoa(width), docmill.CapParamEnlarge: "true"}); err != nil {
			return nil, err
		}
		if file.ContentType != "image/png" {
			if file, err = s.step(ctx, in, s.ConvertImage, file, map[string]string{docmill.CapParamFormat: "png"}); err != nil {
				return nil, err
			}
		}
	default:
		if file.ContentType != pdfType {
			if s.OfficeToPDF == nil {
				return nil, docmill.Errorf(docmill.CodeEngineUnavailable, "The LibreOffice engine is not available on this server; please retry later.")
			}
			out, err := s.OfficeToPDF(ctx, &docmill.RunInput{Files: []docmill.LocalFile{file}, WorkDir: in.WorkDir, Limits: in.Limits, Params: docmill.Params{}, FreshEngines: in.FreshEngines})
			if err != nil {
				return nil, err
			}
			file = docmill.LocalFile{Path: out.Path, Filename: out.Filename, ContentType: pdfType}
		}
		if file, err = s.firstPage(ctx, in, file, width); err != nil {
			return nil, err
		}
		if file, err = s.step(ctx, in, s.Resize, file, map[string]string{docmill.CapParamWidth: strconv.Itoa(width), docmill.CapParamEnlarge: "true"}); err != nil {
			return nil, err
		}
	}
	return &docmill.RunOutput{
		Path: file.Path, Filename: docmill.ResultName(in.Files[0].Filename, "", "-thumbnail.png"), ContentType: "image/png",
		Meta: map[string]any{"width": width},
	}, nil
}

// pdf-to-png's bounds of its dpi param.
const minDPI, maxDPI = 72, 600

// firstPage draws the first page of the PDF file with pdf-to-png, for
// a picture width pixels wide, which the resize then makes exact. The
// dpi is first the one that gives about that width on an A4 or letter
// page. A larger page that pdf-to-png's pixel caps refuse at it (its
// error on "dpi") is drawn at lower ones, down to minDPI, and enlarged
// by the resize. Any other parameter error (a page too large at any dpi,
// or a document of no page, both on "pages") is refused as
// invalid_document: pdf-to-png's params are set here, not by the
// client, so its parameter errors never reach the client as such.
func (s Steps) firstPage(ctx context.Context, in *docmill.RunInput, file docmill.LocalFile, width int) (docmill.LocalFile, error) {
	dpi := min(max(int(math.Ceil(float64(width)/8.0)), minDPI), maxDPI)
	for {
		out, err := s.step(ctx, in, s.PDFToPNG, file, map[string]string{docmill.CapParamDPI: strconv.Itoa(dpi), docmill.CapParamPages: "1"})
		var e *docmill.Error
		if err == nil || !errors.As(err, &e) || e.Code != docmill.CodeInvalidParameter {
			return out, err
		}
		if len(e.Fields) > 0 && e.Fields[0].Field == docmill.CapParamDPI && dpi > minDPI {
			dpi = max(dpi*2/3, minDPI) // a few tries, each refused before any drawing
			continue
		}
		return docmill.LocalFile{}, docmill.InvalidDocument(err, "The first page could not be drawn: the document has none, or it is above the pixel limits of this server even at %d dpi.", minDPI)
	}
}

// step runs tool on file with raw params, parsed as the job runner
// parses them, and returns its result as the next step's input.
func (s Steps) step(ctx context.Context, in *docmill.RunInput, tool *docmill.Tool, file docmill.LocalFile, raw map[string]string) (docmill.LocalFile, error) {
	params, err := tool.ParseParams(raw)
	if err != nil {
		return docmill.LocalFile{}, fmt.Errorf("thumbnail: %s params: %w", tool.Slug, err)
	}
	out, err := tool.Invoke(ctx, &docmill.RunInput{Files: []docmill.LocalFile{file}, Params: params, WorkDir: in.WorkDir, Limits: in.Limits})
	if err != nil {
		return docmill.LocalFile{}, err
	}
	if strings.HasSuffix(out.Filename, ".zip") {
		return docmill.LocalFile{}, fmt.Errorf("thumbnail: %s made a zip", tool.Slug)
	}
	return docmill.LocalFile{Path: out.Path, Filename: out.Filename, ContentType: out.ContentType}, nil
}
