package poppler

import (
	"context"
	"errors"
	"fmt"
	"os"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ziparchive"
)

// zipEntry is one file of an output archive: its name in the archive and
// where it is on disk.
type zipEntry struct{ name, path string }

// tooLarge is the public form of an output over maxBytes
// (Limits.RenderOutputBytes).
func tooLarge(err error, maxBytes int64) error {
	e := docmill.Errorf(docmill.CodeFileTooLarge,
		"The images would total more than %d MB; lower the dpi or quality, or select fewer pages.", maxBytes>>20)
	e.Err = err
	return e
}

// checkOutputSize refuses a single image larger than maxBytes.
func checkOutputSize(path string, maxBytes int64) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("poppler: stat output: %w", err)
	}
	if st.Size() > maxBytes {
		return tooLarge(ziparchive.ErrTooLarge, maxBytes)
	}
	return nil
}

// writeZip writes entries, in order, into a zip archive at path, removing
// each image once it is in, so the images and the archive are not both on
// disk whole. Images are stored, not deflated: JPEG and PNG are compressed
// already, and deflating them again costs time for nothing. The archive
// is held to maxBytes.
func writeZip(ctx context.Context, path string, entries []zipEntry, maxBytes int64) error {
	return writeEntries(ctx, path, entries, maxBytes, false, tooLarge)
}

// writeEntries writes entries, in order, into a zip archive at path of at
// most maxBytes, deflated or stored, removing each file once it is in.
// An archive past maxBytes is refused with tooBig's error.
func writeEntries(ctx context.Context, path string, entries []zipEntry, maxBytes int64, deflate bool, tooBig func(err error, maxBytes int64) error) error {
	zw, err := ziparchive.Create(path, maxBytes)
	if err != nil {
		return fmt.Errorf("poppler: %w", err)
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			zw.Close()
			return err
		}
		if err := zw.AddFile(e.name, e.path, deflate); err != nil {
			zw.Close()
			return zipError(err, maxBytes, tooBig)
		}
		_ = os.Remove(e.path)
	}
	return zipError(zw.Close(), maxBytes, tooBig)
}

// zipError reports a failure to write the archive: tooBig's error past
// maxBytes, otherwise internal (the disk failed, not the input).
func zipError(err error, maxBytes int64, tooBig func(err error, maxBytes int64) error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ziparchive.ErrTooLarge) {
		return tooBig(err, maxBytes)
	}
	return fmt.Errorf("poppler: write archive: %w", err)
}
