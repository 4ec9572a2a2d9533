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
