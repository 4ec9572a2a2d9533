package chromium

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	docmill "github.com/docmill/docmill"
)

// Bounds of a screenshot: the width and height params, and what a full
// page may grow to. They are facts of the browser, not costs a node
// would raise: the image travels from the browser as one DevTools
// message, held whole in base64 by the browser and by this process, so
// besides Limits.ImagePixels (which may lower it) it is held to
// maxShotPixels (16 MP: a 1280 px wide page 13,000 px tall), and its
// height to maxShotSide, past which Chromium's compositor tiles no more.
const (
	minShotWidth, maxShotWidth       = 320, 3840
	defaultShotWidth                 = 1280
	minShotHeight, maxShotSide       = 100, 16384
	defaultShotHeight                = 800
	maxShotPixels              int64 = 16 << 20
)

// shotFormat is an image format Chromium's screenshot writes.
type shotFormat struct {
	cdp         page.CaptureScreenshotFormat
	ext         string
	contentType string
}

// shotFormats are html-to-image's formats by the value of its format
// param.
var shotFormats = map[string]shotFormat{
	"png":  {page.CaptureScreenshotFormatPng, ".png", "image/png"},
	"jpeg": {page.CaptureScreenshotFormatJpeg, ".jpg", "image/jpeg"},
	"webp": {page.CaptureScreenshotFormatWebp, ".webp", "image/webp"},
}

// shotSettings are a screenshot job's validated params.
type shotSettings struct {
	format   shotFormat
	width    int64
	height   int64 // the viewport's; the page's own when fullPage
	fullPage bool
	quality  int64 // jpeg and webp
	// maxPixels bounds the image (Limits.ImagePixels, maxShotPixels).
	maxPixels int64
	// taken is what captureImage made: the image's height, and whether
	// the page was taller than the bounds allow.
	takenHeight int64
	cut         bool
}

// shotParams are the params of the image tools: format, viewport, full
// page, quality.
func shotParams() []docmill.Param {
	return []docmill.Param{
		{Name: paramFormat, Type: docmill.TypeString, Default: "png", Enum: []string{"png", "jpeg", "webp"},
			Description: "Image format: png, jpeg or webp."},
		{Name: paramWidth, Type: docmill.TypeInteger, Default: strconv.Itoa(defaultShotWidth),
			Min: docmill.Bound(minShotWidth), Max: docmill.Bound(maxShotWidth),
			Description: "Width of the browser window (viewport) and of the image, in CSS pixels."},
		{Name: paramHeight, Type: docmill.TypeInteger, Default: strconv.Itoa(defaultShotHeight),
			Min: docmill.Bound(minShotHeight), Max: docmill.Bound(maxShotSide),
			Description: "Height of the viewport, and of the image unless full_page is true."},
		{Name: paramFullPage, Type: docmill.TypeBoolean, Default: "false",
			Description: "Capture the whole page, as tall as it scrolls (never less than height), up to " + strconv.Itoa(maxShotSide) +
				" pixels and " + strconv.FormatInt(maxShotPixels>>20, 10) + " megapixels (meta.truncated tells when it was cut)."},
		{Name: paramQuality, Type: docmill.TypeInteger, Default: "85", Min: docmill.Bound(1), Max: docmill.Bound(100),
			Description: "JPEG or WebP quality, 1 (smallest) to 100 (best); PNG ignores it."},
	}
}

// shotMeta declares the meta of the image tools.
var shotMeta = []docmill.MetaField{
	{Name: "blocked_requests", Type: docmill.MetaInteger, Description: "Requests the page made that were blocked."},
	{Name: "width", Type: docmill.MetaInteger, Description: "Width of the image, in pixels."},
	{Name: "height", Type: docmill.MetaInteger, Description: "Height of the image, in pixels."},
	{Name: "truncated", Type: docmill.MetaBoolean, Description: "true when the page was taller than a full-page image may be, and was cut."},
}

