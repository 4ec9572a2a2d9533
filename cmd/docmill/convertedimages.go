package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/docmill/docmill"
)

// heifTypes are the image types libvips reads (through libheif) but the
// engines of some image tools do not: Go's decoders (jpg-to-pdf,
// image-watermark), leptonica (image-to-text) and OCRmyPDF (ocr-pdf).
var heifTypes = []string{"image/heif", "image/avif"}

// convertedQuality is the JPEG quality of the conversions: high, since
// the image is re-encoded once more (a HEIC or AVIF is lossy already).
const convertedQuality = 92

// convertedImages makes t take HEIF/HEIC and AVIF images
// (t.ConvertsImages): each such input is first converted by convert
// (convert-image: libvips, jailed, which reads the image's declared size
// from its header and refuses one over the pixel cap before decoding
// anything, and applies the orientation) to t's format, and t runs on the
// conversion. t lists convert's engines beside its own; with libvips
// missing, a HEIF or AVIF input fails as convert-image does
// (engine_unavailable), other inputs are not affected. With convert nil,
// or a format this vips cannot write, t stays as it is.
func convertedImages(t *docmill.Tool, convert *docmill.Tool) {
	if convert == nil {
		return
	}
	to := t.ConvertsImages
	params, err := convert.ParseParams(map[string]string{docmill.CapParamFormat: to, docmill.CapParamQuality: strconv.Itoa(convertedQuality)})
	if err != nil {
		return // this vips cannot write to: the tool keeps its own types
	}
	t.Accepts = slices.Concat(t.Accepts, heifTypes)
	// The conversions run within the tool's time: convert-image's own
	// bound is added to it (a 12 MP HEIC takes about 1.2 s of CPU).
	t.Timeout += convert.Timeout
	t.Description += " HEIC/HEIF and AVIF images are converted to " + map[string]string{"jpg": "JPEG", "png": "PNG"}[to] + " first."
	if own := t.Engines; own != nil && convert.Engines != nil {
		t.Engines = func() []docmill.EngineStatus { return slices.Concat(own(), convert.Engines()) }
	}
	run := t.Run
	t.Run = func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
		files, err := convertHEIF(ctx, convert, params, in)
		if err != nil {
			return nil, err
		}
		next := *in
		next.Files = files
		return run(ctx, &next)
	}
}

// convertHEIF returns in's files with each HEIF or AVIF one replaced by
// its conversion by convert with params, in in.WorkDir under a name of its
// own (convert-image names every output alike). The client's filename is
// kept: the tools name their results after it.
func convertHEIF(ctx context.Context, convert *docmill.Tool, params docmill.Params, in *docmill.RunInput) ([]docmill.LocalFile, error) {
	files := slices.Clone(in.Files)
	for i, f := range files {
		if !slices.Contains(heifTypes, f.ContentType) {
			continue
		}
		out, err := convert.Invoke(ctx, &docmill.RunInput{Files: []docmill.LocalFile{f}, Params: params, WorkDir: in.WorkDir, Limits: in.Limits})
		if err != nil {
			return nil, err
		}
		path := filepath.Join(filepath.Dir(out.Path), fmt.Sprintf("heif-converted-%d%s", i, filepath.Ext(out.Path)))
		if err := os.Rename(out.Path, path); err != nil {
			return nil, docmill.Internal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			return nil, docmill.Internal(err)
		}
		files[i] = docmill.LocalFile{Path: path, Filename: f.Filename, ContentType: out.ContentType, Size: st.Size()}
	}
	return files, nil
}
