package poppler

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/docmill/docmill/sandbox"
)

// pageRun is a contiguous range of pages, first to last inclusive, that
// one pdftoppm process renders.
type pageRun struct{ first, last int }

// splitRuns cuts pages (sorted, without repeats) into contiguous runs for
// slots processes at once: about len(pages)/slots pages each, and a new run
// at every gap, since pdftoppm renders only ranges (-f/-l). A run per slot
// keeps every core busy while paying for the parse of the document once
// per core; gaps in a selection cost an extra process each, which the
// engine's slots queue up.
func splitRuns(pages []int, slots int) []pageRun {
	if len(pages) == 0 {
		return nil
	}
	slots = max(1, slots)
	size := (len(pages) + slots - 1) / slots
	var runs []pageRun
	cur := pageRun{pages[0], pages[0]}
	n := 1
	for _, p := range pages[1:] {
		if p != cur.last+1 || n == size {
			runs = append(runs, cur)
			cur, n = pageRun{p, p}, 0
		}
		cur.last = p
		n++
	}
	return append(runs, cur)
}

// renderer runs pdftoppm on one document with the same options.
type renderer struct {
	engine *sandbox.Engine
	src    string   // the PDF, absolute
	dir    string   // the job's work directory, absolute
	args   []string // resolution and format options
}

// renderAll renders every run at once (the engine's slots bound how many
// processes really run) and returns the image of each page by number. The
// first run to fail cancels the others; its error is the one returned.
func (r renderer) renderAll(ctx context.Context, runs []pageRun) (map[int]string, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		mu     sync.Mutex
		images = map[int]string{}
		wg     sync.WaitGroup
	)
	for i, run := range runs {
		wg.Go(func() {
			got, err := r.render(ctx, i, run)
			if err != nil {
				cancel(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for p, path := range got {
				images[p] = path
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return images, nil
}

// render runs pdftoppm on one run of pages, into a directory of its own,
// and returns the images it wrote by page number. A page of the run without
// an image is an internal error: pdftoppm said it succeeded.
func (r renderer) render(ctx context.Context, i int, run pageRun) (map[int]string, error) {
	out := filepath.Join(r.dir, fmt.Sprintf("render-%03d", i))
	if err := os.Mkdir(out, 0o700); err != nil {
		return nil, fmt.Errorf("poppler: render dir: %w", err)
	}
	args := append([]string{"-f", strconv.Itoa(run.first), "-l", strconv.Itoa(run.last)}, r.args...)
	args = append(args, r.src, filepath.Join(out, "p"))
	if _, err := r.engine.Run(ctx, sandbox.Cmd{Args: args, Dir: r.dir}); err != nil {
		return nil, engineError(err, "rendering it")
	}
	images, err := listImages(out)
	if err != nil {
		return nil, err
	}
	for p := run.first; p <= run.last; p++ {
		if _, ok := images[p]; !ok {
			return nil, fmt.Errorf("poppler: pdftoppm made no image of page %d", p)
		}
	}
	return images, nil
}

// listImages maps the files pdftoppm wrote in dir ("p-007.jpg": it pads
// page numbers to the width of the document's page count) to their page
// numbers.
func listImages(dir string) (map[int]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("poppler: list images: %w", err)
	}
	images := make(map[int]string, len(entries))
	for _, e := range entries {
		name := strings.TrimPrefix(e.Name(), "p-")
		num, _, _ := strings.Cut(name, ".")
		p, err := strconv.Atoi(num)
		if err != nil || name == e.Name() {
			return nil, errors.New("poppler: unexpected file " + e.Name() + " from pdftoppm")
		}
		images[p] = filepath.Join(dir, e.Name())
	}
	return images, nil
}
