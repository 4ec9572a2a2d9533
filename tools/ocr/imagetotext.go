package ocr

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// TextSlug is the slug of image-to-text.
const TextSlug = "image-to-text"

// How image-to-text reads a PDF: each page rendered by pdftoppm in grey,
// its long side scaled to textPageSide pixels (A4 at 300 dpi, what
// tesseract reads best), so a page is at most textPageSide² pixels
// (12.3 MP) whatever size the document declares; at most the run's
// Limits.ImageToTextPages pages, since OCR costs seconds a page and the
// run must fit timeout.
const (
	textPageSide = 3508
	textPageDPI  = 300
)

// textFormat is one of image-to-text's outputs: tesseract's config that
// writes it, the extension tesseract gives the file, and its content
// type.
type textFormat struct {
	config, ext, contentType string
	// options come before config on tesseract's command line (-c
	// variables).
	options []string
}

// textFormats are image-to-text's formats by the value of its format
// param. hOCR is XHTML, served as application/xhtml+xml: downloads are
// attachments with nosniff, so no browser renders one on the download
// origin, and tesseract escapes every recognized word, so a page cannot
// put markup in it.
var textFormats = map[string]textFormat{
	"txt":  {config: "txt", ext: ".txt", contentType: "text/plain; charset=utf-8"},
	"hocr": {config: "hocr", ext: ".hocr", contentType: "application/xhtml+xml"},
	"alto": {config: "alto", ext: ".xml", contentType: "application/xml"},
}

// TextTool returns image-to-text: the text of an image (JPEG, PNG, TIFF)
// or of a PDF's pages, recognized by tesseract, as plain text, hOCR or
// ALTO. A PDF's pages are rendered by pdftoppm first; all pages go to
// one tesseract run, which writes one document (pages separated by form
// feeds in text, one ocr_page or Page element each in hOCR and ALTO).
// Like Tools, it checks tesseract's language packs once, in scratch.
// steps.PrepareImage checks an image against the run's limits
// (ImagePixels) out of the server's process; steps.Pages is not used.
// limits are the node's, for the description; each run is held to its
// own RunInput.Limits.
func TextTool(tesseract, pdftoppm *sandbox.Engine, limits docmill.Limits, steps Steps, scratch string) *docmill.Tool {
	r := &textRunner{tesseract: tesseract, pdftoppm: pdftoppm, langsOK: hasLanguages(tesseract, Languages, scratch),
		prepare: steps.PrepareImage}
	return &docmill.Tool{
		Slug: TextSlug,
		Lane: docmill.LaneOCR,
		Meta: []docmill.MetaField{
			{Name: "lang", Type: docmill.MetaString, Description: "The languages recognised (Tesseract's codes, joined by +)."},
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages recognised (a PDF's pages, or 1 for an image)."},
			{Name: "text_bytes", Type: docmill.MetaInteger, Description: "Bytes of the result."},
		},
		Title: "Image to text (OCR)",
		Description: "Recognize the text of an image (JPEG, PNG, TIFF) or of a PDF's pages and return it as " +
			"plain text (<name>.txt, pages separated by form feeds), hOCR (<name>.hocr, XHTML with a box " +
			"for every word) or ALTO XML (<name>.xml). All pages make one document. At most " +
			strconv.Itoa(limits.WithDefaults().ImageToTextPages) + " PDF pages.",
		Accepts: []string{pdfContentType, "image/png", "image/jpeg", "image/tiff"},
		// A PDF passes the stream check first; a HEIC or AVIF photo is
		// converted to a JPEG, which leptonica reads.
		CheckPDFs:      true,
		ConvertsImages: "jpg",
		Outputs:        []string{"text/plain", "application/xhtml+xml", "application/xml"},
		OutputsFor: func(p docmill.Params) []string {
			ct, _, _ := strings.Cut(textFormats[p.String(paramFormat)].contentType, ";")
			return []string{ct}
		},
		MinFiles: 1,
		MaxFiles: 1,
		Params: []docmill.Param{{
			Name: paramFormat, Type: docmill.TypeString, Enum: []string{"txt", "hocr", "alto"}, Default: "txt",
			Description: "txt: plain UTF-8 text; hocr: hOCR (XHTML with word boxes); alto: ALTO XML.",
		}, {
			Name: paramLang, Type: docmill.TypeString, Enum: []string{"eng", "rus", "eng+rus"}, Default: defaultLang,
			Description: "The language of the text: eng (English), rus (Russian) or eng+rus (both).",
		}},
		Long:    true,
		Engine:  "tesseract",
		Timeout: timeout,
		Rates:   docmill.Unsized, // recognition works by pages and pixels, which bytes do not tell
		Available: func() bool {
			return r.tesseract.Available() && r.pdftoppm.Available() && r.langsOK
		},
		Engines: func() []docmill.EngineStatus {
			tess := r.tesseract.Status()
			tess.Available = tess.Available && r.langsOK
			return []docmill.EngineStatus{tess, r.pdftoppm.Status()}
		},
		Run: r.run,
	}
}

// textRunner holds image-to-text's engines and its step.
type textRunner struct {
	tesseract, pdftoppm *sandbox.Engine
	langsOK             bool
	prepare             docmill.RunFunc
}

// run recognizes the one input: the images to read (a PDF's rendered
// pages, or the prepared image) and their resolution, then one tesseract
// run over them all.
func (r *textRunner) run(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	if !r.tesseract.Available() || !r.langsOK {
		return nil, unavailable(nil)
	}
	f := in.Files[0]
	format := textFormats[in.Params.String(paramFormat)]
	lang := in.Params.String(paramLang)
	input, err := filepath.Abs(f.Path)
	if err != nil {
		return nil, docmill.Internal(fmt.Errorf("image-to-text: input path: %w", err))
	}
	workDir, err := filepath.Abs(in.WorkDir)
	if err != nil {
		return nil, docmill.Internal(fmt.Errorf("image-to-text: work dir: %w", err))
	}
	var images []string
	dpi := textPageDPI
	if f.ContentType == pdfContentType {
		if images, err = r.renderPages(ctx, input, workDir, in.Limits.WithDefaults().ImageToTextPages); err != nil {
			return nil, err
		}
	} else {
		ocr := &runner{prepare: r.prepare}
		img, err := ocr.prepareImage(ctx, f, input, workDir, in.Limits)
		if err != nil {
			return nil, err
		}
		images, dpi = []string{img.path}, img.dpi
	}
	out, err := r.recognize(ctx, images, dpi, lang, format, workDir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(out)
	if err != nil {
		return nil, docmill.Internal(fmt.Errorf("image-to-text: tesseract wrote no %s: %w", format.ext, err))
	}
	return &docmill.RunOutput{
		Path:        out,
		Filename:    docmill.ResultName(f.Filename, "", format.ext),
		ContentType: format.contentType,
		Meta:        map[string]any{"lang": lang, "pages": len(images), "text_bytes": st.Size()},
	}, nil
}

// recognize runs tesseract once over images (a list file when there are
// several) and returns the path of what it wrote.
func (r *textRunner) recognize(ctx context.Context, images []string, dpi int, lang string, format textFormat, workDir string) (string, error) {
	input := images[0]
	if len(images) > 1 {
		// tesseract reads a file that is not an image as a list of
		// images, one path a line, and writes one multi-page document.
		// The sandbox maps the paths of a run's arguments into the jail,
		// not those inside a file, so the list names the pages relative
		// to the run's working directory, which sandbox.Engine.Run makes
		// directly in Cmd.Dir (workDir).
		var list strings.Builder
		for _, img := range images {
			rel, err := filepath.Rel(workDir, img)
			if err != nil || strings.HasPrefix(rel, "..") {
				return "", docmill.Internal(fmt.Errorf("image-to-text: page %s is not in the work directory", img))
			}
			list.WriteString(filepath.Join("..", rel) + "\n")
		}
		input = filepath.Join(workDir, "ocr-pages.lst")
		if err := os.WriteFile(input, []byte(list.String()), 0o600); err != nil {
			return "", docmill.Internal(fmt.Errorf("image-to-text: page list: %w", err))
		}
	}
	base := filepath.Join(workDir, "ocr-text")
	args := append([]string{input, base, "--dpi", strconv.Itoa(dpi), "-l", lang}, format.options...)
	args = append(args, format.config)
	if _, err := r.tesseract.Run(ctx, sandbox.Cmd{Args: args, Dir: workDir, Timeout: timeout}); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return "", ctxErr
		}
		return "", sandbox.Classify(err, sandbox.Causes{
			Engine:  "The OCR engine",
			Refused: "The file could not be read: it is damaged, or not an image OCR supports.",
		})
	}
	return base + format.ext, nil
}

