package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// heicSample is one HEIF-family test image: its extension, its bytes and
// the content type the tools that keep the format give it back in.
type heicSample struct {
	ext  string
	data []byte
	kept string
}

// heicEncode writes png's image as ext (heic or avif) with vips run
// directly and returns the bytes, skipping t when this libvips cannot
// write it.
func heicEncode(t *testing.T, png, ext string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "sample."+ext)
	if b, err := exec.Command("vips", "copy", png, out).CombinedOutput(); err != nil {
		toolstest.NeedCapability(t, "write ."+ext+" with libvips (libheif and its encoder: make test-deps)", fmt.Errorf("%v: %s", err, b))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// heicSamples are a 60x40 picture with the marker top-left as HEIC and
// as AVIF.
func heicSamples(t *testing.T) []heicSample {
	png := toolstest.WriteTemp(t, "corner.png", toolstest.Corner(t, 60, 40, 10))
	return []heicSample{
		{"heic", heicEncode(t, png, "heic"), "image/jpeg"},
		{"avif", heicEncode(t, png, "avif"), "image/avif"},
	}
}

// heicWords is the text of heicTextImage.
const heicWords = "Conformance of every tool"

// heicTextImage is heicWords in 24-point type rendered at 100 dpi (an
// 827x150 strip of the page) in ext, for the OCR tools.
func heicTextImage(t *testing.T, ext string) []byte {
	pdf := toolstest.WriteTemp(t, "words.pdf", toolstest.TextPDF(heicWords))
	root := filepath.Join(t.TempDir(), "words")
	if b, err := exec.Command("pdftoppm", "-png", "-r", "100", "-x", "0", "-y", "100", "-W", "827", "-H", "150", "-singlefile", pdf, root).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, b)
	}
	return heicEncode(t, root+".png", ext)
}

// heicBomb returns data with the width and height of every ispe (image
// spatial extents) box set to side: a HEIF or AVIF of a few hundred bytes
// that declares side x side pixels.
func heicBomb(t *testing.T, data []byte, side uint32) []byte {
	t.Helper()
	b := bytes.Clone(data)
	n := 0
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("ispe"))
		if j < 0 || i+j+16 > len(b) {
			break
		}
		i += j
		binary.BigEndian.PutUint32(b[i+8:], side)
		binary.BigEndian.PutUint32(b[i+12:], side)
		i += 4
		n++
	}
	if n == 0 {
		t.Fatal("no ispe box")
	}
	return b
}

// heicTurned returns data (a HEIF or AVIF as vips writes it, whose last
// item property is a 16-byte pixi box associated with the primary image)
// with that box replaced by an irot box of the same size turning the
// image 90° anticlockwise: the orientation of a HEIC photo taken
// sideways, which libheif applies when it decodes. The pixel information
// the pixi box held is optional.
func heicTurned(t *testing.T, data []byte) []byte {
	t.Helper()
	b := bytes.Clone(data)
	i := bytes.LastIndex(b, []byte("pixi")) - 4
	if i < 0 || binary.BigEndian.Uint32(b[i:]) != 16 {
		toolstest.Lacking(t, "this libheif writes no 16-byte pixi box to replace")
	}
	copy(b[i+4:i+16], append([]byte("irot\x01"), make([]byte, 7)...))
	return b
}

// heicSize reads an image's size and loader with vipsheader (Go has no
// HEIF or AVIF decoder).
func heicSize(t *testing.T, data []byte) (w, h int, loader string) {
	t.Helper()
	path := toolstest.WriteTemp(t, "result.img", data)
	var fields [3]string
	for i, f := range []string{"width", "height", "vips-loader"} {
		b, err := exec.Command("vipsheader", "-f", f, path).Output()
		if err != nil {
			t.Fatalf("vipsheader %s: %v", f, err)
		}
		fields[i] = strings.TrimSpace(string(b))
	}
	w, _ = strconv.Atoi(fields[0])
	h, _ = strconv.Atoi(fields[1])
	return w, h, fields[2]
}

// heicPDFImages returns pdfimages -list's rows of a PDF: type, width,
// height, colour, components, bpc and encoding of every image.
func heicPDFImages(t *testing.T, data []byte) [][]string {
	t.Helper()
	out, err := exec.Command("pdfimages", "-list", toolstest.WriteTemp(t, "images.pdf", data)).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfimages: %v\n%s", err, out)
	}
	var rows [][]string
	for _, line := range strings.Split(string(out), "\n")[2:] {
		if f := strings.Fields(line); len(f) > 9 {
			rows = append(rows, f[2:9])
		}
	}
	return rows
}

