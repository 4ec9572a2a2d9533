package ghostscript

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/filecopy"
)

// preset is one compression level. The figures were tuned on the corpus's
// image-heavy files and follow Ghostscript's own /printer, /ebook and
// /screen settings in spirit, with explicit values so that a Ghostscript
// upgrade cannot change them.
type preset struct {
	// dpi is the target resolution of colour and grey images; mono images
	// get twice it (their CCITT/Flate coding is cheap, and thin lines of
	// scans break up below it).
	dpi int
	// quality is the JPEG quality (IJG scale, 1-100) of re-encoded images.
	quality int
	// rgb converts colour to RGB, as /ebook and /screen do: Ghostscript
	// can neither downsample nor JPEG-encode Indexed (palette) images,
	// and CMYK images JPEG-encode poorly. low keeps colour unchanged,
	// since it is the level for print.
	rgb bool
}

// presets are the levels of the preset param: low keeps images near their
// resolution (300 dpi, q85), recommended aims at 150 dpi (q62), extreme at
// 96 dpi (q50). Images are only resampled when they are more than 1.5
// times the target (downsampleThreshold), so a slightly larger image is not
// degraded for little gain.
//
// recommended encodes and resamples images as Ghostscript's /ebook does
// (QFactor 0.76, averaging), and qpdf's object streams then make the file
// smaller than /ebook's at the same SSIM against the original, on every
// corpus PDF (BenchmarkCompressVsGhostscript). At q75 an image-heavy file
// came out 29% larger than /ebook's; bicubic resampling cost 8% more time
// on a 117-page file and scored lower than averaging on a damaged tiny
// image.
var presets = map[string]preset{
	"low":         {dpi: 300, quality: 85},
	"recommended": {dpi: 150, quality: 62, rgb: true},
	"extreme":     {dpi: 96, quality: 50, rgb: true},
}

const downsampleThreshold = "1.5"

func (e *engines) compressTool() *docmill.Tool {
	return e.tool(docmill.Tool{
		Slug:        "compress-pdf",
		Lane:        docmill.LaneRender,
		Meta:        []docmill.MetaField{{Name: "output_size", Type: docmill.MetaInteger, Description: "Bytes of the result."}, {Name: "saved_bytes", Type: docmill.MetaInteger, Description: "input_size - output_size (0 when compressing did not help and the input is returned)."}, {Name: "ratio", Type: docmill.MetaNumber, Description: "output_size / input_size."}, {Name: "preset", Type: docmill.MetaString, Description: "The preset used."}, {Name: "quality", Type: docmill.MetaInteger, Description: "The image quality used."}},
		Title:       "Compress PDF",
		Description: "Reduce the size of a PDF by downsampling and re-encoding its images; text and vector graphics stay vector and searchable. Never returns a file larger than the input.",
		Params: []docmill.Param{
			{Name: paramPreset, Type: docmill.TypeString, Enum: []string{"low", "recommended", "extreme"}, Default: "recommended",
				Description: "Compression level: low keeps images near their resolution (300 dpi), recommended aims at 150 dpi, extreme at 96 dpi with lower quality."},
			{Name: paramQuality, Type: docmill.TypeInteger, Min: docmill.Bound(1), Max: docmill.Bound(100),
				Description: "JPEG quality of re-encoded images (1-100); overrides the preset's."},
		},
		Engine: "ghostscript",
		Run:    e.runCompress,
	})
}

// runCompress rewrites the input with Ghostscript's pdfwrite under the
// preset's image settings, then lets qpdf pack objects into object streams
// (Ghostscript 10.0 writes none), compressed at level 9: 8-20% off
// pdfwrite's output on the corpus. qpdf does not recompress pdfwrite's
// Flate streams (--recompress-flate): that doubled its time on a 117-page
// file for 0.6% of size. When the result is not smaller than the input,
// the input is returned unchanged (saved_bytes 0).
//
// Only the PDF header is checked before Ghostscript runs; whether the file
// needs a password is asked of qpdf only when Ghostscript failed, to pick
// the message (see compressFailure): the common case pays for two engine
// runs, not three.
func (e *engines) runCompress(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f := in.Files[0]
	src, err := checkHeader(f)
	if err != nil {
		return nil, err
	}
	name := in.Params.String(paramPreset)
	p := presets[name] // the param's enum is presets' keys (TestEnumsMatchTables)
	if in.Params.Has(paramQuality) {
		p.quality = in.Params.Int(paramQuality)
	}
	inSize, err := fileSize(src)
	if err != nil {
		return nil, docmill.Internal(err)
	}
	gsOut := filepath.Join(in.WorkDir, "compress-gs.pdf")
	first := func() error { return e.compressGS(ctx, in.WorkDir, src, gsOut, p) }
	if err := e.runGSFrom(ctx, in.WorkDir, gsOut, p.gsArgs(src), first); err != nil {
		return nil, e.compressFailure(ctx, err, src, in.WorkDir)
	}
	out := filepath.Join(in.WorkDir, "compressed.pdf")
	if err = qpdfOK(e.pack(ctx, in.WorkDir, gsOut, out)); err != nil {
		return nil, failure(err, msgDamaged)
	}
	os.Remove(gsOut)
	outSize, err := fileSize(out)
	if err != nil {
		return nil, docmill.Internal(err)
	}
	if outSize >= inSize {
		// Never larger: hand back the input's own bytes.
		if err := filecopy.Copy(src, out); err != nil {
			return nil, docmill.Internal(err)
		}
		outSize = inSize
	}
	return pdfResult(in, out, "-compressed.pdf", map[string]any{
		"input_size":  inSize,
		"output_size": outSize,
		"saved_bytes": inSize - outSize,
		"ratio":       float64(outSize) / float64(max(inSize, 1)),
		"preset":      name,
		"quality":     p.quality,
	}), nil
}

