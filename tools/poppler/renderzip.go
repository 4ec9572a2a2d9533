package poppler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ziparchive"
)

// finishedRun is a run of pages that pdftoppm has drawn: its index among
// the runs and its images by page number.
type finishedRun struct {
	i      int
	images map[int]string
}

// renderToZip renders runs (renderEach) and writes their images into a
// zip archive in workDir as the runs end, in page order: the archive is
// written while the last runs are drawn rather than after them. Entries
// are named after the client's file and the page number, zero-padded to
// the width of the document's page count. The archive is held to
// maxBytes; passing it stops the rendering (file_too_large). It returns
// the archive's path.
func renderToZip(ctx context.Context, f imageFormat, r renderer, runs []pageRun, slots int, filename, workDir string, count int, maxBytes int64) (string, error) {
	path := filepath.Join(workDir, "images.zip")
	zw, err := ziparchive.Create(path, maxBytes)
	if err != nil {
		return "", fmt.Errorf("poppler: %w", err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	width := len(strconv.Itoa(count))
	name := func(p int) string {
		return docmill.ResultName(filename, ".pdf", fmt.Sprintf("-%0*d.%s", width, p, f.ext))
	}
	finished := make(chan finishedRun, len(runs)) // never full: a send never waits
	zipped := make(chan error, 1)
	go func() {
		err := zipInOrder(zw, runs, finished, name)
		if err != nil {
			cancel(zipError(err, maxBytes))
		}
		zipped <- err
	}()
	renderErr := r.renderEach(ctx, runs, slots, func(i int, images map[int]string) error {
		finished <- finishedRun{i, images}
		return nil
	})
	close(finished)
	if zipErr := <-zipped; zipErr != nil {
		return "", context.Cause(ctx)
	}
	if renderErr != nil {
		return "", renderErr
	}
	return path, nil
}

// zipInOrder adds the images of each run that arrives on finished to zw,
// in the runs' order (a run that ends early waits for those before it),
// removing each image once it is in, and closes zw once every run is in.
// It returns at the first error, or when finished closes before every run
// came (rendering stopped: the archive is left unfinished).
func zipInOrder(zw *ziparchive.Writer, runs []pageRun, finished <-chan finishedRun, name func(page int) string) error {
	pending := map[int]map[int]string{}
	next := 0
	for fr := range finished {
		pending[fr.i] = fr.images
		for images, ok := pending[next]; ok; images, ok = pending[next] {
			for p := runs[next].first; p <= runs[next].last; p++ {
				if err := zw.AddFile(name(p), images[p], false); err != nil {
					zw.Close()
					return err
				}
				_ = os.Remove(images[p])
			}
			delete(pending, next)
			next++
		}
	}
	if next < len(runs) {
		zw.Close()
		return nil
	}
	return zw.Close()
}
