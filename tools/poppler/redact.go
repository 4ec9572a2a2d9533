package poppler

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/pdfops"
)

// redactDPI is the resolution redact-pdf draws the pages it redacts at:
// 150 dpi keeps text of 8 points legible and an A4 page at 2.2
// megapixels. A page too large for the render caps at it is drawn at the
// highest resolution they allow, and refused below minDPI.
const redactDPI = 150

// redactTool declares redact-pdf: it finds the words to black out with
// pdftotext -bbox-layout (terms, a regular expression, presets of
// personal data), adds the boxes the client gives, draws every page that
// has any with pdftoppm, paints the boxes black in the image, and has
// steps.RedactPages put the images
// in place of those pages and drop the document's metadata. Pages without
// a box are left as they are, text and vectors. With ocr=true,
// steps.TextLayer reads the painted images again and RedactPages puts the
// text it found over them, invisible. limits bound the rendering
// (RenderPages, RenderPagePixels, RenderPixelsTotal) and the OCR
// (RedactOCRPages, RedactOCRPixels: all the pages in one tesseract run,
// within the tool's timeout with the rendering); a zero field takes its
// default.
func redactTool(e Engines, limits docmill.Limits, steps Steps) *docmill.Tool {
	replace := steps.RedactPages
	limits = limits.WithDefaults()
	return engineTool(docmill.Tool{
		Slug:  "redact-pdf",
		Title: "Redact PDF",
		Description: "Black out text and areas of a PDF for good. The words that match terms, a regular expression " +
			"or presets of personal data are found in the text layer (scanned pages without one have no words to " +
			"find: give boxes, or run ocr-pdf first), and boxes can be given by position. Every page with something " +
			"to black out is replaced by an image of it at 150 dpi with black boxes painted in, so nothing under a " +
			"box survives: no text, image or vector, and such a page has no text layer, links or comments left. " +
			"Other pages are left as they are. The document's metadata (Info and XMP) is always removed; on redacted " +
			"pages its tags are too; a bookmark whose title holds a text blacked out is renamed [redacted]. Attachments, " +
			"form field values and the comments of pages without a box are not searched: remove them with sanitize-pdf, " +
			"remove-annotations or flatten-pdf first. With ocr=true the replaced pages get an invisible text layer " +
			"again, recognized by OCR in the image with the boxes already black, so it can be searched and copied " +
			"but holds nothing blacked out (OCR may misread words). " +
			fmt.Sprintf("At most %d pages are redacted, and at most %d with ocr=true.", limits.RenderPages, limits.RedactOCRPages),
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."},
			{Name: "redactions", Type: docmill.MetaInteger, Description: "Areas blacked out: each match of a term, the regex or a preset (one match may span several words), and each box given."},
			{Name: "redacted_pages", Type: docmill.MetaIntegers, Description: "The pages replaced by images, in order."},
			{Name: "redactions_per_page", Type: docmill.MetaIntegers, Description: "The redactions on each of redacted_pages, in the same order."},
			{Name: "ocr_pages", Type: docmill.MetaInteger, Description: "Redacted pages given a text layer by OCR: all of them with ocr=true, else 0."},
		},
		Params:      redactParams(limits),
		CheckParams: checkRedactSource,
		Outputs:     []string{pdfContentType},
		Available:   func() bool { return replace != nil },
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return runRedact(ctx, e, limits, steps, in)
		},
	}, e.PDFToText, e.PDFToPPM, e.PDFInfo)
}

