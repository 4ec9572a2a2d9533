package vips

import (
	"context"
	"fmt"
	"math"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// maxSide bounds the width and height params, a bound on a param rather
// than a cost (one side of 20,000 pixels is beyond any screen or print):
// the pixel cap (docmill.Limits' ImagePixels), which a node sets, bounds
// their product and any size the params imply.
const maxSide = 20000

// hugeSide stands for "no bound" on a side of vips thumbnail's box (vips'
// VIPS_MAX_COORD): thumbnail takes a box, and a box of width x width when
// no height is given.
const hugeSide = "10000000"

// resizeTool declares resize-image, for images of at most maxPixels, read
// or made.
func resizeTool(vips, vipsheader *sandbox.Engine, maxPixels int64) *docmill.Tool {
	side := func(name string) docmill.Param {
		return docmill.Param{Name: name, Type: docmill.TypeInteger, Min: docmill.Bound(1), Max: docmill.Bound(maxSide),
			Description: "Target " + name + " in pixels."}
	}
	return imageTool(docmill.Tool{
		Slug:     "resize-image",
		Provides: docmill.CapResizeImage,
		Meta:     []docmill.MetaField{{Name: "width", Type: docmill.MetaInteger, Description: "Width of the result, pixels."}, {Name: "height", Type: docmill.MetaInteger, Description: "Height of the result, pixels."}, {Name: "input_width", Type: docmill.MetaInteger, Description: "Width of the input, pixels."}, {Name: "input_height", Type: docmill.MetaInteger, Description: "Height of the input, pixels."}},
		Title:    "Resize image",
		Description: "Resizes an image by width and/or height, or by percent, keeping its format (a HEIC/HEIF photo becomes a JPEG). " +
			"The EXIF orientation is applied first, so sizes are as the image is seen.",
		Accepts:   readTypes,
		Outputs:   writtenTypes,
		KeepsType: true,
		Recodes:   recoded,
		Params: []docmill.Param{
			withExample(side(paramWidth), "320"), side(paramHeight),
			{Name: paramPercent, Type: docmill.TypeInteger, Min: docmill.Bound(1), Max: docmill.Bound(1000),
				Description: "Scale both sides by this percentage; not with width or height."},
			{Name: paramFit, Type: docmill.TypeString, Enum: []string{"inside", "cover", "fill"}, Default: "inside",
				Description: "With width and height: inside keeps the aspect ratio within the box, cover fills the box and " +
					"crops the overflow (centred), fill stretches to exactly the box. With one side, the other follows the aspect ratio."},
			{Name: paramEnlarge, Type: docmill.TypeBoolean, Default: "true",
				Description: "Whether an image smaller than the box may be enlarged to it."},
			qualityParam("JPEG/WebP quality 1-100 of the output (default 85)."),
		},
		CheckParams: checkResizeBox,
	}, vips, vipsheader, maxPixels, resize)
}

// resize runs vips thumbnail, which shrinks on load (a JPEG is decoded at
// 1/2, 1/4 or 1/8 size when that is enough), applies the EXIF orientation
// and resizes in one pass: the fastest way libvips has.
func resize(ctx context.Context, vips, vipsheader *sandbox.Engine, maxPixels int64, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f, fm := keptImage(in)
	box := resizeBoxFor(in.Params)
	w, h, err := imageSize(ctx, vipsheader, in.WorkDir, f, maxPixels)
	if err != nil {
		return nil, err
	}
	args, err := box.thumbnailArgs(w, h, maxPixels)
	if err != nil {
		return nil, err
	}
	src, err := loadPath(f, false)
	if err != nil {
		return nil, err
	}
	tmp, err := outPath(in, "resized."+fm.ext)
	if err != nil {
		return nil, err
	}
	args = append([]string{"thumbnail", src, saveOptions(tmp, encodeOptions(fm, in.Params, 85)...)}, args...)
	args = append(args, "--fail-on", failOn)
	if _, err := runVips(ctx, vips, in.WorkDir, args...); err != nil {
		return nil, engineError(err)
	}
	ow, oh, err := outputSize(ctx, vipsheader, in.WorkDir, tmp, fm)
	if err != nil {
		return nil, err
	}
	return &docmill.RunOutput{
		Path: tmp, Filename: fmt.Sprintf("%s-%dx%d.%s", baseName(f.Filename), ow, oh, fm.ext), ContentType: fm.contentType,
		Meta: map[string]any{"width": ow, "height": oh, "input_width": w, "input_height": h},
	}, nil
}

// resizeBox is what a resize-image run asked for; a zero side or percent
// is absent.
type resizeBox struct {
	width, height, percent int
	fit                    string
	enlarge                bool
}

// checkResizeBox is resize-image's rule across params: one of width,
// height or percent is needed, and percent excludes the other two.
func checkResizeBox(p docmill.Params) error {
	switch {
	case !p.Has(paramWidth) && !p.Has(paramHeight) && !p.Has(paramPercent):
		return docmill.ParamError(paramWidth, "is required, or height or percent")
	case p.Has(paramPercent) && (p.Has(paramWidth) || p.Has(paramHeight)):
		return docmill.ParamError(paramPercent, "cannot be combined with width or height")
	}
	return nil
}

// resizeBoxFor reads the validated params (checkResizeBox ran on them).
func resizeBoxFor(p docmill.Params) resizeBox {
	return resizeBox{width: p.Int(paramWidth), height: p.Int(paramHeight), percent: p.Int(paramPercent),
		fit: p.String(paramFit), enlarge: p.Bool(paramEnlarge)}
}

// thumbnailArgs returns vips thumbnail's size arguments for an image of
// w x h stored pixels, after checking that the result stays within
// maxPixels. The EXIF orientation is not known here (thumbnail applies
// it), so the check takes the larger result of both orientations.
//   - percent: a square box whose side is the long side scaled, fitted
//     inside, scales both sides by percent whichever way the image turns;
//   - inside: the box, a missing side unbounded;
//   - cover: the box with a centred crop (both sides given);
//   - fill: the box with the aspect ratio forced (both sides given).
func (b resizeBox) thumbnailArgs(w, h int, maxPixels int64) ([]string, error) {
	field := paramWidth
	if b.percent > 0 {
		field = "percent"
	} else if b.width == 0 {
		field = paramHeight
	}
	var args []string
	var pixels float64
	if b.percent > 0 {
		side := max(1, int(math.Round(float64(max(w, h))*float64(b.percent)/100)))
		s := float64(b.percent) / 100
		args, pixels = []string{itoa(side), "--height", itoa(side), "--size", "both"}, float64(w)*float64(h)*s*s
	} else {
		args = []string{sideArg(b.width), "--height", sideArg(b.height), "--size", "both"}
		if !b.enlarge {
			args[4] = "down"
		}
		both := b.width > 0 && b.height > 0
		switch {
		case both && b.fit == "cover":
			args, pixels = append(args, "--crop", "centre"), float64(b.width)*float64(b.height)
		case both && b.fit == "fill":
			args[4], pixels = "force", float64(b.width)*float64(b.height)
		default:
			pixels = max(b.insidePixels(w, h), b.insidePixels(h, w))
		}
	}
	if pixels > float64(maxPixels) {
		return nil, docmill.ParamError(field, "would make an image of %s MP; the limit is %s MP", megapixels(pixels), megapixels(float64(maxPixels)))
	}
	return args, nil
}

// insidePixels returns the pixels of a w x h image fitted inside the box.
func (b resizeBox) insidePixels(w, h int) float64 {
	s := math.Inf(1)
	if b.width > 0 {
		s = float64(b.width) / float64(w)
	}
	if b.height > 0 {
		s = min(s, float64(b.height)/float64(h))
	}
	if !b.enlarge {
		s = min(s, 1)
	}
	return float64(w) * float64(h) * s * s
}

// sideArg is a box side for vips thumbnail, unbounded when absent.
func sideArg(n int) string {
	if n == 0 {
		return hugeSide
	}
	return itoa(n)
}

// encodeOptions returns the save options of an output in format fm: the
// quality param, or def, for lossy formats, and the settings each format
// needs to be a sound file (see convert.go for the reasons).
func encodeOptions(fm format, p docmill.Params, def int) []string {
	var opts []string
	if fm.lossy {
		q := def
		if p.Has(paramQuality) {
			q = p.Int(paramQuality)
		}
		opts = append(opts, "Q="+itoa(q))
	}
	switch fm.ext {
	case "jpg":
		opts = append(opts, "optimize_coding", "background=255")
	case "avif":
		opts = append(opts, "effort="+itoa(avifEffort))
	case "tiff":
		opts = append(opts, "compression=deflate")
	}
	return opts
}
