// Package ziparchive writes the zip archives that tools return when a job
// makes several files (split-pdf's parts, pdf-to-jpg's pages), streamed to
// disk entry by entry and capped in size while they are written.
package ziparchive

import (
	"archive/zip"
	"bufio"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	docmill "github.com/docmill/docmill"
)

// ContentType is the type of the archives.
const ContentType = "application/zip"

// Result is the output of a run whose result is the archive at path,
// named filename, with meta.
func Result(path, filename string, meta map[string]any) *docmill.RunOutput {
	return &docmill.RunOutput{Path: path, Filename: filename, ContentType: ContentType, Meta: meta}
}

// ErrTooLarge is returned once an archive would pass its cap; callers turn
// it into their own file_too_large message.
var ErrTooLarge = errors.New("ziparchive: archive over its size cap")

// Writer is a zip archive being written to a file.
type Writer struct {
	f        *os.File
	buf      *bufio.Writer
	zw       *zip.Writer
	modified time.Time
}

// Create starts an archive at path that may grow to maxBytes.
func Create(path string, maxBytes int64) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("ziparchive: %w", err)
	}
	buf := bufio.NewWriterSize(f, 1<<20)
	zw := zip.NewWriter(&cappedWriter{w: buf, left: maxBytes})
	zw.RegisterCompressor(zip.Deflate, fastDeflate)
	return &Writer{f: f, buf: buf, zw: zw, modified: time.Now()}, nil
}

// fastDeflaters holds flate writers at flate.BestSpeed for reuse: a new
// one allocates about a megabyte of state.
var fastDeflaters sync.Pool

// fastDeflate is the archives' Deflate compressor, at flate.BestSpeed:
// what the tools deflate is mostly PDFs (split-pdf's parts), whose
// streams are compressed already, where a slower level saves little
// size for much more time; text (an uncompressed content stream, an
// attachment) still shrinks at this level.
func fastDeflate(w io.Writer) (io.WriteCloser, error) {
	if fw, ok := fastDeflaters.Get().(*flate.Writer); ok {
		fw.Reset(w)
		return &pooledDeflater{fw}, nil
	}
	fw, err := flate.NewWriter(w, flate.BestSpeed)
	if err != nil {
		return nil, err
	}
	return &pooledDeflater{fw}, nil
}

// pooledDeflater is a flate writer that goes back to fastDeflaters once
// closed.
type pooledDeflater struct{ *flate.Writer }

func (p *pooledDeflater) Close() error {
	err := p.Writer.Close()
	fastDeflaters.Put(p.Writer)
	return err
}

// Add starts an entry and returns where its content goes. deflate should
// be false for content that is compressed already (JPEG, PNG).
func (w *Writer) Add(name string, deflate bool) (io.Writer, error) {
	method := zip.Store
	if deflate {
		method = zip.Deflate
	}
	return w.zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: w.modified})
}

// AddFile adds the file at path as the entry name.
func (w *Writer) AddFile(name, path string, deflate bool) error {
	dst, err := w.Add(name, deflate)
	if err != nil {
		return err
	}
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = io.Copy(dst, src)
	return err
}

// Close finishes the archive. An archive abandoned after an error must
// still be closed, to release its file.
func (w *Writer) Close() error {
	err := w.zw.Close()
	if err == nil {
		err = w.buf.Flush()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// cappedWriter passes writes on until left bytes have been written, then
// fails with ErrTooLarge.
type cappedWriter struct {
	w    io.Writer
	left int64
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		return 0, ErrTooLarge
	}
	n, err := c.w.Write(p)
	c.left -= int64(n)
	return n, err
}
