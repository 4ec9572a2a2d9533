package poppler

import (
	"archive/zip"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	docmill "github.com/docmill/docmill"
)

// zipEntry is one file of an output archive: its name in the archive and
// where it is on disk.
type zipEntry struct{ name, path string }

// errTooLarge is returned by cappedWriter past maxOutputBytes.
var errTooLarge = errors.New("poppler: output over its size cap")

// tooLarge is the public form of errTooLarge.
func tooLarge(err error) error {
	e := docmill.Errorf(docmill.CodeFileTooLarge,
		"The images would total more than %d GB; lower the dpi or quality, or select fewer pages.", maxOutputBytes>>30)
	e.Err = err
	return e
}

// checkOutputSize refuses a single image larger than maxOutputBytes.
func checkOutputSize(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("poppler: stat output: %w", err)
	}
	if st.Size() > maxOutputBytes {
		return tooLarge(errTooLarge)
	}
	return nil
}

// writeZip writes entries, in order, into a zip archive at path, removing
// each image once it is in, so the images and the archive are not both on
// disk whole. Images are stored, not deflated: JPEG and PNG are compressed
// already, and deflating them again costs time for nothing.
func writeZip(ctx context.Context, path string, entries []zipEntry) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("poppler: create archive: %w", err)
	}
	defer f.Close()
	buf := bufio.NewWriterSize(f, 1<<20)
	zw := zip.NewWriter(&cappedWriter{w: buf, left: maxOutputBytes})
	modified := time.Now()
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Store, Modified: modified})
		if err != nil {
			return zipError(err)
		}
		if err := copyFile(w, e.path); err != nil {
			return zipError(err)
		}
		_ = os.Remove(e.path)
	}
	if err := zw.Close(); err != nil {
		return zipError(err)
	}
	if err := buf.Flush(); err != nil {
		return zipError(err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("poppler: close archive: %w", err)
	}
	return nil
}

func copyFile(w io.Writer, path string) error {
	r, err := os.Open(path)
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = io.Copy(w, r)
	return err
}

// zipError reports a failure to write the archive: file_too_large past
// maxOutputBytes, otherwise internal (the disk failed, not the input).
func zipError(err error) error {
	if errors.Is(err, errTooLarge) {
		return tooLarge(err)
	}
	return fmt.Errorf("poppler: write archive: %w", err)
}

// cappedWriter passes writes to w until left bytes have been written, then
// fails with errTooLarge.
type cappedWriter struct {
	w    io.Writer
	left int64
}

func (c *cappedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > c.left {
		return 0, errTooLarge
	}
	n, err := c.w.Write(p)
	c.left -= int64(n)
	return n, err
}
