package vips

import (
	"context"
	"os"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// rotateTool declares rotate-image, for images of at most maxPixels
// (rotating keeps the pixel count).
func rotateTool(vips, vipsheader *sandbox.Engine, maxPixels int64) *docmill.Tool {
	return imageTool(docmill.Tool{
		Slug:  "rotate-image",
		Title: "Rotate image",
		Description: "Turns an image clockwise by 90, 180 or 270 degrees, or by its EXIF orientation (auto), keeping its format (a HEIC/HEIF photo becomes a JPEG). " +
			"The EXIF orientation is always applied to the pixels first and its tag dropped, so the turn is of the image as it is seen " +
			"and no viewer turns it again. Multi-page TIFF and animated GIF inputs give their first page or frame.",
		Meta:      sizeMeta,
		Accepts:   readTypes,
		Outputs:   writtenTypes,
		KeepsType: true,
		Recodes:   recoded,
		Params: []docmill.Param{
			{Name: paramAngle, Type: docmill.TypeString, Enum: []string{"90", "180", "270", "auto"}, Default: "90",
				Description: "Clockwise turn in degrees, or auto: only apply the EXIF orientation (a photo taken sideways comes out upright)."},
			qualityParam("JPEG/WebP/AVIF quality 1-100 of the output (default 90)."),
		},
	}, vips, vipsheader, maxPixels, rotate)
}

// sizeMeta declares the meta of the tools that report the result's size
// beside the input's.
var sizeMeta = []docmill.MetaField{
	{Name: "width", Type: docmill.MetaInteger, Description: "Width of the result, pixels."},
	{Name: "height", Type: docmill.MetaInteger, Description: "Height of the result, pixels."},
	{Name: "input_width", Type: docmill.MetaInteger, Description: "Width of the input as stored, pixels (before any EXIF orientation)."},
	{Name: "input_height", Type: docmill.MetaInteger, Description: "Height of the input as stored, pixels (before any EXIF orientation)."},
}

// keepQuality is the default quality of the tools that change the
// geometry of an image in its own lossy format (rotate, crop, watermark):
// high, since the client asked for no compression, and a JPEG re-encoded
// at vips' default 75 visibly loses detail.
const keepQuality = 90

// rotate turns the input through vips autorot (which applies the EXIF
// orientation and drops its tag) and then, unless angle is auto, vips rot
// on that upright image.
func rotate(ctx context.Context, vips, vipsheader *sandbox.Engine, maxPixels int64, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f, fm := keptImage(in)
	w, h, err := imageSize(ctx, vipsheader, in.WorkDir, f, maxPixels)
	if err != nil {
		return nil, err
	}
	src, err := loadPath(f, true)
	if err != nil {
		return nil, err
	}
	out, err := outPath(in, "rotated."+fm.ext)
	if err != nil {
		return nil, err
	}
	save := saveOptions(out, encodeOptions(fm, in.Params, keepQuality)...)
	angle := in.Params.String(paramAngle)
	if angle == "auto" {
		if _, err := runVips(ctx, vips, in.WorkDir, "autorot", src, save); err != nil {
			return nil, engineError(err)
		}
	} else {
		upright, err := writeUpright(ctx, vips, in, src)
		if err != nil {
			return nil, err
		}
		defer os.Remove(upright)
		if _, err := runVips(ctx, vips, in.WorkDir, "rot", upright, save, "d"+angle); err != nil {
			return nil, engineError(err)
		}
	}
	return sizedOutput(ctx, vipsheader, in, out, fm, baseName(f.Filename)+"-rotated", w, h)
}

// writeUpright applies src's EXIF orientation (vips autorot, which also
// drops the tag) into a scratch file and returns its path, for a second
// vips operation; the caller removes it. The vips CLI runs one operation
// per process, so the image is passed on in a file: an uncompressed PNG,
// written and read back at disk speed, which keeps the EXIF, XMP and ICC
// metadata (TIFF drops EXIF), and which vips reads with a trusted loader
// (its native .v format is an untrusted one, blocked by
// VIPS_BLOCK_UNTRUSTED).
func writeUpright(ctx context.Context, vips *sandbox.Engine, in *docmill.RunInput, src string) (string, error) {
	upright, err := outPath(in, "upright.png")
	if err != nil {
		return "", err
	}
	if _, err := runVips(ctx, vips, in.WorkDir, "autorot", src, saveOptions(upright, "compression=0")); err != nil {
		os.Remove(upright)
		return "", engineError(err)
	}
	return upright, nil
}

// uprightImage is writeUpright of the kept image f, with the upright
// image's size; the caller removes the file at path.
func uprightImage(ctx context.Context, vips *sandbox.Engine, in *docmill.RunInput, f docmill.LocalFile) (path string, w, h int, err error) {
	src, err := loadPath(f, true)
	if err != nil {
		return "", 0, 0, err
	}
	path, err = writeUpright(ctx, vips, in, src)
	if err != nil {
		return "", 0, 0, err
	}
	w, h, err = goSize(docmill.LocalFile{Path: path, ContentType: "image/png"})
	if err != nil {
		os.Remove(path)
		return "", 0, 0, docmill.Internal(err) // vips wrote it
	}
	return path, w, h, nil
}

// sizedOutput returns the result at path in format fm, named name plus
// the format's extension, with its size and the input's (w x h) in the
// meta.
func sizedOutput(ctx context.Context, vipsheader *sandbox.Engine, in *docmill.RunInput, path string, fm format, name string, w, h int) (*docmill.RunOutput, error) {
	ow, oh, err := outputSize(ctx, vipsheader, in.WorkDir, path, fm)
	if err != nil {
		return nil, err
	}
	return &docmill.RunOutput{
		Path: path, Filename: name + "." + fm.ext, ContentType: fm.contentType,
		Meta: map[string]any{"width": ow, "height": oh, "input_width": w, "input_height": h},
	}, nil
}
