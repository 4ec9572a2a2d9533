package thumbnail

// The names of the params this package's tools declare: the
// declarations and the runs read them by these names.
const (
	paramWidth = "width"
)
