package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/chromium"
	"github.com/docmill/docmill/tools/ocr"
	"github.com/docmill/docmill/tools/pdfops"
)

// jailFlags set how engines are confined.
type jailFlags struct {
	bwrap  string
	unsafe bool
	memory int64
}

func (f *jailFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.bwrap, "bwrap", "", "path of bubblewrap, which confines every engine (default: found in /usr/bin)")
	fs.BoolVar(&f.unsafe, "unsafe-no-sandbox", false, "DEVELOPMENT ONLY: when the engines' jail (bubblewrap, namespaces) cannot be set up, run engines unconfined instead of making their tools unavailable")
	f.memory = docmill.DefaultLimits().EngineMemory
	fs.Var(limitVar(&f.memory, megabyte), "engine-memory", "memory cap of each engine process (gs, qpdf, poppler, libvips, tesseract, OCRmyPDF, LibreOffice, Chromium, the PDF and Markdown helpers), in `MB`")
}

// jail sets up the engines' jail from the flags, trying it in a
// directory made in scratch.
func (f *jailFlags) jail(scratch string) *sandbox.Jail {
	return sandbox.NewJail(sandbox.JailOptions{Bwrap: f.bwrap, Unsafe: f.unsafe, Memory: f.memory, Dir: scratch})
}

// open sets up the engines' jail (jail) and says at start-up what is
// wrong with it: a warning when engines run unconfined, an error when
// they cannot run.
func (f *jailFlags) open(scratch string, log *slog.Logger, stderr io.Writer) *sandbox.Jail {
	jail := f.jail(scratch)
	if w := unsafeWarning(jail); w != "" && jail.Ready() {
		log.Warn(w)
		fmt.Fprintln(stderr, "docmill: WARNING:", w)
	} else if !jail.Ready() {
		log.Error("engines unavailable: their jail cannot be set up (start with --unsafe-no-sandbox on a development machine)", "why", jail.Why())
	}
	return jail
}

// pdfHelperArgs start docmill as the PDF helper: `docmill engine pdf`.
var pdfHelperArgs = []string{"engine", "pdf"}

// markdownHelperArgs start docmill as the Markdown helper, which parses
// markdown-to-pdf's input (chromium.MarkdownPageTool): a pool of its own,
// so that a slow parse never holds a PDF helper that quick PDF work waits
// for.
var markdownHelperArgs = []string{"engine", "markdown"}

// helperTools are the tools the PDF helper runs: the pdfcpu tools, the
// page selection other tools use on PDFs that engines made, the stream
// check every PDF passes before an engine sees it, and the pdfcpu steps
// of the tools that other engines run (ocr-pdf, edit-bookmarks,
// fill-pdf-form, flatten-pdf, crop-pdf, pdf-info, redact-pdf, compare-pdf),
// and sign-pdf, which parses the PDF and the PKCS#12 file in the helper.
func helperTools() []*docmill.Tool {
	return append(pdfops.Tools(), pdfops.SelectPagesTool(), pdfops.StreamCheckTool(), ocr.PrepareImageTool(),
		pdfops.WriteBookmarksTool(), pdfops.FillFormStepTool(), pdfops.RestoreLinksStepTool(), pdfops.SetCropBoxTool(), pdfops.InspectTool(),
		pdfops.RedactPagesTool(), pdfops.CompareReportTool(), pdfops.SignTool())
}

// engine is the hidden subcommand a helper process runs: `docmill engine
// pdf` serves helperTools, `docmill engine markdown` the Markdown step,
// over its standard input and output until its input ends (see
// sandbox.Helpers).
func engine(ctx context.Context, env *environment, args []string) error {
	var tools []*docmill.Tool
	switch {
	case len(args) == 1 && args[0] == pdfHelperArgs[1]:
		tools = helperTools()
	case len(args) == 1 && args[0] == markdownHelperArgs[1]:
		tools = []*docmill.Tool{chromium.MarkdownPageTool()}
	default:
		return errors.New("usage: docmill engine pdf|markdown (started by the server, not by hand)")
	}
	return sandbox.ServeHelper(ctx, env.stdin, env.stdout, docmill.NewRegistry(tools...))
}

// unsafeWarning is logged at start-up when engines may run unconfined.
func unsafeWarning(j *sandbox.Jail) string {
	if j.Confined() {
		return ""
	}
	var b strings.Builder
	b.WriteString("engines run UNCONFINED (--unsafe-no-sandbox): a hostile document can read this machine's files; ")
	b.WriteString(j.Why())
	return b.String()
}
