package ghostscript

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// iccGlobs are where Ghostscript installs its sRGB profile, by version.
var iccGlobs = []string{
	"/usr/share/ghostscript/*/iccprofiles/srgb.icc",
	"/usr/local/share/ghostscript/*/iccprofiles/srgb.icc",
	"/usr/share/color/icc/ghostscript/srgb.icc",
}

// srgbProfile finds Ghostscript's sRGB ICC profile once; "" if missing.
var srgbProfile = sync.OnceValue(func() string {
	for _, g := range iccGlobs {
		if m, _ := filepath.Glob(g); len(m) > 0 {
			return m[len(m)-1]
		}
	}
	return ""
})

// conformances maps the conformance param to the PDF/A part Ghostscript
// writes; Ghostscript makes level B (visual appearance) only.
var conformances = map[string]string{"1b": "1", "2b": "2", "3b": "3"}

func (e *engines) pdfaTool() *docmill.Tool {
	return e.tool(docmill.Tool{
		Slug:        "pdf-to-pdfa",
		Lane:        docmill.LaneRender,
		Meta:        []docmill.MetaField{{Name: "pages", Type: docmill.MetaInteger, Description: "Pages of the document."}, {Name: "conformance", Type: docmill.MetaString, Description: "The PDF/A level made."}},
		Title:       "PDF to PDF/A",
		Description: "Convert a PDF to PDF/A for long-term archiving: fonts embedded, colours tied to an embedded sRGB output intent, conformance declared in the XMP metadata.",
		Params: []docmill.Param{
			{Name: paramConformance, Type: docmill.TypeString, Enum: []string{"1b", "2b", "3b"}, Default: "2b",
				Description: "PDF/A part and level: 1b, 2b or 3b."},
		},
		Engine:    "ghostscript",
		Available: func() bool { return e.available() && srgbProfile() != "" },
		Run:       e.runPDFA,
	})
}

// runPDFA converts the input with Ghostscript's PDF/A mode. Colours are
// converted to RGB and tied to Ghostscript's sRGB profile as the output
// intent, written by a PostScript prefix file made for the run (the
// template PDFA_def.ps reads the profile from the working directory).
// -dPDFACompatibilityPolicy=1 drops what PDF/A forbids (transparency in
// 1b, JavaScript, ...) rather than failing.
func (e *engines) runPDFA(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	if srgbProfile() == "" {
		return nil, docmill.Errorf(docmill.CodeEngineUnavailable, "PDF/A conversion is not available on this server.")
	}
	src, err := checkHeader(in.Files[0])
	if err != nil {
		return nil, err
	}
	level := in.Params.String(paramConformance)
	part := conformances[level] // the param's enum is conformances' keys (TestEnumsMatchTables)
	out, err := e.convertPDFA(ctx, src, part, in.WorkDir)
	if err != nil {
		return nil, err
	}
	pages, err := e.outputPages(ctx, out, in.WorkDir, in.Limits)
	if err != nil {
		return nil, docmill.Internal(fmt.Errorf("ghostscript: PDF/A output: %w", err))
	}
	return pdfResult(in, out, "-pdfa.pdf", map[string]any{"conformance": level, "pages": pages}), nil
}

// PDFAStep is pdf-to-pdfa's conversion as a step, for the tools that
// make PDFs and offer PDF/A output (chromium's pdfa param): it takes one
// PDF and the param "conformance" (1b, 2b or 3b, as pdf-to-pdfa's), and
// writes the PDF/A as "<name>-pdfa.pdf", meta {"conformance"}. It is
// available when pdf-to-pdfa is.
func PDFAStep(gs, qpdf *sandbox.Engine) *docmill.EngineStep {
	e := &engines{gs: gs, qpdf: qpdf}
	return &docmill.EngineStep{Name: "pdfa", MinFiles: 1, MaxFiles: 1, Run: e.runPDFAStep,
		Available: func() bool { return e.available() && srgbProfile() != "" }}
}

