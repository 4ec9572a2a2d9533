// Package vips provides the image tools that run libvips' command-line
// programs: compress-image, resize-image, convert-image, rotate-image,
// crop-image, watermark-image and image-info.
//
// libvips is used through its CLI (Debian's libvips-tools) rather than
// cgo bindings: the build has no cgo, and every external program must run
// through the sandbox, which confines each run, bounds it in time and kills
// its process group on cancel. This package adds what only it can judge: a
// pixel cap read from the image header before anything is decoded (the
// defence against decompression bombs), the choice of vips operations and
// save options per format, and the mapping of vips' failures to docmill's
// error codes with messages that are safe to show.
package vips

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

const (
	// engineName is the Tool.Engine of every tool of the package.
	engineName = "libvips"
	// timeout bounds one run of a tool. An image at the default pixel cap
	// (docmill.Limits' ImagePixels, see imageSize) takes a few seconds for every operation except an AVIF encode, which
	// is held to a low effort (see convert.go) to fit well inside it.
	timeout = 2 * time.Minute
)

// Tools returns the libvips-backed tools. The engines are found once by
// the caller (sandbox.Find): vips does the work, vipsheader reads image
// headers that Go's decoders cannot. A missing engine leaves the tools in
// the catalogue, not available, failing with engine_unavailable. limits'
// ImagePixels bounds every image the tools read or make (a zero field
// takes its default).
//
// Tools runs vips a few times to learn which formats it can save (see
// saveableFormats), in a directory made in scratch ("": the system's
// temporary directory), so call it once at start-up.
func Tools(vips, vipsheader *sandbox.Engine, limits docmill.Limits, scratch string) []*docmill.Tool {
	maxPixels := limits.WithDefaults().ImagePixels
	return []*docmill.Tool{
		compressTool(vips, vipsheader, maxPixels),
		resizeTool(vips, vipsheader, maxPixels),
		convertTool(vips, vipsheader, saveableFormats(vips, scratch), maxPixels),
		rotateTool(vips, vipsheader, maxPixels),
		cropTool(vips, vipsheader, maxPixels),
		infoTool(vips, vipsheader, maxPixels),
		watermarkTool(vips, vipsheader, maxPixels),
	}
}

// imageRun is the work of one of the package's tools, on the engines
// Tools was given and with images capped at maxPixels.
type imageRun func(ctx context.Context, vips, vipsheader *sandbox.Engine, maxPixels int64, in *docmill.RunInput) (*docmill.RunOutput, error)

// imageTool completes the declaration t as a tool of the package: it
// takes one image, queues in the render lane (libvips'), runs on vips
// and vipsheader (unavailable when either is missing) within timeout, and
// its Run calls run with the engines and maxPixels, unless the job's
// context has already ended.
func imageTool(t docmill.Tool, vips, vipsheader *sandbox.Engine, maxPixels int64, run imageRun) *docmill.Tool {
	t.MinFiles, t.MaxFiles = 1, 1
	t.Engine = engineName
	t.Lane = docmill.LaneRender
	t.Timeout = timeout
	t.Available = sandbox.AllAvailable(vips, vipsheader)
	t.Engines = sandbox.Statuses(vips, vipsheader)
	t.Run = func(ctx context.Context, in *docmill.RunInput) (*docmill.RunOutput, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return run(ctx, vips, vipsheader, maxPixels, in)
	}
	return &t
}

// format is an image format the tools read or write.
type format struct {
	ext         string // file extension, without the dot; also the enum value of convert-image
	contentType string
	lossy       bool // whether quality applies
	// readOnly formats are read, never written (see readTypes).
	readOnly bool
}

// formats are every format known to the package, in the order the
// catalogue lists them.
var formats = []format{
	{"jpg", "image/jpeg", true, false},
	{"png", "image/png", false, false},
	{"webp", "image/webp", true, false},
	{"avif", "image/avif", true, false},
	{"tiff", "image/tiff", false, false},
	{"gif", "image/gif", false, false},
	{"heic", "image/heif", true, true},
}

// formatOf returns the format of a sniffed content type.
func formatOf(contentType string) (format, bool) {
	for _, f := range formats {
		if f.contentType == contentType {
			return f, true
		}
	}
	return format{}, false
}

// formatByExt returns the format with extension ext.
func formatByExt(ext string) (format, bool) {
	for _, f := range formats {
		if f.ext == ext {
			return f, true
		}
	}
	return format{}, false
}

// writtenTypes are the content types the tools that keep the input's
// format write (resize, rotate, crop, watermark): the formats vips loads
// and saves natively, and AVIF through libheif.
var writtenTypes = []string{"image/jpeg", "image/png", "image/webp", "image/tiff", "image/gif", "image/avif"}

// readTypes are the content types every tool of the package accepts:
// writtenTypes and HEIF/HEIC, which libheif reads but which the tools do
// not write: libheif's x265 encoder runs at a fixed preset that vips 8.14
// cannot lower, about 22 s of CPU for a 9 MP photo (over a minute on a
// busy 2-core node), so an image at the pixel cap would overrun the
// tools' timeout. The tools that keep the input's format write a HEIC
// input as a JPEG (recoded, see keptImage), the format a phone exports
// its HEIC photos in.
var readTypes = append(slices.Clone(writtenTypes), "image/heif")