// heicRun runs tool on files and returns the finished job and its result.
func heicRun(t *testing.T, c *client.Client, tool string, params map[string]string, files ...client.File) (*client.Job, []byte) {
	t.Helper()
	j, _, err := c.Process(context.Background(), tool, files, client.ProcessOptions{Params: params, Prefer: "wait=120"})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, params, err)
	}
	if j.Status != "done" {
		t.Fatalf("%s: %+v", tool, j)
	}
	return j, download(t, j.Result.URL)
}

// heicFile is an upload of data named name.
func heicFile(name string, data []byte) client.File {
	return client.File{Name: name, Body: bytes.NewReader(data)}
}

// TestHeicImageTools: a HEIC and an AVIF photo go through every tool that
// takes an image. The tools that keep the format give a JPEG for the
// HEIC (HEIC is not written) and an AVIF for the AVIF; the tools whose
// engines cannot read either get a conversion made by libvips first.
// Every result is decoded and measured.
func TestHeicImageTools(t *testing.T) {
	// Its server is its own, and no time is bounded.
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	for _, sample := range heicSamples(t) {
		name := "corner." + sample.ext
		in := func() client.File { return heicFile(name, sample.data) }
		// kept checks a result of a tool that keeps the format: its type,
		// extension and size, and for a JPEG the marker's corner.
		kept := func(t *testing.T, j *client.Job, data []byte, w, h int, right, bottom bool) {
			t.Helper()
			ext := map[string]string{"image/jpeg": ".jpg", "image/avif": ".avif"}[sample.kept]
			if j.Result.ContentType != sample.kept || !strings.HasSuffix(j.Result.Filename, ext) {
				t.Errorf("result %s %s, want %s", j.Result.Filename, j.Result.ContentType, sample.kept)
			}
			if sample.kept == "image/avif" {
				if gw, gh, loader := heicSize(t, data); gw != w || gh != h || loader != "heifload" {
					t.Errorf("avif result %dx%d by %s, want %dx%d", gw, gh, loader, w, h)
				}
				return
			}
			img, format := decodeImage(t, data)
			if format != "jpeg" || img.Bounds().Dx() != w || img.Bounds().Dy() != h || !markerAt(img, right, bottom) {
				t.Errorf("%s %v, marker at (%v, %v): %v", format, img.Bounds(), right, bottom, markerAt(img, right, bottom))
			}
		}
		t.Run(sample.ext, func(t *testing.T) {
			t.Run("resize-image", func(t *testing.T) {
				j, data := heicRun(t, c, "resize-image", map[string]string{"width": "30"}, in())
				kept(t, j, data, 30, 20, false, false)
			})
			t.Run("rotate-image", func(t *testing.T) {
				j, data := heicRun(t, c, "rotate-image", map[string]string{"angle": "90"}, in())
				kept(t, j, data, 40, 60, true, false) // clockwise: top-left goes top-right
			})
			t.Run("rotate-image auto", func(t *testing.T) {
				j, data := heicRun(t, c, "rotate-image", map[string]string{"angle": "auto"}, in())
				kept(t, j, data, 60, 40, false, false)
			})
			t.Run("crop-image", func(t *testing.T) {
				j, data := heicRun(t, c, "crop-image", map[string]string{"width": "30", "height": "20"}, in())
				kept(t, j, data, 30, 20, false, false)
			})
			t.Run("watermark-image", func(t *testing.T) {
				j, data := heicRun(t, c, "watermark-image", map[string]string{"text": "x", "position": "bottom-right", "font_size": "12"}, in())
				kept(t, j, data, 60, 40, false, false)
			})
			t.Run("compress-image", func(t *testing.T) {
				j, data := heicRun(t, c, "compress-image", nil, in())
				kept(t, j, data, 60, 40, false, false)
			})
			t.Run("convert-image", func(t *testing.T) {
				j, data := heicRun(t, c, "convert-image", map[string]string{"format": "png"}, in())
				img, format := decodeImage(t, data)
				if j.Result.Filename != "corner.png" || format != "png" || img.Bounds().Dx() != 60 || !markerAt(img, false, false) {
					t.Errorf("%s: %s %v", j.Result.Filename, format, img.Bounds())
				}
			})
			t.Run("image-info", func(t *testing.T) {
				_, data := heicRun(t, c, "image-info", nil, in())
				var r imageReport
				if err := json.Unmarshal(data, &r); err != nil || r.Format != sample.ext || r.Width != 60 || r.Height != 40 {
					t.Errorf("%v %+v", err, r)
				}
			})
			t.Run("jpg-to-pdf", func(t *testing.T) {
				// With a PNG beside it: only the HEIF-family file is converted.
				png := heicFile("second.png", toolstest.Corner(t, 30, 20, 5))
				j, data := heicRun(t, c, "jpg-to-pdf", nil, in(), png)
				rows := heicPDFImages(t, data)
				if j.Result.Filename == "" || len(pdfPages(t, data)) != 2 || len(rows) < 2 {
					t.Fatalf("%s: %d pages, images %v", j.Result.Filename, len(pdfPages(t, data)), rows)
				}
				// type width height color comp bpc enc: the photo is a JPEG.
				if r := rows[0]; r[1] != "60" || r[2] != "40" || r[6] != "jpeg" {
					t.Errorf("first image %v", r)
				}
			})
			t.Run("image-watermark", func(t *testing.T) {
				pdf := heicFile("doc.pdf", toolstest.TextPDF("Stamped page"))
				j, data := heicRun(t, c, "image-watermark", nil, pdf, in())
				rows := heicPDFImages(t, data)
				if j.Result.ContentType != "application/pdf" || len(rows) != 1 || rows[0][1] != "60" || rows[0][2] != "40" {
					t.Errorf("%s: images %v", j.Result.ContentType, rows)
				}
				if !strings.Contains(pageText(t, data, 1), "Stamped page") {
					t.Error("the page's text is gone")
				}
			})
			t.Run("turned", func(t *testing.T) {
				// 90° anticlockwise: seen 40x60, the marker bottom-left.
				turned := heicFile("turned."+sample.ext, heicTurned(t, sample.data))
				j, data := heicRun(t, c, "rotate-image", map[string]string{"angle": "auto"}, turned)
				kept(t, j, data, 40, 60, false, true)
				_, data = heicRun(t, c, "jpg-to-pdf", nil, heicFile("turned."+sample.ext, heicTurned(t, sample.data)))
				if rows := heicPDFImages(t, data); len(rows) != 1 || rows[0][1] != "40" || rows[0][2] != "60" {
					t.Errorf("jpg-to-pdf images %v", rows)
				}
				_, data = heicRun(t, c, "document-thumbnail", map[string]string{"width": "40"}, heicFile("turned."+sample.ext, heicTurned(t, sample.data)))
				if img, _ := decodeImage(t, data); img.Bounds() != image.Rect(0, 0, 40, 60) || !markerAt(img, false, true) {
					t.Errorf("thumbnail %v, marker bottom-left %v", img.Bounds(), markerAt(img, false, true))
				}
			})
			t.Run("document-thumbnail", func(t *testing.T) {
				j, data := heicRun(t, c, "document-thumbnail", map[string]string{"width": "120"}, in())
				img, format := decodeImage(t, data)
				if j.Result.ContentType != "image/png" || format != "png" || img.Bounds() != image.Rect(0, 0, 120, 80) || !markerAt(img, false, false) {
					t.Errorf("%s %s %v", j.Result.ContentType, format, img.Bounds())
				}
			})
		})
	}
	for _, ext := range []string{"heic", "avif"} {
		words := heicTextImage(t, ext)
		t.Run(ext+" image-to-text", func(t *testing.T) {
			j, data := heicRun(t, c, "image-to-text", map[string]string{"lang": "eng"}, heicFile("words."+ext, words))
			if j.Result.Filename != "words.txt" || !strings.Contains(strings.Join(strings.Fields(string(data)), " "), heicWords) {
				t.Errorf("%s: %q", j.Result.Filename, data)
			}
		})
		t.Run(ext+" ocr-pdf", func(t *testing.T) {
			j, data := heicRun(t, c, "ocr-pdf", map[string]string{"lang": "eng"}, heicFile("words."+ext, words))
			text := strings.Join(strings.Fields(pageText(t, data, 1)), " ")
			if j.Result.ContentType != "application/pdf" || !strings.Contains(text, heicWords) {
				t.Errorf("%s: %q", j.Result.ContentType, text)
			}
			if rows := heicPDFImages(t, data); len(rows) != 1 || rows[0][1] != "827" || rows[0][2] != "150" {
				t.Errorf("images %v", rows)
			}
		})
	}
}

