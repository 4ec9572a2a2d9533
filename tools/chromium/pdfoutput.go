package chromium

import (
	"context"
	"math"
	"os"
	"strings"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	docmill "github.com/docmill/docmill"
)

// pdfaParts are the pdfa param's values and the conformance the PDF/A
// step (Options.PDFA) is asked for; "none" asks for none.
var pdfaParts = map[string]string{"none": "", "1b": "1b", "2b": "2b", "3b": "3b"}

// The params the PDF/A and PDF/UA steps take (see Options).
const (
	stepParamConformance = "conformance"
	stepParamLang        = "lang"
)

// onePageSlack is added to a single page's measured height, in CSS
// pixels: the print's layout rounds lengths a little differently from the
// measure's, and a page a pixel short would spill onto a second one.
const onePageSlack = 4

// outputParams are the options of what the PDF is beyond its pages'
// look: an outline, one page, PDF/A or PDF/UA.
func outputParams() []docmill.Param {
	return []docmill.Param{
		{Name: paramOutline, Type: docmill.TypeBoolean, Default: "false",
			Description: "Add bookmarks (the PDF's outline) made from the page's headings, h1 to h6, nested by level. " +
				"Chromium builds them from the PDF's structure tree, so the PDF is tagged too (see tagged)."},
		{Name: paramSinglePage, Type: docmill.TypeBoolean, Default: "false",
			Description: "Print the whole page on one PDF page as tall as its content (page_size or paper_width gives the width; " +
				"landscape takes the paper's long side), with CSS page breaks ignored. A page taller than " + fmtInches(maxPaper) +
				" (the longest paper) goes on as many pages of that height as it needs. Not with paper_height, page_ranges or prefer_css_page_size."},
		{Name: paramPDFA, Type: docmill.TypeString, Default: "none", Enum: []string{"none", "1b", "2b", "3b"},
			Description: "Make the PDF a PDF/A (archival) file of this part, level B, through pdf-to-pdfa's conversion (Ghostscript): " +
				"fonts embedded, colours tied to an sRGB output intent, the claim in the XMP metadata. " +
				"The conversion keeps the text, links and outline but not a structure tree, so it is refused with tagged or pdfua."},
		{Name: paramPDFUA, Type: docmill.TypeBoolean, Default: "false",
			Description: "Mark the PDF for PDF/UA-1 (universal accessibility): tagged (as tagged=true), the title shown in the window's title bar, " +
				"the language of the page's <html lang> as the document's, Marked content, and the PDF/UA-1 claim in the XMP metadata. " +
				"Whether the file conforms depends on the page too (alt text, heading order, a title, a lang): see docs/api.md."},
	}
}

// checkPrintParams holds the print tools' params to each other: the
// PDF/A conversion keeps no structure tree, and single_page sets the
// height and the pages itself.
func checkPrintParams(p docmill.Params) error {
	pdfa := p.String(paramPDFA) != "" && p.String(paramPDFA) != "none"
	switch {
	case pdfa && p.Bool(paramPDFUA):
		return docmill.ParamError(paramPDFUA, "cannot be combined with pdfa: the PDF/A conversion drops the structure tree that PDF/UA needs")
	case pdfa && p.Bool(paramTagged):
		return docmill.ParamError(paramTagged, "cannot be combined with pdfa: the PDF/A conversion drops the structure tree")
	case !p.Bool(paramSinglePage):
		return nil
	case p.Has(paramPaperHeight):
		return docmill.ParamError(paramPaperHeight, "cannot be given with single_page, which makes the page as tall as its content")
	case p.Has(paramPageRanges):
		return docmill.ParamError(paramPageRanges, "cannot be given with single_page, which prints one page")
	case p.Bool(paramPreferCSSPageSize):
		return docmill.ParamError(paramPreferCSSPageSize, "cannot be true with single_page, which sets the page's size")
	}
	return nil
}

// outputFrom reads the output options into s.
func (s *printSettings) outputFrom(p docmill.Params) {
	s.outline = p.Bool(paramOutline)
	s.singlePage = p.Bool(paramSinglePage)
	s.pdfa = pdfaParts[p.String(paramPDFA)]
	s.pdfua = p.Bool(paramPDFUA)
	// Chromium builds the outline from the structure tree, and PDF/UA
	// is a tagged PDF.
	s.tagged = s.tagged || s.outline || s.pdfua
}

