package poppler

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// How pdf-to-markdown finds tables in a page's lines, from the layout of
// their words alone (pdftotext gives no ruling lines): a line is cut
// into cells where its words are further apart than cellGap times its
// size (words of a sentence are about a quarter of it apart, a table's
// cells a padding and a rule); lines whose tops are within rowTolerance
// sizes of each other are one row; a table is a run of at least two rows
// of at least two cells, no further apart than maxRowGap sizes, whose
// cells line up in columns (each cell in one column, one cell a column
// each row), fill at least minTableFill of the grid, each hold a letter
// or a digit (isWordChar) or dashes alone (isDashes), and are narrow: at
// most maxCellShare of the page's text width (two columns of running
// text are lines of about half of it, side by side, which would
// otherwise read as a table). Neighbouring columns no row fills both of
// are one (joinComplementary). pdf-to-csv and pdf-to-xlsx take the same
// tables.
const (
	cellGap      = 0.6
	rowTolerance = 0.5
	maxRowGap    = 2.5
	maxCellShare = 0.4
	minTableFill = 0.5
)

// isWordChar reports whether r is a letter or a digit: a cell holds one
// at least, where the pieces of a formula set apart (a brace, a bracket,
// an operator alone) do not.
func isWordChar(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// isDashes reports whether s is a table's mark of nothing: one to three
// hyphens or dashes ("-", "–", "—"), which a cell may hold instead of a
// letter or a digit. A formula's minus sign is U+2212, not one of them.
func isDashes(s string) bool {
	n := utf8.RuneCountInString(s)
	return n > 0 && n <= 3 && strings.Trim(s, "-–—") == ""
}

// table is a table found in the text: page is its page, seq the place of its first line
// in the reading order, rows its cells' text, row by row, a cell a
// column, and lines the seq of every line it took.
type table struct {
	page  int
	seq   int
	rows  [][]string
	lines map[int]bool
	// cols are the spans of its columns, left to right; top and bottom
	// the tops of its first and last rows (pdf-to-csv's tables that run
	// on across a page break).
	cols        [][2]float64
	top, bottom float64
}

// cell is a run of a line's words between wide gaps.
type cell struct {
	left, right float64
	text        string
	// words are its words, when its line's were read (splitAtColumnStarts).
	words []wordSpan
}

// tableRow is the cells of a row, left to right, and its top and size.
type tableRow struct {
	page      int
	top, size float64
	cells     []cell
	seqs      []int
}

// pageTables finds the tables among the lines of one page (which carry
// their words), in the order of their rows.
func pageTables(lines []textLine) []table {
	left, right := lines[0].left, lines[0].right
	for _, l := range lines {
		left, right = min(left, l.left), max(right, l.right)
	}
	narrow := maxCellShare * (right - left)
	var out []table
	var run []tableRow
	flush := func() {
		if t, ok := tableOf(run); ok {
			out = append(out, t)
		}
		run = run[:0]
	}
	rows := rowsOfLines(lines)
	splitAtColumnStarts(rows)
	for _, r := range rows {
		fits := len(r.cells) >= 2
		for _, c := range r.cells {
			fits = fits && c.right-c.left <= narrow && (strings.ContainsFunc(c.text, isWordChar) || isDashes(c.text))
		}
		if !fits {
			flush()
			continue
		}
		if n := len(run); n > 0 && (r.top-run[n-1].top > maxRowGap*r.size || tableColumns(append(run, r)) == nil) {
			flush()
		}
		run = append(run, r)
	}
	flush()
	return out
}

// rowsOfLines groups a page's lines into rows by their tops, top to bottom.
func rowsOfLines(lines []textLine) []tableRow {
	sorted := slices.Clone(lines)
	slices.SortStableFunc(sorted, func(a, b textLine) int {
		switch {
		case a.top < b.top:
			return -1
		case a.top > b.top:
			return 1
		}
		return 0
	})
	var rows []tableRow
	for _, l := range sorted {
		n := len(rows)
		if n == 0 || l.top-rows[n-1].top > rowTolerance*l.size {
			rows = append(rows, tableRow{page: l.page, top: l.top, size: l.size})
			n++
		}
		r := &rows[n-1]
		r.cells = append(r.cells, lineCells(l)...)
		r.seqs = append(r.seqs, l.seq)
		r.size = max(r.size, l.size)
	}
	for i := range rows {
		slices.SortFunc(rows[i].cells, func(a, b cell) int {
			switch {
			case a.left < b.left:
				return -1
			case a.left > b.left:
				return 1
			}
			return 0
		})
	}
	return rows
}

// lineCells cuts a line into cells at gaps wider than cellGap sizes,
// but for the gap after a list marker (a tab, often).
func lineCells(l textLine) []cell {
	if len(l.words) == 0 {
		return []cell{{left: l.left, right: l.right, text: l.text}}
	}
	var cells []cell
	start := 0
	_, afterMarker := listMarker(l.words[0].text + " x")
	for i, w := range l.words {
		if i == 0 || w.left-l.words[i-1].right > cellGap*l.size && !(i == 1 && afterMarker) {
			if i > 0 {
				cells[len(cells)-1] = cellOf(l.words[start:i])
			}
			cells = append(cells, cell{})
			start = i
		}
	}
	cells[len(cells)-1] = cellOf(l.words[start:])
	return cells
}

// cellOf is the cell of words, in their order on the line.
func cellOf(words []wordSpan) cell {
	c := cell{left: words[0].left, right: words[0].right, words: words}
	texts := make([]string, len(words))
	for i, w := range words {
		c.right = max(c.right, w.right)
		texts[i] = w.text
	}
	c.text = strings.Join(texts, " ")
	return c
}

// tableColumns returns the columns of rows, the spans of their cells merged
// where they overlap, left to right; nil when they do not line up: a row
// with two cells in one column, or fewer than two columns.
func tableColumns(rows []tableRow) [][2]float64 {
	var spans [][2]float64
	for _, r := range rows {
		for _, c := range r.cells {
			spans = append(spans, [2]float64{c.left, c.right})
		}
	}
	slices.SortFunc(spans, func(a, b [2]float64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	var cols [][2]float64
	for _, s := range spans {
		if n := len(cols); n > 0 && s[0] <= cols[n-1][1] {
			cols[n-1][1] = max(cols[n-1][1], s[1])
			continue
		}
		cols = append(cols, s)
	}
	if len(cols) < 2 {
		return nil
	}
	for _, r := range rows {
		used := make([]bool, len(cols))
		for _, c := range r.cells {
			i := columnOf(cols, c)
			if used[i] {
				return nil
			}
			used[i] = true
		}
	}
	return cols
}

// columnOf is the index of the column of cols that holds c.
func columnOf(cols [][2]float64, c cell) int {
	for i, col := range cols {
		if c.left >= col[0] && c.left <= col[1] {
			return i
		}
	}
	return len(cols) - 1
}

// tableOf makes the table of a run of rows, if it is one: two rows or
// more whose cells line up in two columns or more, filling at least
// minTableFill of the grid.
func tableOf(run []tableRow) (table, bool) {
	cols := tableColumns(run)
	if len(run) < 2 || cols == nil {
		return table{}, false
	}
	cols = joinComplementary(run, cols)
	cells := 0
	for _, r := range run {
		cells += len(r.cells)
	}
	if float64(cells) < minTableFill*float64(len(run)*len(cols)) {
		return table{}, false
	}
	t := table{lines: map[int]bool{}, page: run[0].page, cols: cols, top: run[0].top, bottom: run[len(run)-1].top}
	for _, r := range run {
		row := make([]string, len(cols))
		for _, c := range r.cells {
			i := columnOf(cols, c)
			row[i] = strings.TrimSpace(row[i] + " " + c.text)
		}
		t.rows = append(t.rows, row)
		for _, s := range r.seqs {
			t.lines[s] = true
			if t.seq == 0 || s < t.seq {
				t.seq = s
			}
		}
	}
	return t, true
}

// joinComplementary joins each pair of neighbouring columns of rows that
// no row has a cell in both of: one column aligned two ways, such as a
// header set on the left over numbers set on the right (a spreadsheet's
// default), whose spans do not overlap. Two columns that some row fills
// both of (a header naming each) stay apart. Each column's rows are
// found once, so the work is the cells' and the columns', not their
// product with the joins.
func joinComplementary(rows []tableRow, cols [][2]float64) [][2]float64 {
	users := make([][]int, len(cols)) // the rows with a cell in each column, ascending
	for r, row := range rows {
		for _, c := range row.cells {
			i := columnOf(cols, c)
			if n := len(users[i]); n == 0 || users[i][n-1] != r {
				users[i] = append(users[i], r)
			}
		}
	}
	for i := 0; i+1 < len(cols); {
		if shareRow(users[i], users[i+1]) {
			i++
			continue
		}
		cols[i][1] = cols[i+1][1]
		users[i] = slices.Sorted(slices.Values(append(users[i], users[i+1]...)))
		cols = slices.Delete(cols, i+1, i+2)
		users = slices.Delete(users, i+1, i+2)
	}
	return cols
}

// shareRow reports whether the ascending row lists a and b hold a row
// in common.
func shareRow(a, b []int) bool {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			return true
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return false
}
