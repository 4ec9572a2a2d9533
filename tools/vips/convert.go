package vips

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// avifEffort is libheif's AV1 encoder effort (0 fastest - 9 slowest). The
// default, 4, takes about 7 s on one 9 MP photo here; 2 takes about 1.3 s
// for a file some 50% larger at equal quality, which keeps a capped image
// well inside the tool's timeout.
const avifEffort = 2

// convertTool declares convert-image, writing the saveable formats, for
// images of at most maxPixels.
func convertTool(vips, vipsheader *sandbox.Engine, saveable []string, maxPixels int64) *docmill.Tool {
	return imageTool(docmill.Tool{
		Slug:     "convert-image",
		Provides: docmill.CapConvertImage,
		Meta:     []docmill.MetaField{{Name: "format", Type: docmill.MetaString, Description: "The format made (its extension)."}, {Name: "width", Type: docmill.MetaInteger, Description: "Width of the result, pixels."}, {Name: "height", Type: docmill.MetaInteger, Description: "Height of the result, pixels."}},
		Title:    "Convert image",
		Description: "Converts an image to another format. The EXIF orientation is applied to the pixels, since not " +
			"every format or viewer honours it; transparency becomes white in JPEG. Multi-page TIFF and animated GIF " +
			"inputs give their first page or frame.",
		Accepts:    readTypes,
		Outputs:    formatTypes(saveable),
		OutputsFor: func(p docmill.Params) []string { return formatTypes([]string{p.String(paramFormat)}) },
		Params: []docmill.Param{
			{Name: paramFormat, Type: docmill.TypeString, Required: true, Enum: saveable, Example: "png",
				Description: "Output format; the list holds only the formats this server's libvips can write."},
			qualityParam("Quality 1-100 of lossy outputs (jpg, webp, avif; default 85 for jpg and webp, 50 for avif); ignored otherwise."),
		},
	}, vips, vipsheader, maxPixels, convert)
}

// convert writes the input in the requested format through vips autorot,
// which applies and drops the EXIF orientation; other metadata is kept
// where the format carries it.
func convert(ctx context.Context, vips, vipsheader *sandbox.Engine, maxPixels int64, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f, _ := oneImage(in)
	to, _ := formatByExt(in.Params.String(paramFormat)) // the required enum is saveableFormats, a subset of formats
	if _, _, err := imageSize(ctx, vipsheader, in.WorkDir, f, maxPixels); err != nil {
		return nil, err
	}
	src, err := loadPath(f, true)
	if err != nil {
		return nil, err
	}
	out, err := outPath(in, "converted."+to.ext)
	if err != nil {
		return nil, err
	}
	def := 85
	if to.ext == "avif" {
		def = 50 // libheif's default; AV1 at 85 is larger than a JPEG at 85
	}
	if _, err := runVips(ctx, vips, in.WorkDir, "autorot", src, saveOptions(out, encodeOptions(to, in.Params, def)...)); err != nil {
		return nil, engineError(err)
	}
	meta := map[string]any{"format": to.ext}
	if w, h, err := outputSize(ctx, vipsheader, in.WorkDir, out, to); err == nil {
		meta["width"], meta["height"] = w, h
	}
	return &docmill.RunOutput{
		Path: out, Filename: baseName(f.Filename) + "." + to.ext, ContentType: to.contentType, Meta: meta,
	}, nil
}

// saveableFormats returns the extensions of the formats vips can write on
// this node, found by saving an 8x8 image in each: a saver can be listed
// by vips -l and still fail (libheif without an AV1 encoder cannot write
// AVIF), and a format the catalogue offers must work. With vips missing,
// every format is listed: the tool is unavailable anyway, and the
// catalogue should show what it would offer.
//
// The answer is kept per vips binary for the life of the process: what is
// installed does not change while it runs, and the probe costs a few
// hundred milliseconds. The probes run in a directory made in scratch.
func saveableFormats(vips *sandbox.Engine, scratch string) []string {
	probed.Lock()
	defer probed.Unlock()
	if got, ok := probed.formats[vips.Path]; ok {
		return got
	}
	got := probeFormats(vips, scratch)
	probed.formats[vips.Path] = got
	return got
}

// probed caches saveableFormats by the path of the vips binary.
var probed = struct {
	sync.Mutex
	formats map[string][]string
}{formats: map[string][]string{}}

func probeFormats(vips *sandbox.Engine, scratch string) []string {
	var all []string
	for _, f := range formats {
		if !f.readOnly {
			all = append(all, f.ext)
		}
	}
	var out []string
	// With vips unavailable or the probe directory not made, out stays
	// empty and every format is listed, as below.
	_ = vips.Probe(scratch, 30*time.Second, func(ctx context.Context, dir string) error {
		// The probes run at once (each costs a vips start-up, 0.1-0.4 s
		// in the sandbox); the engine's slots bound them.
		saves := func(ext string) bool {
			p := filepath.Join(dir, "probe."+ext)
			if _, err := runVips(ctx, vips, dir, "black", p, "8", "8"); err != nil {
				return false
			}
			st, err := os.Stat(p)
			return err == nil && st.Size() > 0
		}
		ok := make([]bool, len(all))
		var wg sync.WaitGroup
		for i, ext := range all {
			wg.Go(func() { ok[i] = saves(ext) })
		}
		wg.Wait()
		// A probe that failed beside the others is tried once more,
		// alone: on a loaded machine one run may fail for want of time,
		// and the answer is kept for the life of the process.
		for i, ext := range all {
			if !ok[i] {
				ok[i] = saves(ext)
			}
		}
		for i, ext := range all {
			if ok[i] {
				out = append(out, ext)
			}
		}
		return nil
	})
	if len(out) == 0 {
		// vips saves nothing: it is broken, and its runs will fail
		// as they do; an empty enum would accept any value.
		return all
	}
	return out
}

// formatTypes returns the content types of the formats named by their
// extensions (saveableFormats' names).
func formatTypes(exts []string) []string {
	var out []string
	for _, ext := range exts {
		if fm, ok := formatByExt(ext); ok {
			out = append(out, fm.contentType)
		}
	}
	return out
}
