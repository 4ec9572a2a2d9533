package vips

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
)

// jsonContentType is the type of image-info's result.
const jsonContentType = "application/json"

// Bounds of the EXIF part of image-info's report: a hostile file may
// carry thousands of tags and long strings, and the report stays small.
// They bound hostile structure and the report's shape, not a job's cost,
// so no node changes them.
const (
	maxEXIFFields = 100
	maxEXIFValue  = 256 // runes
	// maxHeaderOutput bounds what vipsheader -a may print (a MakerNote
	// printed as text runs to tens of kilobytes): far more than any
	// header holds.
	maxHeaderOutput = 4 << 20
)

// infoTool declares image-info. It reads headers only, so it applies no
// pixel cap: a decompression bomb is reported, with its declared size,
// without being decoded.
func infoTool(vips, vipsheader *sandbox.Engine, maxPixels int64) *docmill.Tool {
	return imageTool(docmill.Tool{
		Slug:  "image-info",
		Title: "Image info",
		Description: "Reports what an image's header says, as JSON: format, width and height (stored and as seen after the EXIF " +
			"orientation), bands, colour interpretation, bit depth, alpha, resolution, EXIF orientation, pages or frames, " +
			"whether it has an ICC profile, and its EXIF fields as text (bounded; binary fields left out). " +
			"The pixels are not decoded: damage after the header is not detected.",
		Meta: []docmill.MetaField{
			{Name: "format", Type: docmill.MetaString, Description: "The image's format (its usual extension)."},
			{Name: "width", Type: docmill.MetaInteger, Description: "Stored width, pixels."},
			{Name: "height", Type: docmill.MetaInteger, Description: "Stored height, pixels."},
			{Name: "pages", Type: docmill.MetaInteger, Description: "Pages or frames (1 for single-image formats)."},
		},
		Accepts: readTypes,
		Outputs: []string{jsonContentType},
	}, vips, vipsheader, maxPixels, imageInfo)
}

// imageReport is image-info's result.
type imageReport struct {
	Format         string     `json:"format"`
	ContentType    string     `json:"content_type"`
	Width          int        `json:"width"`
	Height         int        `json:"height"`
	DisplayWidth   int        `json:"display_width"`
	DisplayHeight  int        `json:"display_height"`
	Bands          int        `json:"bands"`
	Interpretation string     `json:"interpretation"`
	SampleFormat   string     `json:"sample_format"`
	BitDepth       int        `json:"bit_depth"`
	HasAlpha       bool       `json:"has_alpha"`
	DPI            [2]float64 `json:"dpi"`
	Orientation    int        `json:"orientation"`
	Pages          int        `json:"pages"`
	ICCProfile     bool       `json:"icc_profile"`
	// EXIF maps tag names (Make, DateTimeOriginal, GPSLatitude, ...) to
	// their values as text; the thumbnail's IFD is left out.
	EXIF          map[string]string `json:"exif"`
	EXIFTruncated bool              `json:"exif_truncated,omitempty"`
}

// imageInfo reads the header with vipsheader -a, and the orientation,
// page count and ICC profile with vipsheader -f (see coreFields for why),
// and writes the report.
func imageInfo(ctx context.Context, _, vipsheader *sandbox.Engine, _ int64, in *docmill.RunInput) (*docmill.RunOutput, error) {
	f, fm := oneImage(in)
	if st, err := os.Stat(f.Path); err != nil {
		return nil, docmill.Internal(err)
	} else if st.Size() == 0 {
		return nil, docmill.Errorf(docmill.CodeInvalidDocument, "The file is empty.")
	}
	src, err := loadPath(f, false)
	if err != nil {
		return nil, err
	}
	res, err := vipsheader.Run(ctx, sandbox.Cmd{Args: []string{"-a", src}, Dir: in.WorkDir, Timeout: timeout,
		Env: []string{"VIPS_BLOCK_UNTRUSTED=1"}, MaxOutput: maxHeaderOutput})
	if err != nil {
		return nil, engineError(err)
	}
	r, err := parseHeader(string(res.Stdout))
	if err != nil {
		return nil, docmill.Internal(err)
	}
	r.Format, r.ContentType = fm.ext, fm.contentType
	r.Orientation = headerInt(ctx, vipsheader, in.WorkDir, src, "orientation", 1)
	if r.Orientation < 1 || r.Orientation > 8 {
		r.Orientation = 1
	}
	r.Pages = max(1, headerInt(ctx, vipsheader, in.WorkDir, src, "n-pages", 1))
	_, err = runVips(ctx, vipsheader, in.WorkDir, "-f", "icc-profile-data", src)
	r.ICCProfile = err == nil
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.DisplayWidth, r.DisplayHeight = r.Width, r.Height
	if r.Orientation >= 5 { // 5-8 turn the image a quarter
		r.DisplayWidth, r.DisplayHeight = r.Height, r.Width
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, docmill.Internal(err)
	}
	out, err := outPath(in, "info.json")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(out, append(data, '\n'), 0o600); err != nil {
		return nil, docmill.Internal(err)
	}
	return &docmill.RunOutput{
		Path: out, Filename: baseName(f.Filename) + "-info.json", ContentType: jsonContentType,
		Meta: map[string]any{"format": r.Format, "width": r.Width, "height": r.Height, "pages": r.Pages},
	}, nil
}

