package vips

import (
	"context"
	"github.com/docmill/docmill/tools/filecopy"
	"os"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// presetQuality is the quality of each compression preset: the JPEG/WebP
// quality, and for PNG libimagequant's quality target. "low" compression
// keeps the image close to the original; "extreme" trades visible detail
// for size, as iLovePDF's levels do.
var presetQuality = map[string]int{"low": 85, "recommended": 75, "extreme": 55}

// compressTool declares compress-image, for images of at most maxPixels.
func compressTool(vips, vipsheader *sandbox.Engine, maxPixels int64) *docmill.Tool {
	return imageTool(docmill.Tool{
		Slug:  "compress-image",
		Meta:  []docmill.MetaField{{Name: "output_size", Type: docmill.MetaInteger, Description: "Bytes of the result."}, {Name: "saved_bytes", Type: docmill.MetaInteger, Description: "input_size - output_size (0 when compressing did not help and the input is returned; negative when a HEIC input became a larger JPEG)."}, {Name: "ratio", Type: docmill.MetaNumber, Description: "output_size / input_size."}, {Name: "quality", Type: docmill.MetaInteger, Description: "The quality used."}},
		Title: "Compress image",
		Description: "Makes a JPEG, PNG, WebP or AVIF image smaller in the same format: re-encodes it at the preset's quality " +
			"(PNG through palette quantization when that is smaller), applies the EXIF orientation and strips metadata. " +
			"Never returns a larger file than the input, except that a HEIC/HEIF photo always becomes a JPEG " +
			"(HEIC is not written here), which may be larger than the HEIC.",
		Accepts:   []string{"image/jpeg", "image/png", "image/webp", "image/avif", "image/heif"},
		Outputs:   []string{"image/jpeg", "image/png", "image/webp", "image/avif"},
		KeepsType: true,
		Recodes:   recoded,
		Params: []docmill.Param{
			{Name: paramPreset, Type: docmill.TypeString, Enum: []string{"low", "recommended", "extreme"}, Default: "recommended",
				Description: "Compression level: low keeps the most quality, extreme makes the smallest file."},
			qualityParam("JPEG/WebP/AVIF quality 1-100 (for PNG, the quantization quality); overrides the preset."),
		},
	}, vips, vipsheader, maxPixels, compress)
}

// compress re-encodes the input in its own format and returns the smallest
// of the candidates, or the input unchanged when none is smaller (meta
// saved_bytes 0): a compressor that enlarges a file is worse than none. A
// HEIC input is re-encoded as a JPEG (keptImage) and that JPEG returned
// whatever its size (saved_bytes may then be negative): the HEIC itself
// would not be the JPEG the tool declares.
//
// Every candidate goes through vips autorot, which turns the pixels as the
// EXIF orientation says and drops the tag, so that stripping the metadata
// cannot leave a photo on its side.
func compress(ctx context.Context, vips, vipsheader *sandbox.Engine, maxPixels int64, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f, fm := keptImage(in)
	if _, _, err := imageSize(ctx, vipsheader, in.WorkDir, f, maxPixels); err != nil {
		return nil, err
	}
	q := presetQuality[in.Params.String(paramPreset)]
	if in.Params.Has(paramQuality) {
		q = in.Params.Int(paramQuality)
	}
	src, err := loadPath(f, true)
	if err != nil {
		return nil, err
	}
	final, err := outPath(in, baseName(f.Filename)+"-compressed."+fm.ext)
	if err != nil {
		return nil, err
	}
	best, bestSize := "", int64(-1)
	preset := in.Params.String(paramPreset)
	for i, opts := range compressCandidates(fm, q, preset, stripOption(vips.Version())) {
		p, err := outPath(in, "candidate-"+itoa(i)+"."+fm.ext)
		if err != nil {
			return nil, err
		}
		if _, err := runVips(ctx, vips, in.WorkDir, "autorot", src, saveOptions(p, opts...)); err != nil {
			return nil, engineError(err)
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, docmill.Internal(err)
		}
		if bestSize < 0 || st.Size() < bestSize {
			best, bestSize = p, st.Size()
		}
	}
	inSize := f.Size
	if st, err := os.Stat(f.Path); err == nil {
		inSize = st.Size()
	}
	if bestSize >= inSize && f.ContentType == fm.contentType { // a recoded input is never returned as it is
		err = filecopy.Copy(f.Path, final)
		bestSize = inSize
	} else {
		err = os.Rename(best, final)
	}
	if err != nil {
		return nil, docmill.Internal(err)
	}
	return &docmill.RunOutput{
		Path: final, Filename: baseName(f.Filename) + "-compressed." + fm.ext, ContentType: fm.contentType,
		Meta: map[string]any{
			"input_size": inSize, "output_size": bestSize, "saved_bytes": inSize - bestSize,
			"ratio": float64(bestSize) / float64(inSize), "quality": q,
		},
	}, nil
}

// compressCandidates returns the save options of each encoding to try.
//   - JPEG: Huffman tables optimised for the image and progressive scans,
//     both lossless savings on top of the quality.
//   - WebP: the slowest, tightest lossy effort.
//   - AVIF: libheif's AV1 encoder at the package's low effort (see
//     avifEffort: a higher one would not fit a capped image in the
//     timeout).
//   - PNG: a palette image quantized by libimagequant at quality q, which
//     usually wins by far on photos and screenshots, and the lossless image
//     at the strongest zlib level, which wins on images that already have
//     few colours or that quantization would not shrink. libimagequant's
//     size is not monotonic in Q: below about 70 it spends the colours it
//     saves on dithering noise, which deflates badly (map.png: 65 KB at
//     Q=75, 86 KB at Q=55), so "extreme" also halves the dithering (53 KB).
func compressCandidates(fm format, q int, preset, strip string) [][]string {
	switch fm.ext {
	case "jpg":
		return [][]string{{"Q=" + itoa(q), "optimize_coding", "interlace", strip}}
	case "webp":
		return [][]string{{"Q=" + itoa(q), "effort=6", strip}}
	case "avif":
		return [][]string{{"Q=" + itoa(q), "effort=" + itoa(avifEffort), strip}}
	default:
		dither := "1"
		if preset == "extreme" {
			dither = "0.5"
		}
		return [][]string{
			{"palette", "Q=" + itoa(q), "dither=" + dither, "compression=9", "effort=7", strip},
			{"compression=9", strip},
		}
	}
}
