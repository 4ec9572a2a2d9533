package main

import (
	"image"
	"sync"
	"testing"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// conformSlowTools are the tools the conformance suite's cancel check
// must cancel mid-run (Suite.Slow): the engines that work page by page
// on a PDF's pictures, given pages of large ones. Other tools may finish
// on their sample before the cancellation; the suite's log counts them.
var conformSlowTools = map[string]bool{
	"compress-pdf": true, "grayscale-pdf": true, "pdf-to-pdfa": true, "ocr-pdf": true,
}

// slowPicturesPDF is a PDF of 16 pages, each a 1200x1200 picture of fine
// detail, made once per test binary: rewriting, recoding or reading its
// pictures keeps an engine busy for well over the cancel check's 100 ms.
var slowPicturesPDF = sync.OnceValue(func() []byte {
	pic := toolstest.Picture(1200, 1200, 1)
	pages := make([][]image.Image, 16)
	for i := range pages {
		pages[i] = []image.Image{pic}
	}
	return toolstest.ImagePDF(pages...)
})

// conformSlow is the conformance suite's Slow: the slow PDF for the
// tools of conformSlowTools, none for the others.
func conformSlow(t *testing.T, tool *docmill.Tool) (string, string) {
	if !conformSlowTools[tool.Slug] {
		return "", ""
	}
	return toolstest.WriteTemp(t, "pictures.pdf", slowPicturesPDF()), "application/pdf"
}
