package main

import (
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

// engineTools lists the tools of each engine package, one line a
// package, built on the engines and warm pools of k. A new tool of an
// existing package is one more line in its package's own list; a new
// engine package is one more line here. What a tool needs around its run
// (a stream check, repair, converted images) it declares, and toolset
// applies.
var engineTools = []func(k *toolKit) []*docmill.Tool{
	func(k *toolKit) []*docmill.Tool { return k.inPDFHelper(pdfHelperTools()) },
	func(k *toolKit) []*docmill.Tool {
		return ghostscript.Tools(k.e.gs, k.e.qpdf, k.ghostscriptSteps(), k.gsSpares)
	},
	func(k *toolKit) []*docmill.Tool {
		return poppler.Tools(k.popplerEngines(), k.popplerSteps(), k.o.limits)
	},
	func(k *toolKit) []*docmill.Tool { return k.ocrTools() },
	func(k *toolKit) []*docmill.Tool { return k.office.Tools() },
	func(k *toolKit) []*docmill.Tool { return vips.Tools(k.e.vips, k.e.vipsheader, k.o.limits, k.o.scratch) },
	func(k *toolKit) []*docmill.Tool { return k.browser.Tools() },
}

// toolKit is what the engine packages' tools are built on: the engines
// found, the node's options and the warm pools (the PDF and Markdown
// helpers, LibreOffice, Chromium).
type toolKit struct {
	e         engineSet
	o         toolOptions
	helpers   *sandbox.Helpers
	markdown  *sandbox.Helpers
	office    *office.Pool
	officeDir string
	browser   *chromium.Browser
	// gsSpares are compress-pdf's gs and qpdf runs started ahead of its
	// jobs.
	gsSpares *ghostscript.Spares
}

// toolset is every tool this node serves: those of engineTools, wrapped
// as their declarations ask (toolWrappers), and document-thumbnail,
// composed of the tools that provide what it needs. close stops the warm
// engine pools.
func toolset(e engineSet, o toolOptions) (tools []*docmill.Tool, close func(), err error) {
	k, err := startPools(e, o)
	if err != nil {
		return nil, nil, err
	}
	for _, build := range engineTools {
		tools = append(tools, build(k)...)
	}
	check := k.helpers.Step(pdfops.StreamCheckStep())
	w := toolWrappers{check: check, convert: docmill.Provider(tools, docmill.CapConvertImage)}
	for _, s := range ghostscript.RepairSteps(e.gs, e.qpdf) {
		w.repairs = append(w.repairs, checkedPDFs(check, s.Run))
	}
	w.apply(tools)
	tools = append(tools, thumbnail.Tool(thumbnail.Steps{
		PDFToPNG:     docmill.Provider(tools, docmill.CapPDFToPNG),
		Resize:       docmill.Provider(tools, docmill.CapResizeImage),
		ConvertImage: docmill.Provider(tools, docmill.CapConvertImage),
		OfficeToPDF:  k.office.FirstPagePDF, OfficeTypes: office.Accepts()}))
	if o.pools != nil {
		o.pools("pdf-helper", k.helpers.Usage)
		o.pools("libreoffice", k.office.Usage)
		o.pools("chromium-tabs", k.browser.Usage)
		o.pools("markdown-helper", k.markdown.Usage)
	}
	return tools, k.close, nil
}

// startPools makes the warm pools of a toolKit; they start their
// processes on their first job (LibreOffice's at once with
// officePrestart).
func startPools(e engineSet, o toolOptions) (*toolKit, error) {
	k := &toolKit{e: e, o: o, gsSpares: ghostscript.NewSpares(e.gs, e.qpdf, o.scratch)}
	var err error
	if k.helpers, err = sandbox.NewHelpers(e.helper, pdfHelperArgs, sandbox.HelperOptions{Dir: o.scratch}); err != nil {
		return nil, err
	}
	k.officeDir = officeDir(o.scratch)
	k.office, err = office.New(e.soffice, e.python3, office.Options{Workers: o.officeWorkers, Lazy: !o.officePrestart, Dir: k.officeDir,
		Limits: o.limits, SelectPages: k.helpers.Step(pdfops.SelectPagesStep())})
	if err != nil {
		k.helpers.Close()
		return nil, err
	}
	if k.markdown, err = sandbox.NewHelpers(e.helper, markdownHelperArgs, sandbox.HelperOptions{Dir: o.scratch}); err != nil {
		k.office.Close()
		k.helpers.Close()
		return nil, err
	}
	// The pages of url-to-pdf and url-to-image fetch through outbound's
	// rules, every request checked at dial time; no redirect is followed
	// (Chromium follows it, and its next request is checked again), and
	// the tool caps the bodies itself.
	pages := outbound.New(outbound.Config{AllowPrivate: o.allowPrivateURLs, Timeout: 20 * time.Second, HeaderTimeout: 15 * time.Second, MaxResponseBytes: -1})
	// The print tools' pdfa is pdf-to-pdfa's conversion, and their pdfua
	// a step of the PDF helper.
	k.browser = chromium.New(chromium.Options{Limits: o.limits, Jail: e.jail, Dir: o.scratch, Pages: pages, // starts on its first job
		MarkdownPage: k.markdown.Step(chromium.MarkdownPageStep()),
		PDFA:         ghostscript.PDFAStep(e.gs, e.qpdf), PDFUA: k.helpers.Step(pdfops.MarkPDFUAStep())})
	return k, nil
}

// close stops the pools and removes LibreOffice's directory.
func (k *toolKit) close() {
	k.office.Close()
	k.browser.Close()
	k.helpers.Close()
	k.markdown.Close()
	k.gsSpares.Close()
	if k.officeDir != "" {
		os.RemoveAll(k.officeDir)
	}
}

// inPDFHelper returns tools run in the PDF helpers.
func (k *toolKit) inPDFHelper(tools []*docmill.Tool) []*docmill.Tool {
	out := make([]*docmill.Tool, len(tools))
	for i, t := range tools {
		out[i] = k.helpers.Tool(t)
	}
	return out
}

// ghostscriptSteps are crop-pdf's, fill-pdf-form's, flatten-pdf's and
// einvoice-pdf's pdfcpu steps, run in the PDF helper.
func (k *toolKit) ghostscriptSteps() ghostscript.Steps {
	return ghostscript.Steps{
		SetCropBox:   k.helpers.Step(pdfops.SetCropBoxStep()),
		Fill:         k.helpers.Step(pdfops.FillFormStep()),
		RestoreLinks: k.helpers.Step(pdfops.RestoreLinksStep()),
		Flatten:      k.helpers.Step(pdfops.FlattenStep()),
		CountPages:   k.helpers.Step(pdfops.SelectPagesStep()),
		ReadInvoice:  k.helpers.Step(pdfops.ReadInvoiceStep()),
		EmbedInvoice: k.helpers.Step(pdfops.EmbedInvoiceStep()),
	}
}

// popplerEngines are the poppler tools' programs.
func (k *toolKit) popplerEngines() poppler.Engines {
	e := k.e
	return poppler.Engines{PDFToPPM: e.pdftoppm, PDFToText: e.pdftotext, PDFInfo: e.pdfinfo, PDFImages: e.pdfimages,
		PDFToCairo: e.pdftocairo, PDFFonts: e.pdffonts, PDFSig: e.pdfsig, QPDF: e.qpdf, CertUtil: e.certutil}
}

// popplerSteps are the poppler tools' pdfcpu steps, run in the PDF
// helper, and redact-pdf's OCR step, run with the jailed tesseract.
func (k *toolKit) popplerSteps() poppler.Steps {
	return poppler.Steps{
		SelectPages:    k.helpers.Step(pdfops.SelectPagesStep()),
		WriteBookmarks: k.helpers.Step(pdfops.WriteBookmarksStep()),
		CompareReport:  k.helpers.Step(pdfops.CompareReportStep()),
		Inspect:        k.helpers.Step(pdfops.InspectStep()),
		RedactPages:    k.helpers.Step(pdfops.RedactPagesStep()),
		TextLayer:      ocr.TextLayerStep(k.e.tesseract, k.o.scratch).Run,
	}
}

// ocrTools are ocr-pdf and image-to-text, their steps run in the PDF
// helper.
func (k *toolKit) ocrTools() []*docmill.Tool {
	steps := ocr.Steps{Pages: k.helpers.Step(pdfops.SelectPagesStep()), PrepareImage: k.helpers.Step(ocr.PrepareImageStep())}
	return append(ocr.Tools(k.e.ocrmypdf, k.e.tesseract, steps, k.o.scratch),
		ocr.TextTool(k.e.tesseract, k.e.pdftoppm, k.o.limits, steps, k.o.scratch))
}
