package pdfops

// JPEGMeta returns what scanJPEG reads from the JPEG b.
func JPEGMeta(b []byte) (orientation int, xDPI, yDPI float64, err error) {
	info, err := scanJPEG(b)
	return info.meta.orientation, info.meta.xDPI, info.meta.yDPI, err
}
