package pdfops_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// runImageStamp runs image-watermark on the PDF at pdf and the image at img
// sent as imgType (the order and types swapped when swap is set).
func runImageStamp(t *testing.T, params map[string]string, pdf, img, imgType string, swap bool) (*docmill.RunOutput, error) {
	t.Helper()
	tl := tool(t, "image-watermark")
	p, err := tl.ParseParams(params)
	if err != nil {
		t.Fatalf("ParseParams(%v): %v", params, err)
	}
	in := &docmill.RunInput{Params: p, WorkDir: t.TempDir()}
	files := []docmill.LocalFile{{Path: pdf, ContentType: "application/pdf"}, {Path: img, ContentType: imgType}}
	if swap {
		files[0], files[1] = files[1], files[0]
	}
	for _, f := range files {
		st, err := os.Stat(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		f.Filename, f.Size = filepath.Base(f.Path), st.Size()
		in.Files = append(in.Files, f)
	}
	return tl.Invoke(context.Background(), in)
}

// blackImage writes a w by h black image as PNG or JPEG.
func blackImage(t *testing.T, w, h int, format string) string {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 0
	}
	var b bytes.Buffer
	var err error
	if format == "jpeg" {
		err = jpeg.Encode(&b, img, nil)
	} else {
		err = png.Encode(&b, img)
	}
	if err != nil {
		t.Fatal(err)
	}
	return toolstest.WriteTemp(t, "logo."+format, b.Bytes())
}

// blankPages writes a PDF of three empty A4 pages; the second is shown
// turned a quarter clockwise.
func blankPages(t *testing.T) string {
	return toolstest.WriteTemp(t, "blank.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Rotate 90 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>"))
}

// imagePages returns the pages pdfimages lists an image on, one entry
// per image, and their encodings.
func imagePages(t *testing.T, path string) ([]int, []string) {
	t.Helper()
	var pages []int
	var encs []string
	for i, line := range strings.Split(strings.TrimSpace(selExec(t, "pdfimages", "-list", path)), "\n") {
		f := strings.Fields(line)
		if i < 2 || len(f) < 10 || f[2] != "image" {
			continue
		}
		n, _ := strconv.Atoi(f[0])
		pages = append(pages, n)
		encs = append(encs, f[8])
	}
	return pages, encs
}

