package poppler

import "math"

// minColumnRows is how many rows of two cells or more must start a
// cell, or hold a word inside a cell, at one left edge for
// splitAtColumnStarts to take it for a column's: three, one of them a
// cell's start.
const minColumnRows = 3

// splitAtColumnStarts cuts the cells of rows of two cells or more before
// each word that starts where a column does: at the left edge of a cell
// of such a row (within a point), where cells or words inside cells of
// minColumnRows such rows in all start. A spreadsheet sets a number on
// the right of its column and the text of the next column on the left of
// its own, often a word space apart, so that lineCells reads "34000.5
// Anna Berg" as one cell; the header's "Manager", starting a cell where
// "Anna" starts, and the rows below it, whose names all start there,
// tell the column apart. So does a table whose columns are a word space
// apart only beside their widest cell. A row that is one cell wide
// (running text) is never cut.
func splitAtColumnStarts(rows []tableRow) {
	bucket := func(x float64) int { return int(math.Round(x)) }
	starts := map[int]int{} // the rows with a cell starting at each left edge, in points
	for _, r := range rows {
		if len(r.cells) >= 2 {
			seen := map[int]bool{}
			for _, c := range r.cells {
				if b := bucket(c.left); !seen[b] {
					seen[b] = true
					starts[b]++
				}
			}
		}
	}
	// startOf is the start a word at x is at, and whether there is one.
	startOf := func(x float64) (int, bool) {
		b := bucket(x)
		for _, k := range [3]int{b, b - 1, b + 1} {
			if starts[k] > 0 {
				return k, true
			}
		}
		return 0, false
	}
	hits := map[int]int{} // rows with a word inside a cell at each start
	for _, r := range rows {
		if len(r.cells) < 2 {
			continue
		}
		seen := map[int]bool{}
		for _, c := range r.cells {
			for _, w := range c.words[min(1, len(c.words)):] {
				if k, ok := startOf(w.left); ok && !seen[k] {
					seen[k] = true
					hits[k]++
				}
			}
		}
	}
	for i := range rows {
		if len(rows[i].cells) < 2 {
			continue
		}
		var cells []cell
		for _, c := range rows[i].cells {
			from := 0
			for j := 1; j < len(c.words); j++ {
				if k, ok := startOf(c.words[j].left); ok && starts[k]+hits[k] >= minColumnRows {
					cells = append(cells, cellOf(c.words[from:j]))
					from = j
				}
			}
			if from == 0 {
				cells = append(cells, c)
				continue
			}
			cells = append(cells, cellOf(c.words[from:]))
		}
		rows[i].cells = cells
	}
}
