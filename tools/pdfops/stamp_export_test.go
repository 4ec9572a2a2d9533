package pdfops

// StampFontDir returns the directory the stamp font is installed in, ""
// before the first stamping run.
func StampFontDir() string {
	stampFont.mu.RLock()
	defer stampFont.mu.RUnlock()
	return stampFont.dir
}