// darkBox renders page n of path at 18 dpi in gray and returns the box
// of the pixels darker than limit (x0, y0 from the top left, x1, y1
// exclusive) and the darkest value.
func darkBox(t *testing.T, path string, n int, limit byte) (box image.Rectangle, darkest byte) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "page")
	selExec(t, "pdftoppm", "-r", "18", "-gray", "-singlefile", "-f", strconv.Itoa(n), "-l", strconv.Itoa(n), path, out)
	f, err := os.Open(out + ".pgm")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := decodePGM(f)
	if err != nil {
		t.Fatal(err)
	}
	darkest = 255
	for y := range img.Rect.Dy() {
		for x := range img.Rect.Dx() {
			v := img.GrayAt(x, y).Y
			darkest = min(darkest, v)
			if v < limit {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return box, darkest
}

// decodePGM reads a binary 8-bit PGM as pdftoppm -gray writes it.
func decodePGM(f *os.File) (*image.Gray, error) {
	b, err := os.ReadFile(f.Name())
	if err != nil {
		return nil, err
	}
	fields := make([]int, 0, 3)
	i := 2 // after "P5"
	for len(fields) < 3 {
		for b[i] == ' ' || b[i] == '\n' {
			i++
		}
		j := i
		for b[j] >= '0' && b[j] <= '9' {
			j++
		}
		n, _ := strconv.Atoi(string(b[i:j]))
		fields, i = append(fields, n), j
	}
	i++ // the single white space after maxval
	img := image.NewGray(image.Rect(0, 0, fields[0], fields[1]))
	copy(img.Pix, b[i:])
	return img, nil
}

func nearPixels(a, b, tolerance int) bool { return a-b <= tolerance && b-a <= tolerance }

func TestImageWatermarkPlacement(t *testing.T) {
	pdf, logo := blankPages(t), blackImage(t, 40, 20, "png")
	out, err := runImageStamp(t, map[string]string{"position": "top-left", "opacity": "1", "pages": "1-2"}, pdf, logo, "image/png", false)
	if err != nil {
		t.Fatal(err)
	}
	if pages, _ := imagePages(t, out.Path); !slices.Equal(pages, []int{1, 2}) {
		t.Errorf("pdfimages lists images on pages %v, want 1 and 2", pages)
	}
	if out.Meta["watermarked_pages"] != 2 || out.Filename != "blank-watermarked.pdf" {
		t.Errorf("filename %q, meta %v", out.Filename, out.Meta)
	}
	// A4 at 18 dpi is 149 by 211 pixels; the image is a quarter of the
	// page's width (37 pixels), half as high, 28 pt (7 pixels) from the
	// top left corner.
	box, _ := darkBox(t, out.Path, 1, 128)
	if !nearPixels(box.Min.X, 7, 2) || !nearPixels(box.Min.Y, 7, 2) || !nearPixels(box.Dx(), 37, 2) || !nearPixels(box.Dy(), 19, 2) {
		t.Errorf("page 1: image drawn at %v, want about (7,7)-(44,26)", box)
	}
	// The turned page is shown 211 by 149: the image is a quarter of
	// that width (53 pixels), at the top left as shown.
	box, _ = darkBox(t, out.Path, 2, 128)
	if !nearPixels(box.Min.X, 7, 2) || !nearPixels(box.Min.Y, 7, 2) || !nearPixels(box.Dx(), 53, 2) || !nearPixels(box.Dy(), 26, 2) {
		t.Errorf("page 2 (turned): image drawn at %v, want about (7,7)-(60,33)", box)
	}
	if box, _ := darkBox(t, out.Path, 3, 250); !box.Empty() {
		t.Errorf("page 3 (not selected) has marks at %v", box)
	}
}

func TestImageWatermarkSettings(t *testing.T) {
	pdf := blankPages(t)
	out, err := runImageStamp(t, map[string]string{"position": "bottom-right", "scale": "0.5", "rotation": "90"}, pdf, blackImage(t, 40, 20, "jpeg"), "image/jpeg", false)
	if err != nil {
		t.Fatal(err)
	}
	if pages, encs := imagePages(t, out.Path); !slices.Equal(pages, []int{1, 2, 3}) || encs[0] != "jpeg" {
		t.Errorf("pdfimages lists pages %v, encodings %v; want every page, the JPEG embedded as it is", pages, encs)
	}
	// Turned upright, the 74 by 37 pixel image stands 37 wide and 74
	// high in the bottom right corner; half opaque, black shows as gray.
	box, darkest := darkBox(t, out.Path, 1, 200)
	if !nearPixels(box.Max.X, 149-7, 2) || !nearPixels(box.Max.Y, 211-7, 2) || !nearPixels(box.Dx(), 37, 2) || !nearPixels(box.Dy(), 74, 2) {
		t.Errorf("image drawn at %v, want about (105,130)-(142,204)", box)
	}
	if !nearPixels(int(darkest), 127, 12) {
		t.Errorf("darkest pixel %d, want about 127 (opacity 0.5)", darkest)
	}
}

// hugePNG returns a PNG header declaring w by h pixels, and no pixels.
func hugePNG(w, h uint32) []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 2 // 8-bit RGB
	chunk := append([]byte("IHDR"), ihdr...)
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func TestImageWatermarkRefusals(t *testing.T) {
	pdf, logo := blankPages(t), blackImage(t, 40, 20, "png")
	_, err := runImageStamp(t, nil, pdf, logo, "image/png", true)
	toolstest.WantCode(t, err, docmill.CodeUnsupportedFileType, "")

	bomb := toolstest.WriteTemp(t, "bomb.png", hugePNG(60000, 60000))
	_, err = runImageStamp(t, nil, pdf, bomb, "image/png", false)
	e := toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
	if !strings.Contains(e.Message, "megapixels") {
		t.Errorf("a PNG bomb: %q, want its size named", e.Message)
	}

	_, err = runImageStamp(t, map[string]string{"pages": "4"}, pdf, logo, "image/png", false)
	toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "pages")
}
