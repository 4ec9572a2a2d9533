//go:build ignore

// generate writes the example files of the walk-through of docs/api.md, made
// here so that they carry no one else's copyright:
//
//	go run examples/generate.go [DIR]
//
// from the repository's root (DIR: examples).
// report.pdf (3 pages) and appendix.pdf (1 page) are text PDFs;
// scan.png is a page of text as an image, for ocr-pdf; photo.jpg is a
// 640x480 picture, for the image tools.
package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"log"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/docmill/docmill/tools/rawpdf"
)

func main() {
	dir := "examples"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	write("report.pdf", textPDF(
		"Quarterly report - page 1: summary",
		"Quarterly report - page 2: figures",
		"Quarterly report - page 3: outlook"))
	write("appendix.pdf", textPDF("Appendix - sources and methods"))
	write("scan.png", scan([]string{"DOCMILL TURNS SCANS", "INTO SEARCHABLE PDF", "FILES WITH OCR"}))
	write("photo.jpg", photo())
}

// textPDF returns a PDF of A4 pages, one per text, each in Helvetica
// (ASCII without parentheses or backslashes).
func textPDF(texts ...string) []byte {
	kids := make([]string, len(texts))
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	for i, text := range texts {
		page := len(objects) + 1
		kids[i] = fmt.Sprintf("%d 0 R", page)
		content := fmt.Sprintf("BT /F1 24 Tf 72 720 Td (%s) Tj ET", text)
		objects = append(objects,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", page+1),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(texts))
	return rawpdf.Write(objects...)
}

// scan draws lines of text in a bitmap font, four times enlarged, black
// on white: large, clean letters that tesseract reads.
func scan(lines []string) []byte {
	const scale = 4
	small := image.NewGray(image.Rect(0, 0, 200, 20*len(lines)+20))
	for i := range small.Pix {
		small.Pix[i] = 0xff
	}
	d := font.Drawer{Dst: small, Src: image.Black, Face: basicfont.Face7x13}
	for i, l := range lines {
		d.Dot = fixed.P(10, 25+20*i)
		d.DrawString(l)
	}
	b := small.Bounds()
	big := image.NewGray(image.Rect(0, 0, b.Dx()*scale, b.Dy()*scale))
	for y := 0; y < big.Bounds().Dy(); y++ {
		for x := 0; x < big.Bounds().Dx(); x++ {
			big.SetGray(x, y, small.GrayAt(x/scale, y/scale))
		}
	}
	var out bytes.Buffer
	if err := png.Encode(&out, big); err != nil {
		log.Fatal(err)
	}
	return out.Bytes()
}

// photo is a smooth colour gradient with a sun: a small JPEG.
func photo() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 640, 480))
	for y := 0; y < 480; y++ {
		for x := 0; x < 640; x++ {
			c := color.RGBA{uint8(60 + y/4), uint8(120 + y/6), uint8(220 - y/3), 0xff}
			if dx, dy := x-480, y-120; dx*dx+dy*dy < 50*50 {
				c = color.RGBA{0xff, 0xd0, 0x40, 0xff}
			}
			if y > 360 {
				c = color.RGBA{uint8(40 + x/16), uint8(110 + x/32), 50, 0xff}
			}
			img.Set(x, y, c)
		}
	}
	var out bytes.Buffer
	if err := jpeg.Encode(&out, img, &jpeg.Options{Quality: 80}); err != nil {
		log.Fatal(err)
	}
	return out.Bytes()
}
