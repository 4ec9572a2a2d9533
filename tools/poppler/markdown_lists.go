package poppler

import (
	"math"
	"unicode/utf8"
)

// How pdf-to-markdown finds the items of a list whose bullets are drawn
// as shapes, not characters (Chromium draws a disc so), which the text
// does not show: a block of lines all starting at one left edge
// indented past the page's text margin by at least shapeListIndent
// sizes, at least two of them ending short of the page's right edge by
// more than shortLine sizes, is a list, each line an item unless the
// line before it runs to the right edge (an item wrapped). Such a block
// is rarely anything else: an indented quotation runs its lines to the
// edge but its last.
const shapeListIndent = 1.5

// markShapeLists returns lines with a bullet ("•") put before each line
// that starts an item of a list whose bullets are shapes (see
// shapeListIndent), so that the reflow makes it an item.
func markShapeLists(lines []textLine) []textLine {
	for start := 0; start < len(lines); {
		end := start
		for end < len(lines) && lines[end].page == lines[start].page {
			end++
		}
		markPageLists(lines[start:end])
		start = end
	}
	return lines
}

// markPageLists is markShapeLists on the lines of one page.
func markPageLists(lines []textLine) {
	margin, right := pageMargins(lines)
	for start := 0; start < len(lines); {
		end := start
		for end < len(lines) && lines[end].block == lines[start].block {
			end++
		}
		block := lines[start:end]
		start = end
		if len(block) < 2 || block[0].left-margin < shapeListIndent*block[0].size {
			continue
		}
		list, short := true, 0
		for _, l := range block {
			_, marked := listMarker(l.text)
			list = list && !marked && math.Abs(l.left-block[0].left) < 1
			if right-l.right > shortLine*l.size {
				short++
			}
		}
		if !list || short < 2 {
			continue
		}
		for i := range block {
			if i == 0 || right-block[i-1].right > shortLine*block[i].size {
				block[i].text = "• " + block[i].text
			}
		}
	}
}

// pageMargins returns the page's text margin, the left edge that starts
// the most characters (the body's), and its right edge, the rightmost
// line's.
func pageMargins(lines []textLine) (margin, right float64) {
	chars := map[float64]int{}
	for _, l := range lines {
		chars[math.Round(l.left)] += utf8.RuneCountInString(l.text)
		right = max(right, l.right)
	}
	most := -1
	for left, n := range chars {
		if n > most || n == most && left < margin {
			margin, most = left, n
		}
	}
	return margin, right
}