// shotSettingsFrom reads the validated params.
func shotSettingsFrom(p docmill.Params, l docmill.Limits) *shotSettings {
	return &shotSettings{format: shotFormats[p.String(paramFormat)], width: int64(p.Int(paramWidth)), height: int64(p.Int(paramHeight)),
		fullPage: p.Bool(paramFullPage), quality: int64(p.Int(paramQuality)), maxPixels: min(l.WithDefaults().ImagePixels, maxShotPixels)}
}

// htmlImageTool declares html-to-image.
func (b *Browser) htmlImageTool(statuses func() []docmill.EngineStatus) *docmill.Tool {
	return &docmill.Tool{
		Slug:  "html-to-image",
		Lane:  docmill.LaneBrowser,
		Meta:  shotMeta,
		Title: "HTML to image",
		Description: "Take a screenshot of a web page with Chromium, as PNG, JPEG or WebP: one HTML file, or a zip " +
			"with index.html and the CSS, images and fonts it uses. The page cannot reach the network: only " +
			"the files of the upload load.",
		Accepts: []string{"text/html", "application/zip"},
		Outputs: []string{"image/png", "image/jpeg", "image/webp"},
		OutputsFor: func(p docmill.Params) []string {
			return []string{shotFormats[p.String(paramFormat)].contentType}
		},
		MinFiles:  1,
		MaxFiles:  1,
		Params:    shotParams(),
		Engine:    engineName,
		Timeout:   timeout,
		Available: b.Available,
		Engines:   statuses,
		Run:       b.runHTMLImage,
	}
}

// runHTMLImage takes the screenshot of the uploaded site.
func (b *Browser) runHTMLImage(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
	file := in.Files[0]
	root, err := unpackSite(file, in.WorkDir, b.opts.Limits)
	if err != nil {
		return nil, err
	}
	shot := shotSettingsFrom(in.Params, in.Limits)
	dst := filepath.Join(in.WorkDir, "result"+shot.format.ext)
	blocked, err := b.render(ctx, root, dst, printSettings{shot: shot})
	if err != nil {
		return nil, err
	}
	return shotOutput(dst, docmill.ResultName(file.Filename, "", shot.format.ext), shot, blocked), nil
}

// shotOutput is the result of a screenshot job.
func shotOutput(dst, name string, shot *shotSettings, blocked int64) *docmill.RunOutput {
	return &docmill.RunOutput{Path: dst, Filename: name, ContentType: shot.format.contentType,
		Meta: map[string]any{"blocked_requests": blocked, "width": shot.width, "height": shot.takenHeight, "truncated": shot.cut}}
}

// setViewport sizes the tab's viewport for a screenshot job, before the
// page loads, so the page lays out at the asked width. The tab's reset
// clears it.
func setViewport(ctx context.Context, s *shotSettings) error {
	_, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: s.width, Height: s.height, DeviceScaleFactor: 1})
	return err
}

// captureImage writes the screenshot of the loaded page to dst: the
// viewport, or the whole page as tall as it scrolls within the bounds of
// s (the viewport is grown to it, so the page lays out once more at that
// height).
func captureImage(ctx context.Context, dst string, s *shotSettings) error {
	s.takenHeight = s.height
	if s.fullPage {
		h, err := chromedp.Run(ctx, chromedp.Evaluate[float64](
			`Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)`))
		if err != nil {
			return err
		}
		limit := min(int64(maxShotSide), s.maxPixels/s.width)
		s.takenHeight = max(1, min(int64(h), limit))
		s.cut = int64(h) > limit
		if err := setViewport(ctx, &shotSettings{width: s.width, height: s.takenHeight}); err != nil {
			return err
		}
	}
	params := page.CaptureScreenshotParams{Format: s.format.cdp}
	if s.format.cdp != page.CaptureScreenshotFormatPng {
		params.Quality = &s.quality
	}
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, params)
	if err != nil {
		return err
	}
	if len(res.Data) == 0 {
		return fmt.Errorf("chromium: empty screenshot")
	}
	if err := os.WriteFile(dst, res.Data, 0o600); err != nil {
		return fmt.Errorf("write image: %w", err)
	}
	return nil
}