// recoded maps the types the tools read but do not write to the type
// the tools that keep the input's format write instead (Tool.Recodes).
var recoded = map[string]string{"image/heif": "image/jpeg"}

// runVips runs e in dir with args. VIPS_BLOCK_UNTRUSTED keeps vips from
// falling back to its untrusted loaders (ImageMagick, ...) whatever the
// bytes claim to be.
func runVips(ctx context.Context, e *sandbox.Engine, dir string, args ...string) (*sandbox.Result, error) {
	return e.Run(ctx, sandbox.Cmd{Args: args, Dir: dir, Timeout: timeout, Env: []string{"VIPS_BLOCK_UNTRUSTED=1"}})
}

// engineError classifies a vips run's error (sandbox.Classify): vips
// exits 1 for every failure, and with inputs, outputs and options all
// chosen by this package the input is what varies, so a refusal is a
// damaged or unsupported image. Standard error stays in the wrapped
// error, for logs.
func engineError(err error) error {
	return sandbox.Classify(err, sandbox.Causes{
		Engine:  "The " + engineName + " engine",
		Refused: "The image could not be read: it is damaged, truncated or not a supported image.",
	})
}

// saveOptions appends vips save options to path ("out.jpg[Q=80,strip]").
// vips parses a bracketed suffix of any file name as options, so paths
// given to vips must come from this package, never from the client.
func saveOptions(path string, opts ...string) string {
	if len(opts) == 0 {
		return path
	}
	return path + "[" + strings.Join(opts, ",") + "]"
}

// stripOption returns the save option that drops metadata: "strip" up to
// vips 8.14, "keep=none" from 8.15, where strip is deprecated; version is
// what vips --version printed.
func stripOption(version string) string {
	var major, minor int
	if _, err := fmt.Sscanf(strings.TrimPrefix(version, "vips-"), "%d.%d", &major, &minor); err == nil &&
		(major > 8 || major == 8 && minor >= 15) {
		return "keep=none"
	}
	return "strip"
}

// outPath returns an absolute path in the job's directory for an output
// named name (never starting "input-").
func outPath(in *docmill.RunInput, name string) (string, error) {
	dir, err := filepath.Abs(in.WorkDir)
	if err != nil {
		return "", docmill.Internal(err)
	}
	if strings.ContainsAny(dir, "[]") {
		return "", docmill.Internal(fmt.Errorf("vips: work dir %q has brackets, which vips reads as options", dir))
	}
	return filepath.Join(dir, name), nil
}

// failOn is the vips load option that makes a truncated or damaged
// image fail instead of loading with grey where the data ended: a result
// with a missing half is worse than a clear invalid_document.
const failOn = "truncated"

// loadPath returns the input's absolute path (vips runs in a scratch
// directory of its own), with the load option failOn when withOptions. A
// path with a bracket is refused as internal: vips would read the bracket
// as options, and input paths are the service's own.
func loadPath(f docmill.LocalFile, withOptions bool) (string, error) {
	p, err := filepath.Abs(f.Path)
	if err != nil {
		return "", docmill.Internal(err)
	}
	if strings.ContainsAny(p, "[]") {
		return "", docmill.Internal(fmt.Errorf("vips: input path %q has brackets, which vips reads as options", p))
	}
	if withOptions {
		p = saveOptions(p, "fail_on="+failOn)
	}
	return p, nil
}

// baseName returns the client's filename without directory and extension,
// whatever separator the client's system uses ("a/b\\Photo.JPG" -> "Photo").
func baseName(filename string) string {
	base := filename
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	if strings.TrimSpace(base) == "" || base[0] == '.' {
		base = "image"
	}
	return base
}

// oneImage returns the single input of a run with its format: the tools
// accept only types that formats holds (TestDeclarations).
func oneImage(in *docmill.RunInput) (docmill.LocalFile, format) {
	f := in.Files[0]
	fm, _ := formatOf(f.ContentType)
	return f, fm
}

// keptImage returns the single input of a run of a tool that keeps the
// input's format, with the format its result is written in: the input's,
// or for a format the package does not write (HEIC) the one recoded
// names.
func keptImage(in *docmill.RunInput) (docmill.LocalFile, format) {
	f, fm := oneImage(in)
	if fm.readOnly {
		fm, _ = formatOf(recoded[fm.contentType])
	}
	return f, fm
}

// qualityParam declares the optional quality override.
func qualityParam(desc string) docmill.Param {
	return docmill.Param{
		Name: paramQuality, Type: docmill.TypeInteger, Min: docmill.Bound(1), Max: docmill.Bound(100),
		Description: desc,
	}
}

// itoa is strconv.Itoa, shorter in argument lists.
func itoa(n int) string { return strconv.Itoa(n) }
