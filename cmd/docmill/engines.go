package main

import (
	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ghostscript"
	"github.com/docmill/docmill/tools/ocr"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/poppler"
)

// engineSet is the external programs this node found at start-up.
type engineSet struct {
	gs, qpdf                     *sandbox.Engine
	pdftoppm, pdftotext, pdfinfo *sandbox.Engine
	ocrmypdf, tesseract          *sandbox.Engine
}

// Resource limits of the engines' runs. Address space is left unbounded
// for OCRmyPDF: Python and tesseract reserve far more address space than
// they use, and a cap makes them fail at random.
var (
	gsLimits      = sandbox.Limits{AddressSpace: 4 << 30, CPUSeconds: 900, OpenFiles: 256}
	popplerLimits = sandbox.Limits{AddressSpace: 4 << 30, CPUSeconds: 900, OpenFiles: 256}
	ocrLimits     = sandbox.Limits{CPUSeconds: 3600, OpenFiles: 1024}
)

// findEngines looks for every engine once; a missing one only makes its
// tools unavailable.
func findEngines() engineSet {
	return engineSet{
		gs:        sandbox.Find("gs", []string{"--version"}, sandbox.Options{Limits: gsLimits}),
		qpdf:      sandbox.Find("qpdf", []string{"--version"}, sandbox.Options{Limits: gsLimits}),
		pdftoppm:  sandbox.Find("pdftoppm", []string{"-v"}, sandbox.Options{Limits: popplerLimits}),
		pdftotext: sandbox.Find("pdftotext", []string{"-v"}, sandbox.Options{Limits: popplerLimits}),
		pdfinfo:   sandbox.Find("pdfinfo", []string{"-v"}, sandbox.Options{Limits: popplerLimits}),
		ocrmypdf:  sandbox.Find("ocrmypdf", []string{"--version"}, sandbox.Options{Limits: ocrLimits}),
		tesseract: sandbox.Find("tesseract", []string{"--version"}, sandbox.Options{Limits: ocrLimits}),
	}
}

// toolset is every tool this node serves: the in-process PDF tools and
// those of the external engines.
func toolset(e engineSet) []*docmill.Tool {
	tools := pdfops.Tools()
	tools = append(tools, ghostscript.Tools(e.gs, e.qpdf)...)
	tools = append(tools, poppler.Tools(e.pdftoppm, e.pdftotext, e.pdfinfo)...)
	tools = append(tools, ocr.Tools(e.ocrmypdf, e.tesseract)...)
	return tools
}
