package main

import (
	"sync"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/chromium"
	"github.com/docmill/docmill/tools/ghostscript"
	"github.com/docmill/docmill/tools/ocr"
	"github.com/docmill/docmill/tools/office"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/poppler"
	"github.com/docmill/docmill/tools/vips"
)

// engineSet is the external programs this node found at start-up.
type engineSet struct {
	gs, qpdf                     *sandbox.Engine
	pdftoppm, pdftotext, pdfinfo *sandbox.Engine
	ocrmypdf, tesseract          *sandbox.Engine
	soffice, python3             *sandbox.Engine
	vips, vipsheader             *sandbox.Engine
}

// Resource limits of the engines' runs. Address space is left unbounded
// for OCRmyPDF: Python and tesseract reserve far more address space than
// they use, and a cap makes them fail at random.
var (
	gsLimits      = sandbox.Limits{AddressSpace: 4 << 30, CPUSeconds: 900, OpenFiles: 256}
	popplerLimits = sandbox.Limits{AddressSpace: 4 << 30, CPUSeconds: 900, OpenFiles: 256}
	ocrLimits     = sandbox.Limits{CPUSeconds: 3600, OpenFiles: 1024}
)

// foundEngines is findEngines' result, found once per process: asking
// each program for its version takes about a second in all, and what is
// installed does not change while the process runs.
var foundEngines = sync.OnceValue(findEngines)

// findEngines looks for every engine; a missing one only makes its tools
// unavailable.
func findEngines() engineSet {
	return engineSet{
		gs:        sandbox.Find("gs", []string{"--version"}, sandbox.Options{Limits: gsLimits}),
		qpdf:      sandbox.Find("qpdf", []string{"--version"}, sandbox.Options{Limits: gsLimits}),
		pdftoppm:  sandbox.Find("pdftoppm", []string{"-v"}, sandbox.Options{Limits: popplerLimits}),
		pdftotext: sandbox.Find("pdftotext", []string{"-v"}, sandbox.Options{Limits: popplerLimits}),
		pdfinfo:   sandbox.Find("pdfinfo", []string{"-v"}, sandbox.Options{Limits: popplerLimits}),
		ocrmypdf:  sandbox.Find("ocrmypdf", []string{"--version"}, sandbox.Options{Limits: ocrLimits}),
		// LibreOffice reserves far more address space than it uses: no cap.
		soffice:    sandbox.Find("soffice", []string{"--version"}, sandbox.Options{}),
		python3:    sandbox.Find("python3", nil, sandbox.Options{}),
		vips:       sandbox.Find("vips", []string{"--version"}, sandbox.Options{Limits: gsLimits}),
		vipsheader: sandbox.Find("vipsheader", []string{"--version"}, sandbox.Options{Limits: gsLimits}),
		tesseract:  sandbox.Find("tesseract", []string{"--version"}, sandbox.Options{Limits: ocrLimits}),
	}
}

// toolOptions size the warm engine pools.
type toolOptions struct {
	officeWorkers  int
	officePrestart bool
}

// toolset is every tool this node serves: the in-process PDF tools and
// those of the external engines. close stops the warm engine pools.
func toolset(e engineSet, o toolOptions) (tools []*docmill.Tool, close func(), err error) {
	pool, err := office.New(e.soffice, e.python3, office.Options{Workers: o.officeWorkers, Lazy: !o.officePrestart})
	if err != nil {
		return nil, nil, err
	}
	tools = pdfops.Tools()
	tools = append(tools, ghostscript.Tools(e.gs, e.qpdf)...)
	tools = append(tools, poppler.Tools(e.pdftoppm, e.pdftotext, e.pdfinfo)...)
	tools = append(tools, ocr.Tools(e.ocrmypdf, e.tesseract)...)
	tools = append(tools, pool.Tools()...)
	tools = append(tools, vips.Tools(e.vips, e.vipsheader)...)
	browser := chromium.New(chromium.Options{}) // starts on its first job
	tools = append(tools, browser.Tools()...)
	return tools, func() { pool.Close(); browser.Close() }, nil
}