// redactParams are redact-pdf's params, their bounds from limits.
func redactParams(limits docmill.Limits) []docmill.Param {
	return []docmill.Param{
		{
			Name: paramTerms, Type: docmill.TypeString, Max: docmill.Bound(maxRedactTermsLen), Check: checkRedactTerms, Example: "Jane Roe",
			Description: "Text to black out: one term per line, or a JSON list of strings. Matched without regard to case, " +
				"anywhere in a word, and across the words of one line (a term's spaces match any spacing); every word a " +
				fmt.Sprintf("match touches is blacked out whole. At most %d terms of %d to %d characters.", maxRedactTerms, minRedactTermChars, maxRedactTermChars),
		},
		{
			Name: paramRegex, Type: docmill.TypeString, Max: docmill.Bound(maxRedactRegexLen), Check: checkRedactRegex,
			Description: "A regular expression in Go's RE2 syntax (no backreferences; matching takes linear time), matched " +
				"on each line of text, its words joined by single spaces; case is ignored unless it starts with (?-i). " +
				"Every word a match touches is blacked out whole.",
		},
		{
			Name: paramPresets, Type: docmill.TypeString, Max: docmill.Bound(200), Check: checkRedactPresets,
			Description: "Kinds of personal data to find, comma-separated: " + presetsDescription(),
		},
		{
			Name: paramBoxes, Type: docmill.TypeString, Max: docmill.Bound(maxBoxesParamLen), Check: checkRedactBoxes,
			Description: `Areas to black out, as JSON: [{"page": 1, "x": 72, "y": 100, "width": 200, "height": 30}], ` +
				"in points (1/72 inch), x and y the top left corner of the area measured from the top left corner of the " +
				fmt.Sprintf("page as it is shown (its crop box, turned by its rotation). At most %d boxes.", maxRedactBoxParams),
		},
		{
			Name: paramPages, Type: docmill.TypePages,
			Description: `Pages whose text is searched for terms, regex and presets, such as "1-3,5,8-"; every page when absent. Boxes apply to the pages they name.`,
		},
		{
			Name: paramOCR, Type: docmill.TypeBoolean, Default: "false",
			Description: "Give the redacted pages an invisible text layer again, recognized by OCR (tesseract) in their images " +
				"with the boxes already black, so that they can be searched and copied from. Takes seconds per page; " +
				fmt.Sprintf("at most %d redacted pages.", limits.RedactOCRPages),
		},
		{
			Name: paramLang, Type: docmill.TypeString, Enum: []string{"eng", "rus", "eng+rus"}, Default: "eng+rus",
			Description: "With ocr=true, the language of the text: eng (English), rus (Russian) or eng+rus (both).",
		},
	}
}

// presetsDescription lists the presets for the catalogue.
func presetsDescription() string {
	s := ""
	for i, p := range redactPresets {
		if i > 0 {
			s += "; "
		}
		s += p.name + " (" + p.what + ")"
	}
	return s + "."
}

// checkRedactSource holds redact-pdf to having something to black out.
func checkRedactSource(p docmill.Params) error {
	if !p.Has(paramTerms) && !p.Has(paramRegex) && !p.Has(paramPresets) && !p.Has(paramBoxes) {
		return docmill.ParamError(paramTerms, "is required unless regex, presets or boxes are given")
	}
	return nil
}

