package ghostscript

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/filecopy"
)

// Spares are the runs of Ghostscript and qpdf that compress-pdf and
// flatten-pdf find started ahead of their jobs (sandbox.Spares): each
// engine's start-up and jail are paid while no job waits, which on a
// small document was most of the tool's time. A nil Spares, or a nil
// engine's, starts every run when its job comes.
type Spares struct {
	gs, qpdf *sandbox.Spares
}

// NewSpares keeps spares of gs and qpdf in directories made in dir (the
// node's scratch directory; "" for the system's temporary one).
func NewSpares(gs, qpdf *sandbox.Engine, dir string) *Spares {
	return &Spares{gs: sandbox.NewSpares(gs, dir), qpdf: sandbox.NewSpares(qpdf, dir)}
}

// Close stops the spares waiting for a job.
func (s *Spares) Close() {
	if s != nil {
		s.gs.Close()
		s.qpdf.Close()
	}
}

// take returns a spare of the engine spares picks, or nil (see
// sandbox.Spares.Take).
func (s *Spares) take(pick func(*Spares) *sandbox.Spares, key string, args func(dir string) []string) *sandbox.Spare {
	if s == nil {
		return nil
	}
	return pick(s).Take(key, args)
}

// Names of the files in a spare's directory.
const (
	spareInput  = "input.pdf"
	spareOutput = "output.pdf"
)

// compressGS is compress-pdf's first Ghostscript run, the one of the new
// interpreter (runGSFrom): on a spare Ghostscript when one is ready, else
// started now (runPDFWrite with gsArgs). A spare was started with p's
// options and its output file on its command line (spareGSArgs) and has
// set up its interpreter and pdfwrite while no job waited; it reads from
// standard input the image dictionaries of p's quality and the order to
// run the input, linked into its directory. Its output is the cold run's
// but for the command line that Ghostscript records in the file's first
// lines.
func (e *engines) compressGS(ctx context.Context, dir, src, out string, p preset) error {
	return e.spareGS(ctx, dir, src, out, p.options(), p.gsArgs(src), p.imageDicts())
}

// spareGS is a Ghostscript run of the new interpreter with the pdfwrite
// options opts, on a spare started with them when one is ready (one key
// per opts), else started now with coldArgs. The spare reads prelude
// (PostScript the cold run gets from its arguments) and then the order
// to run the input, linked into its directory, from standard input.
func (e *engines) spareGS(ctx context.Context, dir, src, out string, opts, coldArgs []string, prelude string) error {
	sp := e.spares.take(func(s *Spares) *sandbox.Spares { return s.gs }, strings.Join(opts, " "),
		func(d string) []string { return spareGSArgs(d, opts) })
	cold := func() error { return e.runPDFWrite(ctx, dir, out, 0, coldArgs) }
	if sp == nil {
		return cold()
	}
	defer sp.Close()
	res, err := runSpare(ctx, sp, src, out, func(input string) string {
		return prelude + "\n(" + psEscape.Replace(input) + ") run\n"
	})
	switch {
	case errors.Is(err, sandbox.ErrSpareGone):
		return cold()
	case err == nil && noPages(res):
		return errNoPages
	}
	return err
}

// pack is qpdf's pass of compress-pdf: src rewritten to out with its
// objects packed into object streams, compressed at level 9.
func (e *engines) pack(ctx context.Context, dir, src, out string) error {
	return e.runQPDF(ctx, dir, "pack", []string{"--object-streams=generate", "--compression-level=9"}, src, out)
}

// runQPDF runs qpdf with the options args on src, writing out: on a
// spare qpdf of key (one key a command line) when one is ready, reading
// its arguments from standard input ("@-"), else started now in dir. Its
// error is qpdf.Run's, for qpdfOK.
func (e *engines) runQPDF(ctx context.Context, dir, key string, args []string, src, out string) error {
	cold := func() error {
		_, err := e.qpdf.Run(ctx, sandbox.Cmd{Dir: dir, Args: append(append([]string(nil), args...), src, out)})
		return err
	}
	sp := e.spares.take(func(s *Spares) *sandbox.Spares { return s.qpdf }, key,
		func(string) []string { return []string{"@-"} })
	if sp == nil {
		return cold()
	}
	defer sp.Close()
	_, err := runSpare(ctx, sp, src, out, func(input string) string {
		return strings.Join(append(append([]string(nil), args...), input, sp.Paths().InJail(filepath.Join(sp.Dir(), spareOutput))), "\n") + "\n"
	})
	if errors.Is(err, sandbox.ErrSpareGone) {
		return cold()
	}
	return err
}

// runSpare links src into sp's directory, runs sp with the instructions
// stdin makes of the input's path in the jail, and moves the output
// (spareOutput) to out, also when the program exited non-zero but wrote
// it (qpdf's warnings). ErrSpareGone: nothing ran.
func runSpare(ctx context.Context, sp *sandbox.Spare, src, out string, stdin func(input string) string) (*sandbox.Result, error) {
	input := filepath.Join(sp.Dir(), spareInput)
	if err := filecopy.Link(src, input); err != nil {
		return nil, docmill.Internal(err)
	}
	res, err := sp.Run(ctx, []byte(stdin(sp.Paths().InJail(input))))
	if err != nil && !errors.As(err, new(*sandbox.ExitError)) {
		return res, err
	}
	if _, statErr := os.Stat(filepath.Join(sp.Dir(), spareOutput)); statErr != nil {
		return res, err
	}
	if moveErr := moveFile(filepath.Join(sp.Dir(), spareOutput), out); moveErr != nil {
		return res, moveErr
	}
	return res, err
}

// spareGSArgs is the command line of a spare Ghostscript in dir with the
// pdfwrite options opts: runPDFWrite's, writing dir's output file, then
// reading its program from standard input ("-"), with leave to read
// dir's input file, which -dSAFER would otherwise refuse (a file named on
// the command line is allowed by being named).
func spareGSArgs(dir string, opts []string) []string {
	argv := append([]string(nil), gsBase...)
	argv = append(argv, "-sOutputFile="+strings.ReplaceAll(filepath.Join(dir, spareOutput), "%", "%%"))
	argv = append(argv, opts...)
	return append(argv, "--permit-file-read="+filepath.Join(dir, spareInput), "-")
}

// psEscape makes a string the body of a PostScript string literal.
var psEscape = strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)

// moveFile moves the file at src to dst, copying it when they are on
// different file systems.
func moveFile(src, dst string) error {
	if err := os.Rename(src, dst); err == nil {
		return nil
	}
	if err := filecopy.Copy(src, dst); err != nil {
		return docmill.Internal(err)
	}
	return nil
}
