package ghostscript

// The names of the params this package's tools declare: the
// declarations and the runs read them by these names.
const (
	paramAuto        = "auto"
	paramBox         = "box"
	paramConformance = "conformance"
	paramFlatten     = "flatten"
	paramLevel       = "level"
	paramMargins     = "margins"
	paramPadding     = "padding"
	paramPages       = "pages"
	paramPreset      = "preset"
	paramQuality     = "quality"
)