// compressFailure classifies a failed Ghostscript run of compress-pdf: a
// file that needs a password is refused as encrypted (checkEncryption),
// any other failure as runGS's (gsFailure). A canceled run is reported as
// is, without asking qpdf.
func (e *engines) compressFailure(ctx context.Context, gsErr error, src, dir string) error {
	if ctx.Err() != nil {
		return gsFailure(gsErr, msgDamaged)
	}
	if err := e.checkEncryption(ctx, src, dir); docmill.ErrorCode(err) == docmill.CodeInvalidDocument {
		return err
	}
	return gsFailure(gsErr, msgDamaged)
}

// gsArgs returns the pdfwrite options of p followed by the input. Colour
// and grey images go through pdfwrite's automatic filter choice, as
// /ebook's do: JPEG for photographic images, Flate for sharp-edged ones
// such as soft masks and screenshots, which JPEG both enlarges and blurs.
// JPEG quality is set through the distiller parameter QFactor of the
// automatic filter's image dictionaries (-dJPEGQ is an option of the jpeg
// device only and leaves pdfwrite's output unchanged). Already-JPEG images
// that need no downsampling pass through untouched (pdfwrite's
// PassThroughJPEGImages default), avoiding a second generation of JPEG
// loss. Pages keep their orientation: pdfwrite's default would turn each
// page so that most of its text reads upright, which changed how a page
// with a /Rotate displays.
func (p preset) gsArgs(src string) []string {
	return append(p.options(), "-c", p.imageDicts(), "-f", src)
}

// options are the pdfwrite options of p that are given on Ghostscript's
// command line; see gsArgs.
func (p preset) options() []string {
	res := strconv.Itoa(p.dpi)
	args := []string{
		"-dCompatibilityLevel=1.7", "-dAutoRotatePages=/None",
		"-dDownsampleColorImages=true", "-dColorImageResolution=" + res,
		"-dColorImageDownsampleThreshold=" + downsampleThreshold, "-dColorImageDownsampleType=/Average",
		"-dAutoFilterColorImages=false", "-dColorImageFilter=/DCTEncode",
		"-dDownsampleGrayImages=true", "-dGrayImageResolution=" + res,
		"-dGrayImageDownsampleThreshold=" + downsampleThreshold, "-dGrayImageDownsampleType=/Average",
		"-dAutoFilterGrayImages=true",
		"-dDownsampleMonoImages=true", "-dMonoImageResolution=" + strconv.Itoa(2*p.dpi),
		"-dMonoImageDownsampleThreshold=" + downsampleThreshold, "-dMonoImageDownsampleType=/Subsample",
		"-dMonoImageFilter=/CCITTFaxEncode",
		"-dDetectDuplicateImages=true", "-dCompressFonts=true", "-dSubsetFonts=true",
		"-dEmbedAllFonts=true", "-dCompressPages=true",
	}
	if p.rgb {
		args = append(args, "-sColorConversionStrategy=RGB")
	}
	return args
}

// imageDicts is the PostScript that sets p's JPEG quality; see gsArgs.
func (p preset) imageDicts() string {
	qf := qFactor(p.quality)
	return fmt.Sprintf("<< /ColorImageDict << /QFactor %s /Blend 1 /HSamples [2 1 1 2] /VSamples [2 1 1 2] >>"+
		" /GrayACSImageDict << /QFactor %s /Blend 1 /HSamples [1 1 1 1] /VSamples [1 1 1 1] >> >> setdistillerparams", qf, qf)
}

// qFactor converts a JPEG quality (1-100) to the DCTEncode QFactor that
// Ghostscript hands to libjpeg's linear scaling: the IJG quality scaling
// (5000/q below 50, 200-2q above) divided by 100. Ghostscript reads a
// QFactor of exactly 1.0 as "not set" and falls back to quality 75, so
// quality 50 is nudged to 0.99.
func qFactor(quality int) string {
	q := min(max(quality, 1), 100)
	scale := 200 - 2*float64(q)
	if q < 50 {
		scale = 5000 / float64(q)
	}
	f := max(scale/100, 0.01)
	if f == 1 {
		f = 0.99
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}
