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

// tooLarge is the public form of an output over maxOutputBytes.
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
		return tooLarge(ziparchive.ErrTooLarge)
	}
	return nil
}

// writeZip writes entries, in order, into a zip archive at path, removing
// each image once it is in, so the images and the archive are not both on
// disk whole. Images are stored, not deflated: JPEG and PNG are compressed
// already, and deflating them again costs time for nothing.
func writeZip(ctx context.Context, path string, entries []zipEntry) error {
	zw, err := ziparchive.Create(path, maxOutputBytes)
	if err != nil {
		return fmt.Errorf("poppler: %w", err)
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			zw.Close()
			return err
		}
		if err := zw.AddFile(e.name, e.path, false); err != nil {
			zw.Close()
			return zipError(err)
		}
		_ = os.Remove(e.path)
	}
	return zipError(zw.Close())
}

// zipError reports a failure to write the archive: file_too_large past
// maxOutputBytes, otherwise internal (the disk failed, not the input).
func zipError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, ziparchive.ErrTooLarge) {
		return tooLarge(err)
	}
	return fmt.Errorf("poppler: write archive: %w", err)
}
