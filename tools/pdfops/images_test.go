package pdfops_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// imageTestdata holds the image formats the corpus lacks
// (imageCorpus).
const imageTestdata = "testdata/images/"

// imagesTool returns the registered tool jpg-to-pdf.
func imagesTool(t testing.TB) *docmill.Tool {
	t.Helper()
	return tool(t, "jpg-to-pdf")
}

// runImages validates params the way the API does and runs jpg-to-pdf.
func runImages(t testing.TB, params map[string]string, paths ...string) (*docmill.RunOutput, error) {
	t.Helper()
	return runImagesContext(context.Background(), t, params, paths...)
}

func runImagesContext(ctx context.Context, t testing.TB, params map[string]string, paths ...string) (*docmill.RunOutput, error) {
	t.Helper()
	if _, err := imagesTool(t).ParseParams(params); err != nil {
		t.Fatalf("ParseParams(%v): %v", params, err)
	}
	return invoke(ctx, t, "jpg-to-pdf", params, "", paths...)
}

// imgNeedCommand skips the test when a poppler program is missing.
func imgNeedCommand(t testing.TB, name string) {
	t.Helper()
	toolstest.Need(t, name)
}

// imgCommand runs name and returns its standard output.
func imgCommand(t testing.TB, name string, args ...string) string {
	t.Helper()
	imgNeedCommand(t, name)
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

var imgPageSizeLine = regexp.MustCompile(`(?m)^Page\s+(\d+) size:\s+([\d.]+) x ([\d.]+) pts`)

// imgPageSizes returns every page's size in points, as pdfinfo reads it.
func imgPageSizes(t testing.TB, path string) [][2]float64 {
	t.Helper()
	var sizes [][2]float64
	for _, m := range imgPageSizeLine.FindAllStringSubmatch(imgCommand(t, "pdfinfo", "-f", "1", "-l", "100000", path), -1) {
		w, _ := strconv.ParseFloat(m[2], 64)
		h, _ := strconv.ParseFloat(m[3], 64)
		sizes = append(sizes, [2]float64{w, h})
	}
	return sizes
}

func imgSameSizes(got, want [][2]float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i][0]-want[i][0]) > 0.011 || math.Abs(got[i][1]-want[i][1]) > 0.011 {
			return false
		}
	}
	return true
}

// imgPDFImages lists the images of the PDF at path: one "type enc" pair
// ("image jpeg", "smask image", ...) per image, in page order.
func imgPDFImages(t testing.TB, path string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(imgCommand(t, "pdfimages", "-list", path), "\n")[2:] {
		if f := strings.Fields(line); len(f) > 8 {
			out = append(out, f[2]+" "+f[8])
		}
	}
	return out
}

// imgRender rasterises page n of the PDF at path at dpi and decodes it.
func imgRender(t testing.TB, path string, page, dpi int) image.Image {
	t.Helper()
	imgNeedCommand(t, "pdftoppm")
	return toolstest.RenderPage(t, path, page, dpi)
}

func imgReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestImagesToPDFPages(t *testing.T) {
	c, d := imageCorpus(t), imageTestdata
	a4, a4l := [2]float64{595.28, 841.89}, [2]float64{841.89, 595.28}
	tests := []struct {
		name     string
		params   map[string]string
		files    []string
		sizes    [][2]float64
		filename string
	}{
		{"one JPEG at its JFIF density", nil, []string{c + "photo.jpg"}, [][2]float64{{300, 200}}, "photo.pdf"},
		{"corpus in upload order", nil,
			[]string{c + "photo.jpg", c + "map.png", c + "scan.png", c + "smile.png", c + "smile.tiff", c + "phone-photo.jpg", c + "iphone-photo.jpg"},
			// smile.png and smile.tiff declare 300 dpi: 16 px is 3.84 pt.
			[][2]float64{{300, 200}, {1024, 1024}, {781, 627}, {3.84, 3.84}, {3.84, 3.84}, {4608, 1976}, {3264, 2448}}, "images.pdf"},
		{"reverse order", nil, []string{c + "iphone-photo.jpg", c + "photo.jpg"}, [][2]float64{{3264, 2448}, {300, 200}}, "images.pdf"},
		{"other formats", nil,
			[]string{d + "blue-purple-pink.lossy.webp", d + "gopher-doc.with-alpha.lossless.webp", d + "bw-gopher_ccittGroup4.tiff", d + "video-001-gray-16bit.tiff"},
			[][2]float64{{150, 100}, {75, 100}, {153, 55}, {150, 103}}, "images.pdf"},
		{"a4 follows each image", map[string]string{"page_size": "a4"},
			[]string{c + "photo.jpg", c + "map.png", c + "phone-photo.jpg"}, [][2]float64{a4l, a4, a4l}, "images.pdf"},
		{"letter portrait forced", map[string]string{"page_size": "letter", "orientation": "portrait"},
			[]string{c + "photo.jpg"}, [][2]float64{{612, 792}}, "photo.pdf"},
		{"a4 landscape forced", map[string]string{"page_size": "a4", "orientation": "landscape", "margin": "big"},
			[]string{c + "map.png"}, [][2]float64{a4l}, "map.pdf"},
		{"fit with small margin", map[string]string{"margin": "small"}, []string{c + "photo.jpg"}, [][2]float64{{340, 240}}, "photo.pdf"},
		{"fit with big margin", map[string]string{"margin": "big", "orientation": "portrait"},
			[]string{c + "smile.png"}, [][2]float64{{103.84, 103.84}}, "smile.pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := runImages(t, tt.params, tt.files...)
			if err != nil {
				t.Fatal(err)
			}
			if out.Filename != tt.filename || out.ContentType != "application/pdf" {
				t.Errorf("output = %q %q, want %q", out.Filename, out.ContentType, tt.filename)
			}
			if out.Meta["pages"] != len(tt.files) {
				t.Errorf("meta = %v, want %d pages", out.Meta, len(tt.files))
			}
			if got := imgPageSizes(t, out.Path); !imgSameSizes(got, tt.sizes) {
				t.Errorf("page sizes = %v, want %v", got, tt.sizes)
			}
			if doc := readBack(t, out.Path); doc.PageCount != len(tt.files) {
				t.Errorf("pdfcpu reads %d pages, want %d", doc.PageCount, len(tt.files))
			}
		})
	}
}

