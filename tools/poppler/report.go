package poppler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// reportContentType is the type of the JSON reports of pdf-info and
// verify-pdf-signatures.
const reportContentType = "application/json"

// writeReport writes v as the run's JSON report: "name.json" in the work
// directory, offered under the input's name with "-name.json", with meta.
func writeReport(in *docmill.RunInput, name string, v any, meta map[string]any) (*docmill.RunOutput, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("poppler: encode report: %w", err)
	}
	path := filepath.Join(in.WorkDir, name+".json")
	if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("poppler: write report: %w", err)
	}
	return &docmill.RunOutput{
		Path: path, Filename: docmill.ResultName(in.Files[0].Filename, ".pdf", "-"+name+".json"), ContentType: reportContentType,
		Meta: meta,
	}, nil
}

// infoTool declares pdf-info. It lives here, with the poppler programs
// that give most of its report, and takes the rest as injected parts:
// qpdf, and structure, the pdfcpu step (pdfops.InspectStep run in the PDF
// helper) that reads tagging, forms, signatures, XMP claims and scripts.
//
// Each part that fails on a damaged file adds to the report's problems
// instead of failing the job; only a file that no part can read is
// refused (invalid_document), as is a password-protected one: without
// the user password no engine reads its pages, fonts or images, and a
// report of zeros would mislead (an owner password alone is no bar).
func infoTool(e Engines, structure docmill.RunFunc) *docmill.Tool {
	engines := []*sandbox.Engine{e.PDFInfo, e.PDFFonts, e.PDFImages, e.QPDF}
	return engineTool(docmill.Tool{
		Slug:  "pdf-info",
		Title: "PDF info",
		Description: "Report what a PDF holds as JSON: pages and their sizes, PDF version, metadata, encryption and permissions, " +
			"fonts, images and their resolution, form fields, signatures, PDF/A and PDF/UA claims, tagging, JavaScript, " +
			"and the problems qpdf and pdfcpu find. A password-protected file is refused: unlock it first.",
		Meta: []docmill.MetaField{
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document; 0 when it could not be read."},
			{Name: "problems", Type: docmill.MetaInteger, Description: "Problems reported."},
		},
		Outputs: []string{reportContentType},
		Run: func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
			return runInfo(ctx, e, structure, in)
		},
	}, engines...)
}

// runInfo gathers the parts of the report and writes it.
func runInfo(ctx context.Context, e Engines, structure docmill.RunFunc, in *docmill.RunInput) (*docmill.RunOutput, error) {
	src, err := filepath.Abs(in.Files[0].Path)
	if err != nil {
		return nil, fmt.Errorf("poppler: input path: %w", err)
	}
	r := newReport()
	st, err := structure(ctx, &docmill.RunInput{Files: in.Files, WorkDir: in.WorkDir, Limits: in.Limits})
	if err != nil {
		return nil, err // the step reports the input's faults in its meta
	}
	r.addStructure(st.Meta)
	run := func(eng *sandbox.Engine, what string, args ...string) ([]byte, bool, error) {
		res, err := eng.Run(ctx, sandbox.Cmd{Args: append(args, src), Dir: in.WorkDir, MaxOutput: maxInfoOutput})
		return r.engineRun(ctx, res, err, what)
	}
	pages := in.Limits.WithDefaults().PDFPages
	infoOut, infoOK, err := run(e.PDFInfo, "pdfinfo", "-isodates", "-enc", "UTF-8", "-f", "1", "-l", strconv.Itoa(pages))
	if err != nil {
		return nil, err
	}
	if infoOK {
		r.addPdfinfo(infoOut)
	}
	if out, ok, err := run(e.PDFFonts, "pdffonts"); err != nil {
		return nil, err
	} else if ok {
		r.addFonts(out)
	}
	if out, ok, err := run(e.PDFImages, "pdfimages", "-list"); err != nil {
		return nil, err
	} else if ok {
		r.addImages(out)
	}
	qpdfOK, err := r.addQPDF(ctx, e.QPDF, src, in.WorkDir)
	if err != nil {
		return nil, err
	}
	switch {
	case r.Encryption.PasswordRequired:
		return nil, docmill.Errorf(docmill.CodeInvalidDocument, "The file is password-protected: without its password nothing but "+
			"its encryption can be read. Remove the password (unlock-pdf) and try again.")
	case !infoOK && !qpdfOK && !r.readByPDFCPU:
		return nil, docmill.Errorf(docmill.CodeInvalidDocument, "The file could not be read as a PDF by any engine: it is damaged beyond repair, truncated or not a PDF.")
	}
	return r.write(in)
}

// engineRun turns one engine run into its output, ok when the engine read
// the file. A refusal of the input (an exit status, a limit) becomes a
// problem of the report, with the classifier's public message; what is
// not the input's fault (cancellation, a failed jail) is returned.
func (r *report) engineRun(ctx context.Context, res *sandbox.Result, err error, what string) ([]byte, bool, error) {
	if err == nil {
		return res.Stdout, true, nil
	}
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	var x *sandbox.ExitError
	if errors.As(err, &x) && x.Code == exitOpenPDF && containsPassword(x.Stderr) {
		r.Encryption.Encrypted, r.Encryption.PasswordRequired = true, true
		return nil, false, nil
	}
	classified := engineError(err, "reading it")
	var e *docmill.Error
	if !errors.As(classified, &e) || e.Code == docmill.CodeInternal || e.Code == docmill.CodeEngineUnavailable {
		return nil, false, classified
	}
	r.problem("poppler", what+": "+e.Message)
	return nil, false, nil
}

// write writes the report as the run's output.
func (r *report) write(in *docmill.RunInput) (*docmill.RunOutput, error) {
	n := len(r.Problems.QPDF) + len(r.Problems.PDFCPU) + len(r.Problems.Poppler)
	return writeReport(in, "info", r, map[string]any{"pages": r.Pages.Count, "problems": n})
}