// TestHeicBomb: a HEIC or AVIF of a few hundred bytes that declares
// 16000x16000 pixels (256 MP, over the 100 MP cap but within libheif's
// own limit) is refused from its header, at once, by every tool that
// takes it: nothing decodes it.
func TestHeicBomb(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	for _, sample := range heicSamples(t) {
		bomb := heicBomb(t, sample.data, 16000)
		for tool, params := range map[string]map[string]string{
			"resize-image": {"width": "10"}, "convert-image": {"format": "jpg"}, "compress-image": nil, "image-info": nil,
			"jpg-to-pdf": nil, "image-to-text": nil, "ocr-pdf": nil, "document-thumbnail": nil,
		} {
			t.Run(sample.ext+" "+tool, func(t *testing.T) {
				start := time.Now()
				_, _, err := c.Process(context.Background(), tool, []client.File{heicFile("bomb."+sample.ext, bomb)},
					client.ProcessOptions{Params: params, Prefer: "wait=60"})
				if tool == "image-info" {
					// image-info reads headers only: the declared size is its answer.
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				p := apiError(t, err, 400, "invalid_document")
				if !regexp.MustCompile(`16000×16000 .*limit is 100 MP`).MatchString(p.Detail) {
					t.Errorf("detail %q", p.Detail)
				}
				if d := time.Since(start); d > 20*time.Second {
					t.Errorf("refused after %v", d)
				}
			})
		}
		t.Run(sample.ext+" image-watermark", func(t *testing.T) {
			_, _, err := c.Process(context.Background(), "image-watermark",
				[]client.File{heicFile("doc.pdf", toolstest.TextPDF("x")), heicFile("bomb."+sample.ext, bomb)}, client.ProcessOptions{Prefer: "wait=60"})
			apiError(t, err, 400, "invalid_document")
		})
	}
}

// heicImageTools are every tool that takes an image.
var heicImageTools = []string{"resize-image", "rotate-image", "crop-image", "watermark-image", "compress-image", "convert-image",
	"image-info", "jpg-to-pdf", "image-to-text", "ocr-pdf", "document-thumbnail", "image-watermark"}

// TestHeicCatalogue: the catalogue, the OpenAPI document and the web
// form's file picker offer HEIF and AVIF for every image tool.
func TestHeicCatalogue(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	list, err := s.client("").Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	accepts := map[string][]string{}
	for _, tool := range list {
		accepts[tool.Slug] = tool.Accepts
	}
	resp, err := http.Get(s.URL + "/v1/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	for _, slug := range heicImageTools {
		if !slices.Contains(accepts[slug], "image/heif") || !slices.Contains(accepts[slug], "image/avif") {
			t.Errorf("%s accepts %v", slug, accepts[slug])
		}
		var op struct {
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Properties map[string]struct {
							Description string `json:"description"`
						} `json:"properties"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		}
		if err := json.Unmarshal(doc.Paths["/v1/"+slug+"/process"]["post"], &op); err != nil {
			t.Fatalf("%s: %v", slug, err)
		}
		field := op.RequestBody.Content["multipart/form-data"].Schema.Properties["file"].Description
		if !strings.Contains(field, "image/heif") || !strings.Contains(field, "image/avif") {
			t.Errorf("OpenAPI's %s file field: %q", slug, field)
		}
	}
	b := newBrowser(t)
	b.run(chromedp.Navigate(s.URL + "/"))
	for _, slug := range []string{"rotate-image", "jpg-to-pdf", "ocr-pdf", "image-watermark"} {
		b.openTool(slug)
		got := strings.Split(b.eval(`document.getElementById("file-input").accept`), ",")
		for _, want := range []string{"image/heif", ".heic", ".heif", "image/avif", ".avif"} {
			if !slices.Contains(got, want) {
				t.Errorf("%s's file input accepts %v, not %s", slug, got, want)
			}
		}
	}
}
