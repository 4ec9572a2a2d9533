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
// markdown-to-pdf's input (chromium.MarkdownPageStep): a pool of its own,
// so that a slow parse never holds a PDF helper that quick PDF work waits
// for.
var markdownHelperArgs = []string{"engine", "markdown"}

// pdfHelperTools are the tools the PDF helper runs, and the server runs
// in it: the pdfcpu tools and sign-pdf, which parses the PDF and the
// PKCS#12 file in the helper.
func pdfHelperTools() []*docmill.Tool { return append(pdfops.Tools(), pdfops.SignTool()) }

// pdfHelperSteps are the steps the PDF helper runs for other tools:
// pdfops' (page selection, the stream check every PDF passes before an
// engine sees it, the pdfcpu parts of other engines' tools) and ocr-pdf's
// preparation of an image.
func pdfHelperSteps() []*docmill.EngineStep { return append(pdfops.Steps(), ocr.PrepareImageStep()) }

// engine is the hidden subcommand a helper process runs: `docmill engine
// pdf` serves pdfHelperTools and pdfHelperSteps, `docmill engine
// markdown` the Markdown step,
// over its standard input and output until its input ends (see
// sandbox.Helpers).
func engine(ctx context.Context, env *environment, args []string) error {
	var tools []*docmill.Tool
	var steps []*docmill.EngineStep
	switch {
	case len(args) == 1 && args[0] == pdfHelperArgs[1]:
		tools, steps = pdfHelperTools(), pdfHelperSteps()
	case len(args) == 1 && args[0] == markdownHelperArgs[1]:
		steps = []*docmill.EngineStep{chromium.MarkdownPageStep()}
	default:
		return errors.New("usage: docmill engine pdf|markdown (started by the server, not by hand)")
	}
	return sandbox.ServeHelper(ctx, env.stdin, env.stdout, docmill.NewRegistry(tools...), steps...)
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