// runRedact finds the boxes of every page, draws the pages that have any
// with them painted black, and has replace put those images in place of
// the pages. A document with nothing to black out still goes through
// replace, which drops its metadata.
func runRedact(ctx context.Context, e Engines, limits docmill.Limits, steps Steps, in *docmill.RunInput) (*docmill.RunOutput, error) {
	replace, ocr := steps.RedactPages, in.Params.Bool(paramOCR)
	if replace == nil || !e.PDFToText.Available() || !e.PDFToPPM.Available() {
		return nil, engineError(sandbox.ErrUnavailable, "")
	}
	if ocr && steps.TextLayer == nil {
		return nil, docmill.Errorf(docmill.CodeEngineUnavailable, "The OCR engine is not available on this server; redact without ocr.")
	}
	f := in.Files[0]
	src, dir, err := absPaths(in)
	if err != nil {
		return nil, err
	}
	count, sizes, err := pageInfo(ctx, e.PDFInfo, src, dir, limits.RenderPages)
	if err != nil {
		return nil, err
	}
	found, err := findRedactions(ctx, e.PDFToText, src, dir, count, in.Params, limits.LayoutBytes)
	if err != nil {
		return nil, err
	}
	pages := found.pages
	redacted := slices.Sorted(maps.Keys(pages))
	step := &docmill.RunInput{Files: []docmill.LocalFile{f}, WorkDir: in.WorkDir, Limits: in.Limits, Params: docmill.Params{}}
	texts, err := json.Marshal(slices.Sorted(maps.Keys(found.texts)))
	if err != nil {
		return nil, docmill.Internal(err)
	}
	step.Params[pdfops.RedactPagesParamTexts] = string(texts)
	perPage, total, ocrPages := []int{}, 0, 0
	if len(redacted) > 0 {
		dpi, err := redactResolution(ctx, e.PDFInfo, src, dir, limits, redacted, sizes)
		if err != nil {
			return nil, err
		}
		if ocr {
			if err := checkOCRBounds(limits, redacted, sizes, dpi); err != nil {
				return nil, err
			}
		}
		images, err := drawRedacted(ctx, e.PDFToPPM, src, dir, dpi, redacted, sizes, pages)
		if err != nil {
			return nil, err
		}
		step.Files = append(step.Files, images...)
		step.Params[pdfops.RedactPagesParamPages] = docmill.FormatPages(redacted)
		if ocr {
			layer, err := recognizeText(ctx, steps.TextLayer, in, images, dpi)
			if err != nil {
				return nil, err
			}
			step.Files = append(step.Files, layer)
			step.Params[pdfops.RedactPagesParamTextLayer] = "true"
			ocrPages = len(redacted)
		}
		for _, p := range redacted {
			perPage = append(perPage, pages[p].count)
			total += pages[p].count
		}
	}
	out, err := replace(ctx, step)
	if err != nil {
		return nil, err
	}
	return &docmill.RunOutput{Path: out.Path, ContentType: pdfContentType,
		Filename: docmill.ResultName(f.Filename, ".pdf", "-redacted.pdf"),
		Meta: map[string]any{"pages": count, "redactions": total, "redacted_pages": append([]int{}, redacted...),
			"redactions_per_page": perPage, "ocr_pages": ocrPages}}, nil
}

// checkOCRBounds refuses, before any page is drawn, more pages to OCR
// than limits.RedactOCRPages, or pages whose images at dpi (sizes holds
// them all) are together over limits.RedactOCRPixels: tesseract's time
// and memory grow with them, and a page drawn near the render cap could
// take it past the timeout.
func checkOCRBounds(limits docmill.Limits, pages []int, sizes map[int]pageSize, dpi int) error {
	if len(pages) > limits.RedactOCRPages {
		return docmill.LimitExceeded(fmt.Sprintf("%d pages have something to black out; at most %d pages can be redacted with ocr=true", len(pages), limits.RedactOCRPages))
	}
	var total int64
	for _, p := range pages {
		w, h := sizes[p].pixels(dpi)
		total += w * h
	}
	if total > limits.RedactOCRPixels {
		return docmill.LimitExceeded(fmt.Sprintf("The %d pages to redact would be %s at %d dpi; OCR (ocr=true) reads at most %s",
			len(pages), pixelCount(total), dpi, pixelCount(limits.RedactOCRPixels)))
	}
	return nil
}

// recognizeText has textLayer (RedactSteps.TextLayer) read the painted
// page images, drawn at dpi, in the language of in's "lang" param, and
// returns the text-only PDF it made, a page per image.
func recognizeText(ctx context.Context, textLayer docmill.RunFunc, in *docmill.RunInput, images []docmill.LocalFile, dpi int) (docmill.LocalFile, error) {
	out, err := textLayer(ctx, &docmill.RunInput{Files: images, WorkDir: in.WorkDir, Limits: in.Limits,
		Params: docmill.Params{"lang": in.Params.String(paramLang), "dpi": strconv.Itoa(dpi)}})
	if err != nil {
		return docmill.LocalFile{}, err
	}
	return docmill.LocalFile{Path: out.Path, Filename: filepath.Base(out.Path), ContentType: pdfContentType}, nil
}