// headerInt returns the integer header field of path as vipsheader -f
// prints it, or def when the image has no such field (vipsheader fails)
// or the run fails otherwise (the caller checks its context).
func headerInt(ctx context.Context, vipsheader *sandbox.Engine, dir, path, field string, def int) int {
	res, err := runVips(ctx, vipsheader, dir, "-f", field, path)
	if err != nil {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	if err != nil {
		return def
	}
	return n
}

// coreFields are the lines vipsheader -a prints first, in this order,
// after a summary line; their values are numbers, vips' own names and the
// path this package chose, so they are read by position. The metadata
// that follows is not: a string value (an EXIF Make, a PNG comment) is
// printed as it is, newlines included, and so can forge lines such as
// "orientation: 6"; the orientation, page count and ICC profile are
// therefore asked for one by one (vipsheader -f), and of the rest only EXIF lines of the
// exact shape libexif prints are read, as what the file claims.
var coreFields = []string{"width", "height", "bands", "format", "coding", "interpretation", "xoffset", "yoffset", "xres", "yres", "filename"}

// exifLine is one EXIF entry as vips prints it: the value, then the
// value again as libexif reads it with its type and size:
// "exif-ifd0-Make: Apple (Apple, ASCII, 6 components, 6 bytes)". A long
// string is printed cut short, without the part in brackets.
var (
	exifLine   = regexp.MustCompile(`^exif-ifd([0-9])-([A-Za-z0-9]+): (.*)$`)
	exifSuffix = regexp.MustCompile(`, ([A-Za-z]+), ([0-9]+) components, ([0-9]+) bytes\)$`)
)

// bitDepths are the bits per sample of vips' band formats.
var bitDepths = map[string]int{"uchar": 8, "char": 8, "ushort": 16, "short": 16, "uint": 32, "int": 32, "float": 32, "double": 64, "complex": 64, "dpcomplex": 128}

// parseHeader reads vipsheader -a's output.
func parseHeader(text string) (*imageReport, error) {
	lines := strings.Split(text, "\n")
	if len(lines) < len(coreFields)+1 {
		return nil, fmt.Errorf("vipsheader -a: %d lines", len(lines))
	}
	core := map[string]string{}
	for i, name := range coreFields {
		v, ok := strings.CutPrefix(lines[i+1], name+": ")
		if !ok {
			return nil, fmt.Errorf("vipsheader -a: line %d is %q, want %s", i+2, lines[i+1], name)
		}
		core[name] = v
	}
	r := &imageReport{Interpretation: core["interpretation"], SampleFormat: core["format"], EXIF: map[string]string{}}
	var err error
	for _, f := range []struct {
		name string
		to   *int
	}{{"width", &r.Width}, {"height", &r.Height}, {"bands", &r.Bands}} {
		if *f.to, err = strconv.Atoi(core[f.name]); err != nil {
			return nil, fmt.Errorf("vipsheader -a: %s %q", f.name, core[f.name])
		}
	}
	for i, name := range []string{"xres", "yres"} {
		res, err := strconv.ParseFloat(core[name], 64)
		if err != nil {
			return nil, fmt.Errorf("vipsheader -a: %s %q", name, core[name])
		}
		r.DPI[i] = math.Round(res*25.4*100) / 100 // vips keeps pixels per millimetre
	}
	r.BitDepth = bitDepths[r.SampleFormat]
	r.HasAlpha = r.Bands == 2 || r.Bands == 4 && r.Interpretation != "cmyk" || r.Bands > 4
	for _, line := range lines[len(coreFields)+1:] {
		r.addEXIF(line)
	}
	return r, nil
}

// addEXIF adds line to the report's EXIF when it is an EXIF entry of a
// main, Exif, GPS or interoperability IFD (not the thumbnail's, IFD 1)
// that is text, not a binary blob; the first entry of a tag wins.
func (r *imageReport) addEXIF(line string) {
	m := exifLine.FindStringSubmatch(line)
	if m == nil || m[1] == "1" || m[2] == "MakerNote" {
		return
	}
	if _, dup := r.EXIF[m[2]]; dup {
		return
	}
	value := m[3]
	if s := exifSuffix.FindStringSubmatchIndex(value); s != nil {
		typ, size := value[s[2]:s[3]], value[s[6]:s[7]]
		if n, err := strconv.Atoi(size); typ == "Undefined" && (err != nil || n > 64) {
			return // an opaque blob, printed as "N bytes undefined data"
		}
		value = exifMeaning(value[:s[0]])
	}
	value = cleanText(value)
	if value == "" || value == "<invalid utf-8 string>" || strings.HasSuffix(value, "bytes undefined data") {
		return
	}
	if len(r.EXIF) == maxEXIFFields {
		r.EXIFTruncated = true
		return
	}
	r.EXIF[m[2]] = value
}

// exifMeaning returns the readable half of "raw (meaning": the string for
// a string, "Top-left" for "1 (Top-left".
func exifMeaning(v string) string {
	if half := (len(v) - 2) / 2; len(v) >= 2 && v[:half]+" ("+v[:half] == v {
		return v[:half]
	}
	if _, meaning, ok := strings.Cut(v, " ("); ok {
		return meaning
	}
	return v
}

// cleanText makes an EXIF value safe to report: valid UTF-8, no control
// or format characters, trimmed, at most maxEXIFValue runes.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > maxEXIFValue {
		s = string([]rune(s)[:maxEXIFValue-1]) + "…"
	}
	return s
}
