package poppler

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// How pdf-to-word rebuilds paragraphs from pdftotext's lines: a line
// starts a new paragraph when it is in another block, on another page
// (unless the sentence runs on), in another size, further below the
// line before than paragraphGap times its size (lines of one paragraph
// are about 1.2 sizes apart), indented from the line before by more than
// indentStep sizes (a first-line indent), or after a line that ends a
// sentence short of its block's right edge by more than shortLine sizes
// (the last line of a paragraph). A line that starts with a list marker
// (listMarker) starts a paragraph, an item of its own, and the item's
// next lines may be indented under its text.
const (
	paragraphGap = 1.75
	indentStep   = 0.8
	shortLine    = 3.0
)

// paragraph is a paragraph of flowing text: its page (where it starts),
// its heading level (0 for body text) and its text, lines joined; left
// and seq are its first line's (its indentation, its place in the
// reading order).
type paragraph struct {
	page, level int
	size        float64
	text        string
	left        float64
	seq         int
}

// reflow joins lines, as scanLines gives them in reading order, into
// paragraphs, and marks as headings those set clearly larger than the
// body text (headingRatio, minHeadingGap), the largest size level 1, at
// most maxHeadingLevel levels.
func reflow(lines []textLine) []paragraph {
	lines = withoutPageNumbers(lines)
	var paras []paragraph
	// text is the last paragraph's text, set on it when the paragraph
	// ends: adding each line to a string would copy the paragraph so far
	// at every line, time quadratic in its length (a sentence running on
	// across 10,000 pages of long lines is some 100 GB of copying).
	var text []byte
	end := func() {
		if len(paras) > 0 {
			paras[len(paras)-1].text = string(text)
		}
	}
	var prev textLine
	rights := blockRights(lines)
	item := false // the paragraph is a list item
	for i, l := range lines {
		_, marked := listMarker(l.text)
		if i > 0 && !marked && continues(prev, l, endsSentence(text), item, rights[[2]int{prev.page, prev.block}]) {
			text = joinLine(text, l.text)
		} else {
			end()
			paras = append(paras, paragraph{page: l.page, size: l.size, left: l.left, seq: l.seq})
			text = append(text[:0], l.text...)
			item = marked
		}
		prev = l
	}
	end()
	levels := headingLevels(lines)
	for i := range paras {
		paras[i].level = levels[paras[i].size]
	}
	return paras
}

// withoutPageNumbers drops page numbers: lines of a number alone in
// their block. They are the page's furniture, not the text, and would
// cut a paragraph that runs on across the page break.
func withoutPageNumbers(lines []textLine) []textLine {
	count := map[[2]int]int{}
	for _, l := range lines {
		count[[2]int{l.page, l.block}]++
	}
	var out []textLine
	for _, l := range lines {
		if count[[2]int{l.page, l.block}] == 1 && len(l.text) <= 4 && strings.Trim(l.text, "0123456789") == "" {
			continue
		}
		out = append(out, l)
	}
	return out
}

// blockRights returns the right edge of each block, by page and block.
func blockRights(lines []textLine) map[[2]int]float64 {
	rights := map[[2]int]float64{}
	for _, l := range lines {
		k := [2]int{l.page, l.block}
		rights[k] = max(rights[k], l.right)
	}
	return rights
}

// continues reports whether line l goes on the paragraph whose last
// line is prev, in a block whose right edge is at right; paraEnds is
// whether the paragraph's text so far ends a sentence, item whether the
// paragraph is a list item (whose next lines are indented under its
// text, past the marker).
func continues(prev, l textLine, paraEnds, item bool, right float64) bool {
	if l.size != prev.size {
		return false
	}
	if l.page != prev.page {
		// A sentence cut by the page break runs on into the next page.
		return !paraEnds && startsLower(l.text)
	}
	if l.block != prev.block {
		return false
	}
	if gap := l.top - prev.top; gap < 0 || gap > paragraphGap*l.size {
		return false
	}
	if l.left-prev.left > indentStep*l.size && !item {
		return false
	}
	return !endsSentence([]byte(prev.text)) || right-prev.right <= shortLine*l.size
}

// joinLine appends line to text, in place when text has room: a word
// hyphenated at the line's end is joined again (the hyphen dropped when
// the next line starts in lower case), other lines are joined with a
// space.
func joinLine(text []byte, line string) []byte {
	if n := len(text); n > 0 && text[n-1] == '-' && startsLower(line) {
		if r, _ := utf8.DecodeLastRune(text[:n-1]); unicode.IsLetter(r) {
			return append(text[:n-1], line...)
		}
	}
	return append(append(text, ' '), line...)
}

func startsLower(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLower(r)
}

func endsSentence(s []byte) bool {
	r, _ := utf8.DecodeLastRune(s)
	return strings.ContainsRune(".!?:;)\"»”", r)
}

// headingLevels maps the sizes of heading lines to their levels: the
// body size is the one holding the most characters; sizes clearly above
// it are headings, the largest level 1.
func headingLevels(lines []textLine) map[float64]int {
	chars := map[float64]int{}
	for _, l := range lines {
		chars[l.size] += utf8.RuneCountInString(l.text)
	}
	var body float64
	for size, n := range chars {
		if n > chars[body] || n == chars[body] && size < body {
			body = size
		}
	}
	var larger []float64
	for size := range chars {
		if size >= body*headingRatio && size >= body+minHeadingGap {
			larger = append(larger, size)
		}
	}
	// Largest first; sizes past maxHeadingLevel share the last level.
	for i := 1; i < len(larger); i++ {
		for j := i; j > 0 && larger[j] > larger[j-1]; j-- {
			larger[j], larger[j-1] = larger[j-1], larger[j]
		}
	}
	levels := map[float64]int{}
	for i, size := range larger {
		levels[size] = min(i+1, maxHeadingLevel)
	}
	return levels
}

// bullets are the characters that mark an item of a bulleted list.
const bullets = "•◦▪▫‣⁃∙·●○■□►➢✓✔–-*"

// listMarker returns the marker a line of a list item starts with, and
// whether it has one: a bullet (bullets), or a number of up to three
// digits followed by "." or ")", or a lower-case letter followed by ")",
// then a space. "2019. The" is not a marker, nor "A. Smith" (initials).
func listMarker(s string) (string, bool) {
	head, rest, ok := strings.Cut(s, " ")
	if !ok || strings.TrimSpace(rest) == "" {
		return "", false
	}
	if r, n := utf8.DecodeRuneInString(head); n == len(head) && strings.ContainsRune(bullets, r) {
		return head, true
	}
	if len(head) < 2 {
		return "", false
	}
	body, end := head[:len(head)-1], head[len(head)-1]
	switch {
	case end != '.' && end != ')':
		return "", false
	case len(body) <= 3 && strings.Trim(body, "0123456789") == "":
		return head, true
	case len(body) == 1 && end == ')' && body[0] >= 'a' && body[0] <= 'z':
		return head, true
	}
	return "", false
}
