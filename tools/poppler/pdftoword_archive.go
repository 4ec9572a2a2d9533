package poppler

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// picture is an image to place in the document: its stored file (an
// index into docBody.media), the page it is on, and its size in pixels.
type picture struct {
	media int
	page  int
	w, h  int
}

// mediaExt is the file extension of a stored image, "png" or "jpg".
func mediaExt(file string) string { return strings.TrimPrefix(path.Ext(file), ".") }

// displaySize is the picture's size in points: 96 pixels an inch, no
// wider than maxPictureWidth (the text width of an A4 page).
func (p picture) displaySize() (w, h float64) {
	w, h = float64(p.w)*0.75, float64(p.h)*0.75
	if w > maxPictureWidth {
		w, h = maxPictureWidth, h*maxPictureWidth/w
	}
	return w, h
}

// maxPictureWidth is the text width of an A4 page with the documents'
// margins, in points: a fact of the page the document is laid out on,
// not a cost.
const maxPictureWidth = 450.0

// docBody is what goes in a document: the paragraphs, then each page's
// pictures after that page's last paragraph. media are the files of the
// pictures (PNG or JPEG pdfimages wrote), each stored once in the
// document however often it is placed.
type docBody struct {
	paras    []paragraph
	pictures []picture
	media    []string
}

// each calls para for every paragraph and pic for every picture, in the
// document's order; the index of a picture is its number among the
// pictures.
func (b docBody) each(para func(paragraph), pic func(int, picture)) {
	next := 0
	flush := func(upTo int) {
		for next < len(b.pictures) && b.pictures[next].page <= upTo {
			pic(next, b.pictures[next])
			next++
		}
	}
	for i, p := range b.paras {
		flush(p.page - 1)
		para(p)
		if i == len(b.paras)-1 || b.paras[i+1].page != p.page {
			flush(p.page)
		}
	}
	flush(1 << 30)
}

// escaped is s escaped for XML text and attributes; characters XML
// cannot hold become U+FFFD.
func escaped(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// zipWriter writes a document archive part by part, remembering the
// first error.
type zipWriter struct {
	z   *zip.Writer
	err error
}

// part writes a part; stored leaves it uncompressed (ODF's mimetype).
func (w *zipWriter) part(name string, body []byte, stored bool) {
	if w.err != nil {
		return
	}
	method := zip.Deflate
	if stored {
		method = zip.Store
	}
	var f io.Writer
	if f, w.err = w.z.CreateHeader(&zip.FileHeader{Name: name, Method: method}); w.err == nil {
		_, w.err = f.Write(body)
	}
}

// file copies the file at src into the part name, streamed: an image
// pdfimages extracted is as large as the PDF made it, and is never held
// in the server's memory whole. PNG and JPEG are compressed already, so
// the part is stored.
func (w *zipWriter) file(name, src string) {
	if w.err != nil {
		return
	}
	in, err := os.Open(src)
	if err != nil {
		w.err = err
		return
	}
	defer in.Close()
	var f io.Writer
	if f, w.err = w.z.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store}); w.err == nil {
		_, w.err = io.Copy(f, in)
	}
}

// writeArchive makes the file at dst with fill's parts.
func writeArchive(dst string, fill func(*zipWriter)) error {
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer f.Close()
	w := &zipWriter{z: zip.NewWriter(f)}
	fill(w)
	if w.err != nil {
		return w.err
	}
	if err := w.z.Close(); err != nil {
		return err
	}
	return f.Close()
}

// buffer is a bytes.Buffer with Printf.
type buffer struct{ bytes.Buffer }

func (b *buffer) printf(format string, args ...any) { fmt.Fprintf(&b.Buffer, format, args...) }