// TestImagesToPDFJPEGUnchanged checks that every JPEG's bytes are the
// image stream, as poppler extracts it.
func TestImagesToPDFJPEGUnchanged(t *testing.T) {
	rotated := imgWithOrientation(t, imgReadFile(t, imageCorpus(t)+"phone-photo.jpg"), 6)
	gray := imgJPEGWithEXIF(t, image.NewGray(image.Rect(0, 0, 40, 30)), 3) // one component
	// The progressive JPEG lacks its last scans but is whole in structure
	// (it ends with EOI): readers show it at a lower quality.
	files := []string{imageCorpus(t) + "photo.jpg", imageCorpus(t) + "phone-photo.jpg", imageCorpus(t) + "iphone-photo.jpg",
		toolstest.WriteTemp(t, "rotated.jpg", rotated), toolstest.WriteTemp(t, "gray.jpg", gray), imageTestdata + "video-001.progressive.truncated.jpeg"}
	out, err := runImages(t, map[string]string{"page_size": "a4", "margin": "small"}, files...)
	if err != nil {
		t.Fatal(err)
	}
	if got := imgPDFImages(t, out.Path); strings.Join(got, " ") != strings.TrimSpace(strings.Repeat("image jpeg ", len(files))) {
		t.Errorf("pdfimages -list: %v, want %d JPEG images", got, len(files))
	}
	prefix := filepath.Join(t.TempDir(), "img")
	imgCommand(t, "pdfimages", "-j", out.Path, prefix)
	for i, f := range files {
		got := imgReadFile(t, fmt.Sprintf("%s-%03d.jpg", prefix, i))
		if !bytes.Equal(got, imgReadFile(t, f)) {
			t.Errorf("image %d (%s): extracted JPEG (%d bytes) differs from the input", i, filepath.Base(f), len(got))
		}
	}
}

func TestImagesToPDFAlpha(t *testing.T) {
	out, err := runImages(t, nil, imageCorpus(t)+"map.png", imageCorpus(t)+"scan.png", imageTestdata+"gopher-doc.with-alpha.lossless.webp")
	if err != nil {
		t.Fatal(err)
	}
	// scan.png has an alpha channel, but every pixel is opaque.
	want := "[image image smask image image image image image smask image]"
	if got := imgPDFImages(t, out.Path); fmt.Sprint(got) != want {
		t.Errorf("pdfimages -list: %v, want %s", got, want)
	}
}

// imgWithOrientation returns the JPEG b with the value of its EXIF
// orientation tag replaced by v, every other byte unchanged.
func imgWithOrientation(t testing.TB, b []byte, v byte) []byte {
	t.Helper()
	out := append([]byte{}, b...)
	for _, entry := range [][]byte{
		{0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00}, // big-endian: tag, SHORT, count 1, value high byte
		{0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00},       // little-endian: value low byte follows
	} {
		if i := bytes.Index(out[:min(len(out), 65536)], entry); i >= 0 {
			out[i+len(entry)] = v
			return out
		}
	}
	t.Fatal("no orientation tag found")
	return nil
}

