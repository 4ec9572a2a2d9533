package vips

import (
	"context"
	"os"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// cropTool declares crop-image, for images of at most maxPixels.
func cropTool(vips, vipsheader *sandbox.Engine, maxPixels int64) *docmill.Tool {
	px := func(name string, min float64, required bool, desc string) docmill.Param {
		p := docmill.Param{Name: name, Type: docmill.TypeInteger, Min: docmill.Bound(min), Max: docmill.Bound(maxSide),
			Required: required, Description: desc}
		if !required {
			p.Default = "0"
		}
		return p
	}
	return imageTool(docmill.Tool{
		Slug:  "crop-image",
		Title: "Crop image",
		Description: "Cuts a rectangle out of an image, keeping its format (a HEIC/HEIF photo becomes a JPEG). The box is in pixels of the image as it is seen: " +
			"the EXIF orientation is applied first and its tag dropped. A box that does not fit inside the image is refused.",
		Meta:      sizeMeta,
		Accepts:   readTypes,
		Outputs:   writtenTypes,
		KeepsType: true,
		Recodes:   recoded,
		Params: []docmill.Param{
			px(paramLeft, 0, false, "Pixels from the left edge to the box."),
			px(paramTop, 0, false, "Pixels from the top edge to the box."),
			withExample(px(paramWidth, 1, true, "Width of the box in pixels."), "200"),
			withExample(px(paramHeight, 1, true, "Height of the box in pixels."), "100"),
			qualityParam("JPEG/WebP/AVIF quality 1-100 of the output (default 90)."),
		},
	}, vips, vipsheader, maxPixels, crop)
}

// cropBox is a crop-image box in pixels of the upright image.
type cropBox struct{ left, top, width, height int }

// check refuses a box that does not lie inside an upright w x h image,
// naming the param that puts it outside: left or top when the box starts
// beyond the image, width or height when it runs past its edge.
func (b cropBox) check(w, h int) error {
	switch {
	case b.left >= w:
		return docmill.ParamError(paramLeft, "must be less than the image's width as seen, %d", w)
	case b.top >= h:
		return docmill.ParamError(paramTop, "must be less than the image's height as seen, %d", h)
	case b.left+b.width > w:
		return docmill.ParamError(paramWidth, "runs past the right edge: left + width must be at most %d (the image is %d×%d as seen)", w, w, h)
	case b.top+b.height > h:
		return docmill.ParamError(paramHeight, "runs past the bottom edge: top + height must be at most %d (the image is %d×%d as seen)", h, w, h)
	}
	return nil
}

// crop applies the EXIF orientation (writeUpright), checks the box
// against the upright size and cuts it out with vips crop.
func crop(ctx context.Context, vips, vipsheader *sandbox.Engine, maxPixels int64, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f, fm := keptImage(in)
	w, h, err := imageSize(ctx, vipsheader, in.WorkDir, f, maxPixels)
	if err != nil {
		return nil, err
	}
	p := in.Params
	box := cropBox{left: p.Int(paramLeft), top: p.Int(paramTop), width: p.Int(paramWidth), height: p.Int(paramHeight)}
	upright, uw, uh, err := uprightImage(ctx, vips, in, f)
	if err != nil {
		return nil, err
	}
	defer os.Remove(upright)
	if err := box.check(uw, uh); err != nil {
		return nil, err
	}
	out, err := outPath(in, "cropped."+fm.ext)
	if err != nil {
		return nil, err
	}
	save := saveOptions(out, encodeOptions(fm, in.Params, keepQuality)...)
	if _, err := runVips(ctx, vips, in.WorkDir, "crop", upright, save,
		itoa(box.left), itoa(box.top), itoa(box.width), itoa(box.height)); err != nil {
		return nil, engineError(err)
	}
	return sizedOutput(ctx, vipsheader, in, out, fm, baseName(f.Filename)+"-cropped", w, h)
}

// withExample is p with the example value of the API reference.
func withExample(p docmill.Param, example string) docmill.Param {
	p.Example = example
	return p
}