// fitOnePage sets s's paper to one page as tall as the loaded page's
// content at the paper's width, capped at maxPaper: the page is laid
// out at the width it prints at (the paper's, less the side margins,
// over the scale) for its media, with forced page breaks turned off, and
// its height measured. The tab's reset clears the viewport and media.
func fitOnePage(ctx context.Context, s *printSettings) error {
	width := s.paper.width
	if s.landscape {
		width = max(s.paper.width, s.paper.height)
	}
	s.landscape = false
	cssWidth := math.Max(1, (width-s.margins[1]-s.margins[3])*96/s.scale)
	media := "print"
	if s.screen {
		media = "screen"
	}
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: media}); err != nil {
		return err
	}
	metrics := emulation.SetDeviceMetricsOverrideParams{Width: int64(math.Round(cssWidth)), Height: 800, DeviceScaleFactor: 1}
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, metrics); err != nil {
		return err
	}
	const measure = `(() => {
	const s = document.createElement("style");
	s.textContent = "* { break-before: auto !important; break-after: auto !important; page-break-before: auto !important; page-break-after: auto !important }";
	(document.head || document.documentElement).append(s);
	const d = document.documentElement, b = document.body;
	return Math.max(d.scrollHeight, d.getBoundingClientRect().height, b ? b.scrollHeight : 0);
})()`
	h, err := chromedp.Run(ctx, chromedp.Evaluate[float64](measure))
	if err != nil {
		return err
	}
	s.paper.width = width
	s.paper.height = math.Min(maxPaper, math.Max(minPaper, (math.Ceil(h)+onePageSlack)*s.scale/96+s.margins[0]+s.margins[2]))
	return nil
}

// pageLang reads the page's language, <html lang>, for PDF/UA: "" when
// it sets none or one that is not a language tag.
func pageLang(ctx context.Context) (string, error) {
	lang, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.lang || ""`))
	if err != nil {
		return "", err
	}
	lang = strings.TrimSpace(lang)
	if len(lang) > 35 || strings.Trim(lang, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-") != "" {
		return "", nil
	}
	return lang, nil
}

// outputStep returns the step after the print that s asks for, and its
// params: nil when it asks for none; engine_unavailable when the step is
// missing on this node, found before the page is printed.
func (b *Browser) outputStep(s printSettings) (docmill.RunFunc, docmill.Params, error) {
	params := docmill.Params{}
	switch {
	case s.pdfua:
		if b.opts.PDFUA == nil {
			return nil, nil, docmill.Errorf(docmill.CodeEngineUnavailable, "PDF/UA output is not available on this server.")
		}
		if s.facts.lang != "" {
			params[stepParamLang] = s.facts.lang
		}
		return b.opts.PDFUA, params, nil
	case s.pdfa != "":
		if b.opts.PDFA == nil || !b.opts.PDFA.IsAvailable() {
			return nil, nil, docmill.Errorf(docmill.CodeEngineUnavailable, "PDF/A output is not available on this server.")
		}
		params[stepParamConformance] = s.pdfa
		return b.opts.PDFA.Invoke, params, nil
	}
	return nil, nil, nil
}

// finishPDF runs the printed PDF at path through the PDF/UA or PDF/A
// step s asks for (outputStep), and returns the path of the result
// (path itself when it asks for neither).
func (b *Browser) finishPDF(ctx context.Context, in *docmill.RunInput, path string, s printSettings) (string, error) {
	step, params, err := b.outputStep(s)
	if err != nil || step == nil {
		return path, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", docmill.Internal(err)
	}
	file := docmill.LocalFile{Path: path, Filename: "result.pdf", ContentType: "application/pdf", Size: st.Size()}
	out, err := step(ctx, &docmill.RunInput{Files: []docmill.LocalFile{file}, Params: params, WorkDir: in.WorkDir,
		Limits: in.Limits, FreshEngines: in.FreshEngines})
	if err != nil {
		return "", err
	}
	return out.Path, nil
}

// pdfMeta is a PDF job's meta.
func pdfMeta(blocked int64, s printSettings) map[string]any {
	return map[string]any{"blocked_requests": blocked, "wait_timed_out": s.wait.timedOut}
}
