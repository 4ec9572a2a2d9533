package poppler

import (
	"context"
	"errors"
	"fmt"
	"maps"
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

// minRunPages is the smallest run splitRuns makes, but for a range that
// is shorter. Every run is a jailed pdftoppm process that starts and
// parses the document again; on GeoTopo-komprimiert.pdf (117 pages, 150
// dpi, 2 slots) runs of at least 4 pages taking a 2*slots-th of the rest
// (11 runs) made the tool 1.20-1.24x one pdftoppm, and runs of at least 8
// taking a slots-th (5 runs) 1.50-1.53x.
const minRunPages = 8

// splitRuns cuts pages (sorted, without repeats) into runs for slots
// processes at once, in the order to hand them out. pdftoppm renders only
// ranges (-f/-l), so a gap in the selection starts a new run. With more
// than one slot the runs shrink as the work left does (guided
// scheduling): each takes a slots-th of the pages left, at least
// minRunPages (fewer when the selection is too short to fill every slot
// with runs that long). Handed out in order to whichever process is free,
// the large first runs keep the number of processes small, and the small
// last ones let every slot finish at about the same time, whatever the
// pages cost to draw: in a book, a few pages of figures cost ten times a
// page of text, and equal fixed ranges leave a core idle while another
// draws them.
func splitRuns(pages []int, slots int) []pageRun {
	if len(pages) == 0 {
		return nil
	}
	slots = max(1, slots)
	// A short selection is still spread over every slot.
	least := min(minRunPages, (len(pages)+slots-1)/slots)
	var runs []pageRun
	for i := 0; i < len(pages); {
		size := len(pages) // one slot: one run per range
		if slots > 1 {
			left := len(pages) - i
			size = max(least, (left+slots-1)/slots)
		}
		run := pageRun{pages[i], pages[i]}
		for i++; i < len(pages) && pages[i] == run.last+1 && run.last-run.first+1 < size; i++ {
			run.last = pages[i]
		}
		runs = append(runs, run)
	}
	return runs
}

// renderer runs pdftoppm on one document with the same options.
type renderer struct {
	engine *sandbox.Engine
	src    string   // the PDF, absolute
	dir    string   // the job's work directory, absolute
	args   []string // resolution and format options
}

// renderAll renders runs with at most slots pdftoppm processes at once,
// each taking the next run in order when it is free, and returns the
// image of each page by number. The first run to fail stops the others;
// its error is the one returned.
func (r renderer) renderAll(ctx context.Context, runs []pageRun, slots int) (map[int]string, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		mu     sync.Mutex
		images = map[int]string{}
		next   int // index of the next run to take, under mu
		wg     sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next == len(runs) || ctx.Err() != nil {
			return 0, false
		}
		next++
		return next - 1, true
	}
	for range min(max(1, slots), len(runs)) {
		wg.Go(func() {
			for i, ok := take(); ok; i, ok = take() {
				got, err := r.render(ctx, i, runs[i])
				if err != nil {
					cancel(err)
					return
				}
				mu.Lock()
				maps.Copy(images, got)
				mu.Unlock()
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