// runPDFAStep converts the input to the PDF/A conformance its params
// name; a conformance not in conformances is the calling tool's fault.
func (e *engines) runPDFAStep(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	level := in.Params.String(paramConformance)
	part, ok := conformances[level]
	if !ok {
		return nil, docmill.Internal(fmt.Errorf("ghostscript: PDF/A step: conformance %q", level))
	}
	if srgbProfile() == "" {
		return nil, docmill.Errorf(docmill.CodeEngineUnavailable, "PDF/A conversion is not available on this server.")
	}
	src, err := checkHeader(in.Files[0])
	if err != nil {
		return nil, err
	}
	out, err := e.convertPDFA(ctx, src, part, in.WorkDir)
	if err != nil {
		return nil, err
	}
	return pdfResult(in, out, "-pdfa.pdf", map[string]any{"conformance": level}), nil
}

// convertPDFA writes the PDF at src, its header checked (checkHeader), as
// PDF/A part part, level B, to pdfa.pdf in dir, and returns its path:
// pdf-to-pdfa's conversion, which einvoice-pdf makes its PDF/A-3 with. A
// file that needs a password is invalid_document (msgEncrypted), found
// out once Ghostscript has failed on it.
func (e *engines) convertPDFA(ctx context.Context, src, part, dir string) (string, error) {
	icc := srgbProfile()
	def := filepath.Join(dir, "pdfa-def.ps")
	if err := os.WriteFile(def, []byte(pdfaDef(icc)), 0o600); err != nil {
		return "", docmill.Internal(err)
	}
	out := filepath.Join(dir, "pdfa.pdf")
	opts := []string{
		"-dPDFA=" + part, "-dPDFACompatibilityPolicy=1",
		"-sColorConversionStrategy=RGB", "-sProcessColorModel=DeviceRGB",
		"-dEmbedAllFonts=true", "-dSubsetFonts=true",
		"--permit-file-read=" + icc,
	}
	if part == "1" {
		opts = append([]string{"-dCompatibilityLevel=1.4"}, opts...)
	}
	args := append(slices.Clone(opts), def, src)
	// The first run takes a spare Ghostscript when one is ready: it reads
	// the output intent's prefix from standard input, not from def.
	first := func() error { return e.spareGS(ctx, dir, src, out, opts, args, pdfaDef(icc)) }
	if err := e.runGSFrom(ctx, dir, out, args, first); err != nil {
		// Only now is it worth asking why (checkEncryption, a qpdf run
		// every document would otherwise pay): a file that needs a
		// password says so rather than that it is damaged.
		if ctx.Err() == nil {
			if encrypted := e.checkEncryption(ctx, src, dir); encrypted != nil {
				return "", encrypted
			}
		}
		return "", gsFailure(err, msgDamaged)
	}
	return out, nil
}

// pdfaDef returns the PostScript prefix that embeds the ICC profile at icc
// (an absolute path) and declares it the document's output intent. It is
// Ghostscript's PDFA_def.ps without the placeholder title, with /N fixed
// to 3 (the profile is RGB, and so is the output).
func pdfaDef(icc string) string {
	return `%!
/ICCProfile (` + psString(icc) + `) def
[/_objdef {icc_PDFA} /type /stream /OBJ pdfmark
[{icc_PDFA} << /N 3 >> /PUT pdfmark
[{icc_PDFA} ICCProfile (r) file /PUT pdfmark
[/_objdef {OutputIntent_PDFA} /type /dict /OBJ pdfmark
[{OutputIntent_PDFA} <<
  /Type /OutputIntent
  /S /GTS_PDFA1
  /DestOutputProfile {icc_PDFA}
  /OutputConditionIdentifier (sRGB)
>> /PUT pdfmark
[{Catalog} << /OutputIntents [ {OutputIntent_PDFA} ] >> /PUT pdfmark
`
}

// psString escapes s for a PostScript string literal.
func psString(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}