// renderPages renders the PDF at src into grey PNGs in workDir, one a
// page in page order, refusing a document of more than maxPages pages
// (pdftoppm is asked for one more, to tell).
func (r *textRunner) renderPages(ctx context.Context, src, workDir string, maxPages int) ([]string, error) {
	if !r.pdftoppm.Available() {
		return nil, unavailable(nil)
	}
	dir := filepath.Join(workDir, "ocr-pages")
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, docmill.Internal(fmt.Errorf("image-to-text: pages dir: %w", err))
	}
	// src is absolute, so pdftoppm cannot read it as an option.
	args := []string{"-gray", "-png", "-cropbox", "-scale-to", strconv.Itoa(textPageSide),
		"-l", strconv.Itoa(maxPages + 1), src, filepath.Join(dir, "page")}
	if _, err := r.pdftoppm.Run(ctx, sandbox.Cmd{Args: args, Dir: workDir, Timeout: timeout}); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, pdfRenderError(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, docmill.Internal(fmt.Errorf("image-to-text: read pages: %w", err))
	}
	var pages []string
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".png") {
			pages = append(pages, filepath.Join(dir, e.Name()))
		}
	}
	// pdftoppm pads page numbers to one width, so names sort in order.
	slices.Sort(pages)
	switch {
	case len(pages) == 0:
		return nil, docmill.InvalidDocument(nil, "The PDF has no page to read.")
	case len(pages) > maxPages:
		return nil, docmill.LimitExceeded(fmt.Sprintf("The document has more than %d pages; OCR reads at most %d at once", maxPages, maxPages))
	}
	return pages, nil
}

// pdfRenderError classifies a failed pdftoppm run: exit status 1 with
// "Incorrect password" on standard error is an encrypted file, any other
// refusal a damaged one.
func pdfRenderError(err error) error {
	return sandbox.Classify(err, sandbox.Causes{
		Engine:  "The PDF renderer",
		Refused: "The file could not be read as a PDF: it is damaged, truncated or not a PDF.",
		Exit: func(x *sandbox.ExitError) *docmill.Error {
			if x.Code == 1 && strings.Contains(x.Stderr, "Incorrect password") {
				return docmill.Errorf(docmill.CodeInvalidDocument, "The file is password-protected. Remove the password (unlock-pdf) and try again.")
			}
			return nil
		},
	})
}
