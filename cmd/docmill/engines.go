package main

import (
	"context"
	"os"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/outbound"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/chromium"
	"github.com/docmill/docmill/tools/ghostscript"
	"github.com/docmill/docmill/tools/ocr"
	"github.com/docmill/docmill/tools/office"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/poppler"
	"github.com/docmill/docmill/tools/thumbnail"
	"github.com/docmill/docmill/tools/vips"
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

// toolset is every tool this node serves: the pdfcpu tools, run in the
// PDF helper processes, and those of the external engines. close stops
// the warm engine pools.
func toolset(e engineSet, o toolOptions) (tools []*docmill.Tool, close func(), err error) {
	helpers, err := sandbox.NewHelpers(e.helper, pdfHelperArgs, sandbox.HelperOptions{Dir: o.scratch})
	if err != nil {
		return nil, nil, err
	}
	selectPages := helpers.Tool(pdfops.SelectPagesTool()).Run
	offDir := officeDir(o.scratch)
	pool, err := office.New(e.soffice, e.python3, office.Options{Workers: o.officeWorkers, Lazy: !o.officePrestart, Dir: offDir, Limits: o.limits, SelectPages: selectPages})
	if err != nil {
		helpers.Close()
		return nil, nil, err
	}
	check := helpers.Tool(pdfops.StreamCheckTool()).Run
	gsSteps := ghostscript.Steps{
		SetCropBox:   helpers.Tool(pdfops.SetCropBoxTool()).Run,
		Fill:         helpers.Tool(pdfops.FillFormStepTool()).Run,
		RestoreLinks: helpers.Tool(pdfops.RestoreLinksStepTool()).Run,
	}
	gsTools := checkedPDFs(check, ghostscript.Tools(e.gs, e.qpdf, gsSteps))
	var repairs []docmill.RunFunc
	for _, t := range gsTools {
		if t.Slug == "repair-pdf" {
			repairs = append(repairs, t.Run)
		}
	}
	repairs = append(repairs, checkedPDFs(check, []*docmill.Tool{ghostscript.RewriteStep(e.gs, e.qpdf)})[0].Run)
	for _, t := range pdfops.Tools() {
		tools = append(tools, repairing(repairs, helpers.Tool(t))...)
	}
	tools = append(tools, gsTools...)
	popplerEngines := poppler.Engines{PDFToPPM: e.pdftoppm, PDFToText: e.pdftotext, PDFInfo: e.pdfinfo, PDFImages: e.pdfimages,
		PDFToCairo: e.pdftocairo, PDFFonts: e.pdffonts, PDFSig: e.pdfsig, QPDF: e.qpdf, CertUtil: e.certutil}
	popplerSteps := poppler.Steps{
		SelectPages:    selectPages,
		WriteBookmarks: helpers.Tool(pdfops.WriteBookmarksTool()).Run,
		CompareReport:  helpers.Tool(pdfops.CompareReportTool()).Run,
		Inspect:        helpers.Tool(pdfops.InspectTool()).Run,
		RedactPages:    helpers.Tool(pdfops.RedactPagesTool()).Run,
		TextLayer:      ocr.TextLayerTool(e.tesseract, o.scratch).Run,
	}
	tools = append(tools, checkedPDFs(check, poppler.Tools(popplerEngines, popplerSteps, o.limits))...)
	// sign-pdf runs in the PDF helper; a PDF whose cross-reference data
	// is damaged is repaired (rewritten) and the repair signed.
	tools = append(tools, checkedPDFs(check, repairing(repairs, helpers.Tool(pdfops.SignTool())))...)
	ocrSteps := ocr.Steps{Pages: selectPages, PrepareImage: helpers.Tool(ocr.PrepareImageTool()).Run}
	tools = append(tools, checkedPDFs(check, ocr.Tools(e.ocrmypdf, e.tesseract, o.limits, ocrSteps, o.scratch))...)
	tools = append(tools, checkedPDFs(check, []*docmill.Tool{ocr.TextTool(e.tesseract, e.pdftoppm, o.limits, ocrSteps, o.scratch)})...)
	tools = append(tools, pool.Tools()...)
	tools = append(tools, vips.Tools(e.vips, e.vipsheader, o.limits, o.scratch)...)
	tools = append(tools, thumbnail.Tool(thumbnail.Steps{PDFToPNG: toolBySlug(tools, "pdf-to-png"), Resize: toolBySlug(tools, "resize-image"),
		ConvertImage: toolBySlug(tools, "convert-image"), OfficeToPDF: pool.FirstPagePDF, OfficeTypes: office.Accepts()}))
	convertedImages(tools, toolBySlug(tools, "convert-image"))
	// The pages of url-to-pdf and url-to-image fetch through outbound's
	// rules, every request checked at dial time; no redirect is followed
	// (Chromium follows it, and its next request is checked again), and
	// the tool caps the bodies itself.
	pages := outbound.New(outbound.Config{AllowPrivate: o.allowPrivateURLs, Timeout: 20 * time.Second, HeaderTimeout: 15 * time.Second, MaxResponseBytes: -1})
	markdownHelpers, err := sandbox.NewHelpers(e.helper, markdownHelperArgs, sandbox.HelperOptions{Dir: o.scratch})
	if err != nil {
		pool.Close()
		helpers.Close()
		return nil, nil, err
	}
	browser := chromium.New(chromium.Options{Limits: o.limits, Jail: e.jail, Dir: o.scratch, Pages: pages, // starts on its first job
		MarkdownPage: markdownHelpers.Tool(chromium.MarkdownPageTool()).Run})
	tools = append(tools, browser.Tools()...)
	if o.pools != nil {
		o.pools("pdf-helper", helpers.Usage)
		o.pools("libreoffice", pool.Usage)
		o.pools("chromium-tabs", browser.Usage)
		o.pools("markdown-helper", markdownHelpers.Usage)
	}
	return tools, func() {
		pool.Close()
		browser.Close()
		helpers.Close()
		markdownHelpers.Close()
		if offDir != "" {
			os.RemoveAll(offDir)
		}
	}, nil
}

// toolBySlug is the tool of tools with slug, or nil.
func toolBySlug(tools []*docmill.Tool, slug string) *docmill.Tool {
	for _, t := range tools {
		if t.Slug == slug {
			return t
		}
	}
	return nil
}

// checkedPDFs makes every PDF input of tools pass check (the stream check,
// run in the PDF helper) before the tool's engine sees it, so that a flate
// bomb is refused at once instead of costing an engine minutes.
func checkedPDFs(check docmill.RunFunc, tools []*docmill.Tool) []*docmill.Tool {
	for _, t := range tools {
		run := t.Run
		t.Run = func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			for _, f := range in.Files {
				if f.ContentType != "application/pdf" {
					continue
				}
				if _, err := check(ctx, &docmill.RunInput{Files: []docmill.LocalFile{f}, WorkDir: in.WorkDir, Limits: in.Limits}); err != nil {
					return nil, err
				}
			}
			return run(ctx, in)
		}
	}
	return tools
}
