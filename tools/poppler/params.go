package poppler

// The names of the params this package's tools declare: the
// declarations and the runs read them by these names.
const (
	paramBookmarks    = "bookmarks"
	paramBoxes        = "boxes"
	paramDPI          = "dpi"
	paramFromHeadings = "from_headings"
	paramLang         = "lang"
	paramLayout       = "layout"
	paramMinSize      = "min_size"
	paramOCR          = "ocr"
	paramPages        = "pages"
	paramPresets      = "presets"
	paramQuality      = "quality"
	paramRegex        = "regex"
	paramTerms        = "terms"
	paramThreshold    = "threshold"
)
