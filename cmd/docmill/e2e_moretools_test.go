package main

import "testing"

// TestMoreEngineToolsE2E drives the engine tools of issue 19 through one
// real server, a subtest per tool; each checks its result with a program
// other than the one that made it.
func TestMoreEngineToolsE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	t.Run("linearize-pdf", func(t *testing.T) { checkLinearizeE2E(t, c) })
	t.Run("grayscale-pdf", func(t *testing.T) { checkGrayscaleE2E(t, c) })
	t.Run("remove-blank-pages", func(t *testing.T) { checkRemoveBlankE2E(t, c) })
	t.Run("extract-images", func(t *testing.T) { checkExtractImagesE2E(t, c) })
	t.Run("pdf-to-svg", func(t *testing.T) { checkSVGE2E(t, c) })
}
