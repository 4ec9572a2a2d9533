// Package ocr provides ocr-pdf: it recognizes the text of scanned PDFs and
// images with OCRmyPDF (which drives tesseract) and returns a PDF whose
// invisible text layer holds the recognized text, so the document can be
// searched and copied from. Pages that already have text are left as they
// are.
//
// Every run goes through the sandbox; OCRmyPDF is given only absolute paths
// inside the job's work directory, and its standard error (which names
// paths) is kept for logs, never shown to the client.
package ocr

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// DataPaths are the read-only system paths this package's engines need
// beyond the sandbox jail's base view (programs, libraries, fonts): their
// own data files. Paths missing on a machine are skipped.
var DataPaths = []string{"/usr/share/tesseract-ocr", "/usr/share/ghostscript", "/var/lib/ghostscript", "/etc/ghostscript", "/usr/share/color", "/usr/share/poppler", "/etc/python3", "/etc/python3.11", "/etc/python3.12", "/etc/python3.13", "/usr/share/python3"}

// Languages are the tesseract language packs the tool offers. Each must be
// installed for the tool to be available.
var Languages = []string{"eng", "rus"}

// defaultLang recognizes either script: a page in one language loses little
// accuracy to the other model, and a client that did not choose would
// rather not get Cyrillic read as Latin garbage.
const defaultLang = "eng+rus"

// timeout bounds one run. OCR takes seconds per page (about 6 s for an A4
// page at 200 dpi with eng+rus on a 2-core node), so a long document needs
// minutes; the tool is Long, so no client waits on it synchronously.
const timeout = 10 * time.Minute

// langCheckTimeout bounds the one `tesseract --list-langs` run made when
// the tool is built.
const langCheckTimeout = 30 * time.Second

const pdfContentType = "application/pdf"

// Tools returns ocr-pdf, run by ocrmypdf with tesseract as its OCR engine.
// Both engines must be non-nil (sandbox.Find never returns nil; a missing
// program gives an engine that is not available).
//
// Tools runs `tesseract --list-langs` once, through the sandbox, to check
// that every language pack in Languages is installed: a node without them
// would fail every job, so the tool is then reported unavailable (503
// engine_unavailable) instead. The check is made here, at start-up, rather
// than per job, so Available is cheap and stable; installing a language
// pack needs a restart to be seen.
//
// Each run's limits (RunInput.Limits) bound it: ImagePixels an input
// image, checked by steps.PrepareImage, which gets them whole.
//
// steps run the parts that read a user's file in Go out of the server's
// process (see Steps). The language check runs in a directory made in
// scratch ("": the system's temporary directory).
func Tools(ocrmypdf, tesseract *sandbox.Engine, steps Steps, scratch string) []*docmill.Tool {
	r := &runner{ocrmypdf: ocrmypdf, tesseract: tesseract, langsOK: hasLanguages(tesseract, Languages, scratch),
		pages: steps.Pages, prepare: steps.PrepareImage}
	return []*docmill.Tool{r.tool()}
}

// runner holds the engines of ocr-pdf, what was found about them, and
// its steps.
type runner struct {
	ocrmypdf, tesseract *sandbox.Engine
	// langsOK records whether tesseract had every language of Languages
	// when the tool was built.
	langsOK bool
	// pages counts a PDF's pages, out of the server process.
	pages docmill.RunFunc
	// prepare is PrepareImageStep's Run, out of the server process.
	prepare docmill.RunFunc
}

// Steps are the parts of ocr-pdf that read a user's file in Go; the
// server runs them in the PDF helper (sandbox.Helpers), out of its own
// process.
type Steps struct {
	// Pages counts a PDF's pages for the job's meta
	// (pdfops.SelectPagesStep); nil: no count.
	Pages docmill.RunFunc
	// PrepareImage is PrepareImageStep run out of process; nil runs it in
	// this process, which only tests should do.
	PrepareImage docmill.RunFunc
}

