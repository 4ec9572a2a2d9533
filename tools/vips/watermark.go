package vips

import (
	"context"
	"fmt"
	"html"
	"math"
	"os"
	"strings"
	"unicode"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// watermarkPositions are the places watermark-image puts its text: the
// first word of a name is the row (top, bottom; center otherwise), the
// last the column (left, right; center otherwise).
var watermarkPositions = []string{"center", "top-left", "top", "top-right", "left", "right", "bottom-left", "bottom", "bottom-right"}

// Bounds of watermark-image's text and font size: bounds on params,
// what a watermark is, not costs (the image itself is held to
// Limits.ImagePixels).
const (
	maxWatermarkText = 200  // runes: a line or a few, not a document
	minFontSize      = 6    // pixels
	maxFontSize      = 1000 // pixels
)

// watermarkFont is the Pango family of the text; fontconfig falls back to
// any installed sans-serif face without it (the engine list installs
// fonts-dejavu).
const watermarkFont = "DejaVu Sans Bold"

// watermarkTool declares watermark-image, for images of at most
// maxPixels.
func watermarkTool(vips, vipsheader *sandbox.Engine, maxPixels int64) *docmill.Tool {
	return imageTool(docmill.Tool{
		Slug:  "watermark-image",
		Title: "Watermark image",
		Description: "Draws text over an image, at one of nine positions, with an opacity, size and colour, keeping the " +
			"image's format (a HEIC/HEIF photo becomes a JPEG). The EXIF orientation is applied first, so the text is upright on the image as it is seen; " +
			"the text wraps to the image's width.",
		Meta: []docmill.MetaField{
			{Name: "width", Type: docmill.MetaInteger, Description: "Width of the result, pixels."},
			{Name: "height", Type: docmill.MetaInteger, Description: "Height of the result, pixels."},
			{Name: "font_size", Type: docmill.MetaInteger, Description: "The font size used, pixels (given, or chosen from the image's size)."},
		},
		Accepts:   readTypes,
		Outputs:   writtenTypes,
		KeepsType: true,
		Recodes:   recoded,
		Params: []docmill.Param{
			{Name: paramText, Type: docmill.TypeString, Required: true, Example: "DRAFT", Min: docmill.Bound(1), Max: docmill.Bound(maxWatermarkText),
				Description: "The text; a line break, or the two characters \\n, starts a new line.", Check: checkWatermarkText},
			{Name: paramPosition, Type: docmill.TypeString, Enum: watermarkPositions, Default: "center",
				Description: "Where the text goes; away from the center it keeps a small margin from the edges."},
			{Name: paramOpacity, Type: docmill.TypeNumber, Min: docmill.Bound(0.05), Max: docmill.Bound(1), Default: "0.5",
				Description: "From 0.05 (faint) to 1 (opaque)."},
			{Name: paramFontSize, Type: docmill.TypeInteger, Min: docmill.Bound(minFontSize), Max: docmill.Bound(maxFontSize),
				Description: "Font size in pixels. By default a twelfth of the image's shorter side (at least 12)."},
			{Name: paramColor, Type: docmill.TypeColor, Default: "#808080", Description: "Text colour as #rrggbb."},
			qualityParam("JPEG/WebP/AVIF quality 1-100 of the output (default 90)."),
		},
	}, vips, vipsheader, maxPixels, watermark)
}

// checkWatermarkText refuses control characters other than line breaks,
// and invisible format characters (which could make the text render as
// something else, or as nothing).
func checkWatermarkText(v string) error {
	for _, r := range v {
		if r == '\n' || r == '\r' {
			continue
		}
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Co, unicode.Cs) || r == unicode.ReplacementChar {
			return docmill.ParamError(paramText, "must not contain control or invisible characters (U+%04X)", r)
		}
	}
	if strings.TrimSpace(strings.ReplaceAll(v, `\n`, "")) == "" {
		return docmill.ParamError(paramText, "has nothing to draw")
	}
	return nil
}

// watermarkMarkup returns the Pango markup vips text draws: the text
// escaped (so that "<b>" or "&" is drawn as typed, never read as markup),
// with its colour and opacity. It starts with "<", so it can never be
// read as a command-line option by vips.
func watermarkMarkup(p docmill.Params) string {
	text := strings.ReplaceAll(p.String(paramText), `\n`, "\n")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	c := p.Color(paramColor)
	alpha := max(1, int(math.Round(p.Float(paramOpacity)*65535)))
	return fmt.Sprintf(`<span foreground="#%02x%02x%02x" fgalpha="%d">%s</span>`, c.R, c.G, c.B, alpha, html.EscapeString(text))
}

