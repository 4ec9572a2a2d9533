package ocr

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// OCRmyPDF's exit codes (ocrmypdf.exceptions.ExitCode) that runError
// gives a meaning to; the rest are internal failures.
const (
	exitInputFile         = 2 // not a PDF or image, damaged, unsupported image
	exitMissingDependency = 3 // tesseract, Ghostscript or a language missing
	exitAlreadyDoneOCR    = 6 // page has text; not raised with --skip-text
	exitEncryptedPDF      = 8
)

// run OCRs the one input into ocr-output.pdf in the work directory.
func (r *runner) run(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	if !r.available() {
		return nil, unavailable(nil)
	}
	lang := in.Params.String(paramLang)
	if lang == "" {
		lang = defaultLang
	}
	f := in.Files[0]
	input, err := filepath.Abs(f.Path)
	if err != nil {
		return nil, docmill.Internal(fmt.Errorf("ocr: input path: %w", err))
	}
	workDir, err := filepath.Abs(in.WorkDir)
	if err != nil {
		return nil, docmill.Internal(fmt.Errorf("ocr: work dir: %w", err))
	}
	args := []string{
		// --skip-text leaves pages that have text untouched (and keeps
		// OCRmyPDF from refusing a document that has some).
		"--skip-text",
		"-l", lang,
		// pdf, not the default pdfa: change the document as little as
		// possible and skip a slow Ghostscript PDF/A pass.
		"--output-type", "pdf",
		"--jobs", strconv.Itoa(r.jobs()),
		"--quiet",
	}
	if f.ContentType != pdfContentType {
		img, err := r.prepareImage(ctx, f, input, workDir, in.Limits)
		if err != nil {
			return nil, err
		}
		// Always given, so that an image without a credible resolution
		// is not refused (OCRmyPDF rejects a missing DPI or one <= 96).
		args = append(args, "--image-dpi", strconv.Itoa(img.dpi))
		input = img.path
	}
	output := filepath.Join(workDir, "ocr-output.pdf")
	// "--" keeps any path from being read as an option.
	args = append(args, "--", input, output)
	if _, err := r.ocrmypdf.Run(ctx, sandbox.Cmd{Args: args, Dir: workDir, Timeout: timeout}); err != nil {
		return nil, runError(ctx, err)
	}
	meta := map[string]any{"lang": lang}
	if n, ok := r.pageCount(ctx, output, workDir, in.Limits); ok {
		meta["pages"] = n
	}
	return &docmill.RunOutput{
		Path:        output,
		Filename:    docmill.ResultName(f.Filename, "", "-ocr.pdf"),
		ContentType: pdfContentType,
		Meta:        meta,
	}, nil
}

// jobs is OCRmyPDF's --jobs: the cores divided among the engine's slots,
// at least one. The sandbox runs at most Slots copies of ocrmypdf at once,
// so OCR never asks for more than the node's cores (OCRmyPDF also sets
// tesseract's OMP_THREAD_LIMIT so its threads stay within --jobs). Give
// the ocrmypdf engine fewer slots to let one job use more cores.
func (r *runner) jobs() int {
	return max(1, runtime.NumCPU()/max(1, r.ocrmypdf.Slots()))
}

// runError classifies a failed ocrmypdf run (sandbox.Classify), with
// OCRmyPDF's own exit codes for an encrypted file, a page that has text
// and a missing dependency. The engine's standard error, which names
// paths, stays in the wrapped error for logs. Cancellation and deadline
// return the context's error.
func runError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return sandbox.Classify(err, sandbox.Causes{
		Engine:  "The OCR engine",
		Refused: "The file could not be read: it is damaged, or not a PDF or an image OCR supports.",
		Exit: func(x *sandbox.ExitError) *docmill.Error {
			switch x.Code {
			case exitEncryptedPDF:
				return docmill.Errorf(docmill.CodeInvalidDocument, "The file is password-protected. Remove the password (unlock-pdf) and try again.")
			case exitAlreadyDoneOCR:
				return docmill.Errorf(docmill.CodeInvalidDocument, "The file already has a text layer that OCR cannot replace.")
			case exitMissingDependency:
				return unavailable(nil)
			}
			return nil
		},
	})
}

func unavailable(err error) *docmill.Error {
	return &docmill.Error{Code: docmill.CodeEngineUnavailable, Message: "The OCR engine is not available on this server.", Err: err}
}

// prepareImage runs PrepareImageStep on the image at path, within the
// run's limits, in the PDF helper when the server gave one.
func (r *runner) prepareImage(ctx context.Context, f docmill.LocalFile, path, workDir string, limits docmill.Limits) (*preparedImage, error) {
	if r.prepare == nil {
		return prepareImage(f, path, workDir, limits.WithDefaults().ImagePixels)
	}
	f.Path = path
	out, err := r.prepare(ctx, &docmill.RunInput{Files: []docmill.LocalFile{f}, WorkDir: workDir, Limits: limits})
	if err != nil {
		return nil, err
	}
	dpi, err := strconv.Atoi(fmt.Sprint(out.Meta["dpi"]))
	if err != nil {
		return nil, docmill.Internal(fmt.Errorf("ocr: prepared image has no dpi: %v", out.Meta))
	}
	return &preparedImage{path: out.Path, dpi: dpi}, nil
}

// pageCount counts the output's pages for the job's meta, in the PDF
// helper (r.pages), not in the server. It is best effort: OCRmyPDF has
// already written a PDF that qpdf accepts, so a document the helper
// cannot read is still returned, without the figure. The step gets the
// run's limits.
func (r *runner) pageCount(ctx context.Context, path, workDir string, limits docmill.Limits) (int, bool) {
	if r.pages == nil {
		return 0, false
	}
	out, err := r.pages(ctx, &docmill.RunInput{
		Files:   []docmill.LocalFile{{Path: path, Filename: filepath.Base(path), ContentType: pdfContentType}},
		WorkDir: workDir,
		Limits:  limits,
	})
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(fmt.Sprint(out.Meta["pages"]))
	return n, err == nil
}