// PrepareImageStep is ocr-pdf's first step on an
// image, run in the PDF helper: it checks the image against
// Limits.ImagePixels and makes what OCRmyPDF refuses acceptable (see
// prepareImage), decoding it if need be: up to 400 MB of pixels, which
// must not be the server's memory. Its output is the image to OCR, with
// "dpi" in meta.
func PrepareImageStep() *docmill.EngineStep {
	return &docmill.EngineStep{
		Name:     "ocr-prepare-image",
		MinFiles: 1, MaxFiles: 1,
		Run: func(_ context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			f := in.Files[0]
			img, err := prepareImage(f, f.Path, in.WorkDir, in.Limits.WithDefaults().ImagePixels)
			if err != nil {
				return nil, err
			}
			return &docmill.RunOutput{Path: img.path, Filename: filepath.Base(img.path), ContentType: f.ContentType,
				Meta: map[string]any{"dpi": img.dpi}}, nil
		},
	}
}

func (r *runner) tool() *docmill.Tool {
	return &docmill.Tool{
		Slug:  "ocr-pdf",
		Lane:  docmill.LaneOCR,
		Meta:  []docmill.MetaField{{Name: "lang", Type: docmill.MetaString, Description: "The languages recognised (Tesseract's codes, joined by +)."}, {Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the result."}},
		Title: "OCR PDF",
		Description: "Recognize the text of a scanned PDF or an image (JPEG, PNG, TIFF) and return a " +
			"searchable PDF: the pages look the same, with an invisible text layer that can be " +
			"searched, selected and copied. Pages that already have text are left as they are.",
		Accepts:  []string{pdfContentType, "image/jpeg", "image/png", "image/tiff"},
		Outputs:  []string{pdfContentType},
		MinFiles: 1,
		MaxFiles: 1,
		// A PDF passes the stream check first; a HEIC or AVIF photo is
		// converted to a JPEG, which OCRmyPDF keeps as the page (tesseract
		// reads a JPEG at quality 92 as well as a PNG).
		CheckPDFs:      true,
		ConvertsImages: "jpg",
		Params: []docmill.Param{{
			Name:        paramLang,
			Type:        docmill.TypeString,
			Description: "The language of the text: eng (English), rus (Russian) or eng+rus (both).",
			Enum:        []string{"eng", "rus", "eng+rus"},
			Default:     defaultLang,
		}},
		Long:      true,
		Engine:    "tesseract",
		Timeout:   timeout,
		Rates:     docmill.Unsized, // recognition works by pages and pixels, which bytes do not tell
		Available: r.available,
		Engines:   r.engines,
		Run:       r.run,
	}
}

// available reports whether both programs were found and tesseract has
// the language packs.
func (r *runner) available() bool {
	return r.ocrmypdf.Available() && r.tesseract.Available() && r.langsOK
}

// engines reports both programs. tesseract counts as unavailable when a
// language pack is missing, so /readyz shows which engine is at fault.
func (r *runner) engines() []docmill.EngineStatus {
	tess := r.tesseract.Status()
	tess.Available = tess.Available && r.langsOK
	return []docmill.EngineStatus{r.ocrmypdf.Status(), tess}
}

// hasLanguages runs `tesseract --list-langs` (a probe in scratch, since
// there is no job yet) and reports whether every one of langs is listed.
// Any failure counts as "no": the tool is then unavailable rather than
// failing each job.
func hasLanguages(tesseract *sandbox.Engine, langs []string, scratch string) bool {
	var res *sandbox.Result
	err := tesseract.Probe(scratch, langCheckTimeout, func(ctx context.Context, dir string) (err error) {
		res, err = tesseract.Run(ctx, sandbox.Cmd{Args: []string{"--list-langs"}, Dir: dir})
		return err
	})
	if err != nil {
		return false
	}
	// tesseract 5 lists to standard output, older versions to standard
	// error; the first line is a header naming the directory.
	have := map[string]bool{}
	for _, line := range strings.Split(string(res.Stdout)+"\n"+string(res.Stderr), "\n") {
		have[strings.TrimSpace(line)] = true
	}
	for _, l := range langs {
		if !have[l] {
			return false
		}
	}
	return true
}
