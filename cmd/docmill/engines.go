package main

import (
	"os"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/ghostscript"
	"github.com/docmill/docmill/tools/ocr"
	"github.com/docmill/docmill/tools/office"
	"github.com/docmill/docmill/tools/poppler"
)

// engineSet is the external programs this node found at start-up, and
// the jail they run in.
type engineSet struct {
	jail                            *sandbox.Jail
	gs, qpdf                        *sandbox.Engine
	pdftoppm, pdftotext, pdfinfo    *sandbox.Engine
	pdffonts, pdfimages, pdftocairo *sandbox.Engine
	pdfsig, certutil                *sandbox.Engine
	ocrmypdf, tesseract             *sandbox.Engine
	soffice, python3                *sandbox.Engine
	vips, vipsheader                *sandbox.Engine
	helper                          *sandbox.Engine
}

// Resource limits of the engines' runs, beside the jail's memory cap
// (--engine-memory). Files an engine writes are capped at 4 GiB, and the
// jail's uid may hold 2,048 processes and threads, across all engines.
var (
	gsLimits     = sandbox.Limits{CPUSeconds: 900, OpenFiles: 256, FileSize: 4 << 30, Processes: 2048}
	ocrLimits    = sandbox.Limits{CPUSeconds: 3600, OpenFiles: 1024, FileSize: 4 << 30, Processes: 2048}
	officeLimits = sandbox.Limits{OpenFiles: 1024, FileSize: 4 << 30, Processes: 2048}
)

// findEngines looks for every engine, confined by jail; a missing one only
// makes its tools unavailable. observe, if not nil, is told of every run.
func findEngines(jail *sandbox.Jail, observe func(sandbox.RunReport)) engineSet {
	opts := func(l sandbox.Limits, data ...[]string) sandbox.Options {
		var ro []string
		for _, d := range data {
			ro = append(ro, d...)
		}
		return sandbox.Options{Jail: jail, Limits: l, View: sandbox.View{ReadOnly: ro}, Observe: observe}
	}
	return engineSet{
		jail:       jail,
		gs:         sandbox.Find("gs", []string{"--version"}, opts(gsLimits, ghostscript.DataPaths)),
		qpdf:       sandbox.Find("qpdf", []string{"--version"}, opts(gsLimits)),
		pdftoppm:   sandbox.Find("pdftoppm", []string{"-v"}, opts(gsLimits, poppler.DataPaths)),
		pdftotext:  sandbox.Find("pdftotext", []string{"-v"}, opts(gsLimits, poppler.DataPaths)),
		pdfinfo:    sandbox.Find("pdfinfo", []string{"-v"}, opts(gsLimits, poppler.DataPaths)),
		pdfimages:  sandbox.Find("pdfimages", []string{"-v"}, opts(gsLimits, poppler.DataPaths)),
		pdftocairo: sandbox.Find("pdftocairo", []string{"-v"}, opts(gsLimits, poppler.DataPaths)),
		pdffonts:   sandbox.Find("pdffonts", []string{"-v"}, opts(gsLimits, poppler.DataPaths)),
		pdfsig:     sandbox.Find("pdfsig", []string{"-v"}, opts(gsLimits, poppler.DataPaths)),
		certutil:   sandbox.Find("certutil", nil, opts(gsLimits)),
		ocrmypdf:   sandbox.Find("ocrmypdf", []string{"--version"}, opts(ocrLimits, ocr.DataPaths)),
		soffice:    sandbox.Find("soffice", []string{"--version"}, opts(officeLimits, office.DataPaths)),
		python3:    sandbox.Find("python3", nil, opts(officeLimits, office.DataPaths)),
		vips:       sandbox.Find("vips", []string{"--version"}, opts(gsLimits)),
		vipsheader: sandbox.Find("vipsheader", []string{"--version"}, opts(gsLimits)),
		tesseract:  sandbox.Find("tesseract", []string{"--version"}, opts(ocrLimits, ocr.DataPaths)),
		helper:     sandbox.SelfEngine("docmill-pdf", opts(gsLimits)),
	}
}

// toolOptions size the warm engine pools and bound what the tools do.
type toolOptions struct {
	officeWorkers  int
	officePrestart bool
	// limits are the node's processing limits (see registerLimits).
	limits docmill.Limits
	// scratch is the node's own scratch directory, where jobs'
	// directories are (jobs.ClaimScratch): the warm engines stage
	// documents next to them, so that a hard link replaces a copy, and
	// every directory the engines make is in it, so that what a killed
	// server left is removed when it starts again.
	scratch string
	// pools, if set, is told of each warm pool (the PDF helpers,
	// LibreOffice, Chromium's tabs) and how to read its usage.
	pools func(name string, usage func() (size, busy int))
	// allowPrivateURLs lets url-to-pdf's pages reach loopback, private
	// and link-local addresses over plain http (--allow-private-urls).
	allowPrivateURLs bool
}

// officeDir is a directory of its own for the LibreOffice pool under
// scratch, or "" for the pool's default.
func officeDir(scratch string) string {
	if scratch == "" {
		return ""
	}
	if err := os.MkdirAll(scratch, 0o700); err != nil {
		return ""
	}
	d, err := os.MkdirTemp(scratch, "docmill-office-")
	if err != nil {
		return ""
	}
	return d
}