// watermark applies the EXIF orientation (writeUpright), draws the text
// with vips text, as wide as the image at most, and composites it at the
// position.
func watermark(ctx context.Context, vips, vipsheader *sandbox.Engine, maxPixels int64, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f, fm := keptImage(in)
	if _, _, err := imageSize(ctx, vipsheader, in.WorkDir, f, maxPixels); err != nil {
		return nil, err
	}
	upright, w, h, err := uprightImage(ctx, vips, in, f)
	if err != nil {
		return nil, err
	}
	defer os.Remove(upright)
	size := in.Params.Int(paramFontSize)
	if !in.Params.Has(paramFontSize) {
		size = max(12, min(w, h)/12)
	}
	margin := max(2, min(w, h)/40)
	pos := in.Params.String(paramPosition)
	textPath, tw, th, err := drawText(ctx, vips, in, watermarkMarkup(in.Params), size, max(1, w-2*margin), pos)
	if err != nil {
		return nil, err
	}
	defer os.Remove(textPath)
	if tw > w || th > h {
		field := "text"
		if in.Params.Has(paramFontSize) {
			field = "font_size"
		}
		return nil, docmill.ParamError(field, "makes text %d×%d pixels, larger than the image (%d×%d as seen)", tw, th, w, h)
	}
	x, y := place(pos, w, h, tw, th, margin)
	out, err := outPath(in, "watermarked."+fm.ext)
	if err != nil {
		return nil, err
	}
	save := saveOptions(out, encodeOptions(fm, in.Params, keepQuality)...)
	if _, err := runVips(ctx, vips, in.WorkDir, "composite2", upright, textPath, save, "over", "--x", itoa(x), "--y", itoa(y)); err != nil {
		return nil, engineError(err)
	}
	res, err := sizedOutput(ctx, vipsheader, in, out, fm, baseName(f.Filename)+"-watermarked", w, h)
	if err != nil {
		return nil, err
	}
	delete(res.Meta, "input_width")
	delete(res.Meta, "input_height")
	res.Meta["font_size"] = size
	return res, nil
}

// drawText renders markup with vips text as an RGBA image at most width
// pixels wide (wrapping between words, or inside a word too long for a
// line), aligned for position, and returns its path and size. A text
// vips cannot draw is the text's fault.
func drawText(ctx context.Context, vips *sandbox.Engine, in *docmill.RunInput, markup string, size, width int, position string) (string, int, int, error) {
	path, err := outPath(in, "text.png")
	if err != nil {
		return "", 0, 0, err
	}
	align := "centre"
	if strings.HasSuffix(position, "left") {
		align = "low"
	} else if strings.HasSuffix(position, "right") {
		align = "high"
	}
	_, err = runVips(ctx, vips, in.WorkDir, "text", path, markup, "--font", fmt.Sprintf("%s %d", watermarkFont, size),
		"--dpi", "72", "--width", itoa(width), "--wrap", "word-char", "--align", align, "--rgba")
	if err != nil {
		if ctx.Err() != nil {
			return "", 0, 0, ctx.Err()
		}
		return "", 0, 0, docmill.ParamError(paramText, "could not be drawn")
	}
	tw, th, err := goSize(docmill.LocalFile{Path: path, ContentType: "image/png"})
	if err != nil {
		return "", 0, 0, docmill.Internal(err)
	}
	return path, tw, th, nil
}

// place returns the top-left corner of a tw x th text on a w x h image at
// position, margin pixels from the edges it is placed against.
func place(position string, w, h, tw, th, margin int) (x, y int) {
	x, y = (w-tw)/2, (h-th)/2
	switch {
	case strings.HasSuffix(position, "left"):
		x = margin
	case strings.HasSuffix(position, "right"):
		x = w - tw - margin
	}
	switch {
	case strings.HasPrefix(position, "top"):
		y = margin
	case strings.HasPrefix(position, "bottom"):
		y = h - th - margin
	}
	return max(0, x), max(0, y)
}