// imgFileOrientation returns the orientation file(1) reads from the EXIF
// data of the image at path, as an EXIF value, or 0 when it names none.
// libmagic names only the rotations (1, 3, 6, 8), in its own words; it
// prints nothing for the mirrored orientations.
func imgFileOrientation(t testing.TB, path string) int {
	t.Helper()
	m := regexp.MustCompile(`orientation=([a-z-]*)`).FindStringSubmatch(imgCommand(t, "file", "-b", path))
	if m == nil {
		return 0
	}
	return map[string]int{"upper-left": 1, "lower-right": 3, "upper-right": 6, "lower-left": 8}[m[1]]
}

// TestImagesToPDFPhoneOrientation checks the corpus photos and a copy of
// one whose orientation says "rotate 90 clockwise": the page takes the
// upright shape, the orientation read by the tool's parser agrees with
// file(1), and poppler renders the page in that shape.
func TestImagesToPDFPhoneOrientation(t *testing.T) {
	phone := imgReadFile(t, imageCorpus(t)+"phone-photo.jpg")
	tests := []struct {
		name   string
		path   string
		orient int
		size   [2]float64 // page size in points
	}{
		{"phone-photo.jpg", imageCorpus(t) + "phone-photo.jpg", 1, [2]float64{4608, 1976}},
		{"iphone-photo.jpg", imageCorpus(t) + "iphone-photo.jpg", 1, [2]float64{3264, 2448}},
		{"phone photo rotated 90", toolstest.WriteTemp(t, "rot6.jpg", imgWithOrientation(t, phone, 6)), 6, [2]float64{1976, 4608}},
		{"phone photo rotated 270", toolstest.WriteTemp(t, "rot8.jpg", imgWithOrientation(t, phone, 8)), 8, [2]float64{1976, 4608}},
		{"phone photo mirrored", toolstest.WriteTemp(t, "rot2.jpg", imgWithOrientation(t, phone, 2)), 2, [2]float64{4608, 1976}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			orient, _, _, err := pdfops.JPEGMeta(imgReadFile(t, tt.path))
			if err != nil || orient != tt.orient {
				t.Errorf("parser: orientation %d (%v), want %d", orient, err, tt.orient)
			}
			named := map[int]bool{1: true, 3: true, 6: true, 8: true} // as libmagic names them
			if got := imgFileOrientation(t, tt.path); (named[tt.orient] && got != tt.orient) || (!named[tt.orient] && got != 0) {
				t.Errorf("file(1): orientation %d, want %d", got, tt.orient)
			}
			out, err := runImages(t, nil, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if got := imgPageSizes(t, out.Path); !imgSameSizes(got, [][2]float64{tt.size}) {
				t.Errorf("page size = %v, want %v", got, tt.size)
			}
			b := imgRender(t, out.Path, 1, 10).Bounds()
			if wide := tt.size[0] > tt.size[1]; (b.Dx() > b.Dy()) != wide {
				t.Errorf("rendered page is %dx%d pixels, want it %s", b.Dx(), b.Dy(), map[bool]string{true: "landscape", false: "portrait"}[wide])
			}
		})
	}
}

func TestImagesToPDFCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := runImagesContext(ctx, t, nil, imageCorpus(t)+"photo.jpg")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

func TestImagesToPDFDeclaration(t *testing.T) {
	tl := imagesTool(t)
	if tl.Slug != "jpg-to-pdf" || tl.MinFiles != 1 || tl.MaxFiles != 200 || tl.Engine != "pdfcpu" ||
		tl.Timeout <= 0 || tl.Run == nil || tl.Title == "" || tl.Description == "" || !tl.IsAvailable() {
		t.Errorf("declaration: %+v", tl)
	}
	if fmt.Sprint(tl.Accepts) != "[image/jpeg image/png image/gif image/tiff image/webp]" {
		t.Errorf("Accepts = %v", tl.Accepts)
	}
	want := map[string]string{"page_size": "fit|a4|letter=fit", "orientation": "auto|portrait|landscape=auto", "margin": "none|small|big=none"}
	for _, p := range tl.Params {
		if got := strings.Join(p.Enum, "|") + "=" + p.Default; got != want[p.Name] || p.Description == "" {
			t.Errorf("param %s: %s, want %s", p.Name, got, want[p.Name])
		}
		delete(want, p.Name)
	}
	if len(want) > 0 {
		t.Errorf("missing params %v", want)
	}
	if _, err := tl.ParseParams(map[string]string{"page_size": "a3"}); docmill.ErrorCode(err) != docmill.CodeInvalidParameter {
		t.Errorf("page_size a3: %v, want invalid_parameter", err)
	}
}
