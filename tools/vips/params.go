package vips

// The names of the params this package's tools declare: the
// declarations and the runs read them by these names.
const (
	paramAngle    = "angle"
	paramColor    = "color"
	paramEnlarge  = "enlarge"
	paramFit      = "fit"
	paramFontSize = "font_size"
	paramHeight   = "height"
	paramLeft     = "left"
	paramTop      = "top"
	paramWidth    = "width"
	paramFormat   = "format"
	paramOpacity  = "opacity"
	paramPercent  = "percent"
	paramPosition = "position"
	paramPreset   = "preset"
	paramQuality  = "quality"
	paramText     = "text"
)
