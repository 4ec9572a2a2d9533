package chromium

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	docmill "github.com/docmill/docmill"
)

const (
	// maxTemplateLength bounds header_html and footer_html, in
	// characters: a header is a line or two of markup, and the HTTP edge
	// holds a form field to 64 KiB anyway.
	maxTemplateLength = 32 << 10
	// templateMargin is the top or bottom margin, in inches, given to a
	// header or footer whose side has none (margin=none and no
	// margin_top/margin_bottom): Chromium draws the templates inside the
	// margins, so with none they would not show.
	templateMargin = 0.4
	// minPaper and maxPaper bound paper_width and paper_height, in
	// inches (1 in to 200 in, beyond any real paper).
	minPaper, maxPaper = 1.0, 200.0
	// maxSideMargin bounds margin_*, in inches.
	maxSideMargin = 20.0
)

// units are the lengths paper_* and margin_* accept, in inches.
var units = map[string]float64{"in": 1, "cm": 1 / 2.54, "mm": 1 / 25.4, "pt": 1.0 / 72, "px": 1.0 / 96}

// optionParams are the print options the PDF tools share beyond
// printParams: header and footer, scale, page ranges, CSS page size,
// media, and exact paper and margins.
func optionParams() []docmill.Param {
	template := " An HTML template, printed in the margin of every page with the page's styles left out; " +
		"elements of class pageNumber, totalPages, date, title and url get those values " +
		`(<span class="pageNumber"></span> / <span class="totalPages"></span>). It loads nothing: images must be data: URLs. ` +
		"Its text is small unless styled (font-size). It is drawn within the margin on its side: when that margin is 0 (margin=none), 0.4 in (10 mm) is used."
	length := func(what, example string, lo, hi float64) string {
		return what + ", a length with its unit: mm, cm, in, pt or px, such as " + example + " (" +
			fmtInches(lo) + " to " + fmtInches(hi) + ")."
	}
	ps := []docmill.Param{
		{Name: paramHeaderHTML, Type: docmill.TypeString, Max: docmill.Bound(maxTemplateLength),
			Description: "Page header." + template},
		{Name: paramFooterHTML, Type: docmill.TypeString, Max: docmill.Bound(maxTemplateLength),
			Description: "Page footer." + template},
		{Name: paramScale, Type: docmill.TypeNumber, Default: "1", Min: docmill.Bound(0.1), Max: docmill.Bound(2),
			Description: "Scale of the page's rendering, 0.1 to 2."},
		{Name: paramPageRanges, Type: docmill.TypePages,
			Description: `Pages to print, such as 1-3,5 or 8- (from 8 to the end); all when left out. A selection with no page in the document is refused.`},
		{Name: paramPreferCSSPageSize, Type: docmill.TypeBoolean, Default: "false",
			Description: "Use the page's CSS @page size, when it sets one, instead of page_size or paper_width and paper_height."},
		{Name: paramMedia, Type: docmill.TypeString, Default: "print", Enum: []string{"print", "screen"},
			Description: "The CSS media the page is laid out for: print, or screen (@media screen rules apply, as in a browser window)."},
		{Name: paramPaperWidth, Type: docmill.TypeString, Max: docmill.Bound(32), Check: lengthCheck(paramPaperWidth, minPaper, maxPaper),
			Description: length("Paper width, overriding page_size", "210mm or 8.5in", minPaper, maxPaper)},
		{Name: paramPaperHeight, Type: docmill.TypeString, Max: docmill.Bound(32), Check: lengthCheck(paramPaperHeight, minPaper, maxPaper),
			Description: length("Paper height, overriding page_size", "297mm or 11in", minPaper, maxPaper)},
	}
	for _, side := range []struct{ name, word string }{
		{paramMarginTop, "Top"}, {paramMarginRight, "Right"}, {paramMarginBottom, "Bottom"}, {paramMarginLeft, "Left"},
	} {
		ps = append(ps, docmill.Param{Name: side.name, Type: docmill.TypeString, Max: docmill.Bound(32), Check: lengthCheck(side.name, 0, maxSideMargin),
			Description: length(side.word+" margin, overriding margin", "15mm or 0.5in", 0, maxSideMargin)})
	}
	return ps
}

// fmtInches writes a bound in inches for a description.
func fmtInches(in float64) string { return strconv.FormatFloat(in, 'g', -1, 64) + " in" }

// parseLength reads a length such as "210mm", "8.5 in" or "12pt", in
// inches.
func parseLength(v string) (float64, bool) {
	v = strings.ToLower(strings.TrimSpace(v))
	for unit, per := range units {
		num, ok := strings.CutSuffix(v, unit)
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 1e6 {
			return 0, false
		}
		return f * per, true
	}
	return 0, false
}

// lengthCheck is the Param.Check of a length param named name, between
// lo and hi inches.
func lengthCheck(name string, lo, hi float64) func(string) error {
	return func(v string) error {
		in, ok := parseLength(v)
		switch {
		case !ok:
			return docmill.ParamError(name, "must be a length with its unit (mm, cm, in, pt or px), such as 210mm")
		case in < lo || in > hi:
			return docmill.ParamError(name, "must be between %s and %s", fmtInches(lo), fmtInches(hi))
		}
		return nil
	}
}

// lengthOr returns the length param name in inches, or def when it is
// absent.
func lengthOr(p docmill.Params, name string, def float64) float64 {
	if !p.Has(name) {
		return def
	}
	in, ok := parseLength(p.String(name))
	if !ok {
		panic(fmt.Sprintf("chromium: parameter %q was not validated", name))
	}
	return in
}

// pageRangesText writes a validated page_ranges value as Chromium reads
// it ("1-3,5,8-"); "" prints every page.
func pageRangesText(p docmill.Params) string {
	var parts []string
	for _, r := range p.PageRanges(paramPageRanges) {
		switch {
		case r.To == 0:
			parts = append(parts, fmt.Sprintf("%d-", r.From))
		case r.To == r.From:
			parts = append(parts, strconv.Itoa(r.From))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", r.From, r.To))
		}
	}
	return strings.Join(parts, ",")
}
