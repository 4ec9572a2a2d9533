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

// parity is which pages of its range a run renders: pdftoppm's -o (odd
// pages only) and -e (even pages only) skip the others without drawing
// them.
type parity int

const (
	everyPage parity = iota
	oddPages
	evenPages
)

// pageRun is a range of pages, first to last inclusive, of which one
// pdftoppm process renders every page, or only the odd or the even ones.
// first and last are themselves rendered pages.
type pageRun struct {
	first, last int
	parity      parity
}

// pages returns the pages r renders, in order.
func (r pageRun) pages() []int {
	step := 1
	if r.parity != everyPage {
		step = 2
	}
	var ps []int
	for p := r.first; p <= r.last; p += step {
		ps = append(ps, p)
	}
	return ps
}

// args returns pdftoppm's options selecting r's pages.
func (r pageRun) args() []string {
	args := []string{"-f", strconv.Itoa(r.first), "-l", strconv.Itoa(r.last)}
	switch r.parity {
	case oddPages:
		args = append(args, "-o")
	case evenPages:
		args = append(args, "-e")
	}
	return args
}

// splitRuns cuts pages (sorted, without repeats) into runs for slots
// processes at once. pdftoppm renders only ranges (-f/-l), so a gap in
// the selection starts a new range. The ranges are cut into slots/2 pieces
// of about equal page counts, and each piece of two pages or more is drawn
// by two processes, one for its odd pages and one for its even ones.
// Interleaving balances the cores to the end: neighbouring pages cost
// about the same to draw, so both halves of a piece finish together,
// where equal consecutive ranges leave a core idle while the other draws
// the heavier range. And every process pays for parsing the document, so
// two runs per piece are cheaper than many small chunks handed out one by
// one. With one slot, each range is one run; an odd slot count leaves one
// slot unused.
func splitRuns(pages []int, slots int) []pageRun {
	if len(pages) == 0 {
		return nil
	}
	slots = max(1, slots)
	pieces := max(1, slots/2)
	var runs []pageRun
	for _, r := range splitRanges(pages, pieces) {
		if slots < 2 || r.first == r.last {
			runs = append(runs, r)
			continue
		}
		odd, even := pageRun{r.first, r.last, oddPages}, pageRun{r.first, r.last, evenPages}
		if r.first%2 == 0 {
			odd.first++
		} else {
			even.first++
		}
		if r.last%2 == 0 {
			odd.last--
		} else {
			even.last--
		}
		runs = append(runs, odd, even)
	}
	return runs
}

// splitRanges cuts pages (sorted, without repeats) into contiguous ranges
// of every page: about len(pages)/pieces pages each, and a new range at
// every gap.
func splitRanges(pages []int, pieces int) []pageRun {
	size := (len(pages) + pieces - 1) / pieces
	var ranges []pageRun
	cur := pageRun{first: pages[0], last: pages[0]}
	n := 1
	for _, p := range pages[1:] {
		if p != cur.last+1 || n == size {
			ranges = append(ranges, cur)
			cur, n = pageRun{first: p, last: p}, 0
		}
		cur.last = p
		n++
	}
	return append(ranges, cur)
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
	args := append(run.args(), r.args...)
	args = append(args, r.src, filepath.Join(out, "p"))
	if _, err := r.engine.Run(ctx, sandbox.Cmd{Args: args, Dir: r.dir}); err != nil {
		return nil, engineError(err, "rendering it")
	}
	images, err := listImages(out)
	if err != nil {
		return nil, err
	}
	for _, p := range run.pages() {
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
