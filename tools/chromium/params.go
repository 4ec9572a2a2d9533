package chromium

// The names of the params this package's tools declare: the
// declarations and the runs read them by these names.
const (
	paramFormat          = "format"
	paramFullPage        = "full_page"
	paramHeight          = "height"
	paramLandscape       = "landscape"
	paramMargin          = "margin"
	paramPageSize        = "page_size"
	paramPrintBackground = "print_background"
	paramQuality         = "quality"
	paramTagged          = "tagged"
	paramURL             = "url"
	paramWaitFor         = "wait_for"
	paramWidth           = "width"
)

// The print options' names (printopts.go).
const (
	paramHeaderHTML        = "header_html"
	paramFooterHTML        = "footer_html"
	paramScale             = "scale"
	paramPageRanges        = "page_ranges"
	paramPreferCSSPageSize = "prefer_css_page_size"
	paramMedia             = "media"
	paramPaperWidth        = "paper_width"
	paramPaperHeight       = "paper_height"
	paramMarginTop         = "margin_top"
	paramMarginRight       = "margin_right"
	paramMarginBottom      = "margin_bottom"
	paramMarginLeft        = "margin_left"
)

// The output options' names (pdfoutput.go).
const (
	paramOutline    = "outline"
	paramSinglePage = "single_page"
	paramPDFA       = "pdfa"
	paramPDFUA      = "pdfua"
)
