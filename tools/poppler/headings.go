package poppler

import (
	"encoding/xml"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	docmill "github.com/docmill/docmill"
)

// How edit-bookmarks' from_headings tells headings from body text in
// pdftotext's -bbox-layout output, where a line's height is its font
// size. The body size is the size that holds the most characters; a
// heading's is at least headingRatio times it (a bold run of body text is
// not a heading) and at least minHeadingGap points more (tiny fonts).
// Sizes are compared in sizeStep buckets, since the same font gives
// heights that differ in the last digits from line to line.
const (
	headingRatio  = 1.15
	minHeadingGap = 1.0
	sizeStep      = 0.5
	// maxHeadingLevel is how many heading sizes become outline levels:
	// a fact of how documents are set (title, section, subsection), not
	// a cost.
	maxHeadingLevel = 3
)

// textLine is one line of text as pdftotext lays it out: its page, its
// block on the page (lines of one heading share a block), its top (y
// from the top of the page), its size bucket and its words.
type textLine struct {
	page, block int
	top, size   float64
	// left and right are the line's xMin and xMax (pdf-to-word's
	// paragraphs).
	left, right float64
	text        string
	// seq is the line's place in the document's reading order, from 1.
	seq int
	// words are the line's words with their spans, when the scan was
	// asked for them (scanLayoutLines): pdf-to-markdown's table cells.
	words []wordSpan
}

// wordSpan is a word of a line and its xMin and xMax.
type wordSpan struct {
	left, right float64
	text        string
}

// scanLines calls fn for every line of the -bbox-layout XHTML at path,
// in reading order. The document is read as a stream: its size is
// bounded by the run's output cap, not by memory.
func scanLines(path string, fn func(textLine)) error { return scanLayoutLines(path, false, fn) }

// scanLayoutLines is scanLines, with each line's words and their spans
// (textLine.words) when withWords is set, which a caller that keeps the
// lines holds in memory beside their text.
func scanLayoutLines(path string, withWords bool, fn func(textLine)) error {
	var cur textLine
	var words []string
	var span wordSpan
	inLine, inWord := false, false
	return eachLayoutTokenIn(path, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "page":
				cur.page++
			case "block":
				cur.block++
			case "line":
				inLine, words, cur.words = true, words[:0], nil
				cur.top, cur.size = lineBox(t.Attr)
				cur.left, cur.right = lineSpan(t.Attr)
			case "word":
				inWord = inLine
				span.left, span.right = lineSpan(t.Attr)
			}
		case xml.CharData:
			if inWord {
				words = append(words, strings.TrimSpace(string(t)))
				if withWords {
					span.text = words[len(words)-1]
					cur.words = append(cur.words, span)
				}
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "word":
				inWord = false
			case "line":
				inLine = false
				if cur.text = strings.TrimSpace(strings.Join(words, " ")); cur.text != "" && cur.size > 0 {
					cur.seq++
					fn(cur)
				}
			}
		}
		return nil
	})
}

// lineBox returns a line's top, yMin, and its height, yMax - yMin, in
// sizeStep buckets.
func lineBox(attrs []xml.Attr) (top, size float64) {
	var yMin, yMax float64
	for _, a := range attrs {
		v, err := strconv.ParseFloat(a.Value, 64)
		if err != nil {
			continue
		}
		switch a.Name.Local {
		case "yMin":
			yMin = v
		case "yMax":
			yMax = v
		}
	}
	return yMin, math.Round((yMax-yMin)/sizeStep) * sizeStep
}

// lineSpan returns a line's, or a word's, xMin and xMax.
func lineSpan(attrs []xml.Attr) (left, right float64) {
	for _, a := range attrs {
		v, err := strconv.ParseFloat(a.Value, 64)
		if err != nil {
			continue
		}
		switch a.Name.Local {
		case "xMin":
			left = v
		case "xMax":
			right = v
		}
	}
	return left, right
}

// heading is a heading found in the text: its page, level (1 the
// largest), top on the page and title.
type heading struct {
	page, level int
	top         float64
	title       string
}

// findHeadings reads the -bbox-layout output at path twice: once to find
// the body size, once to take the lines clearly larger than it as
// headings. Consecutive lines of one block in one size are one heading.
// The largest heading size is level 1, the next level 2, the rest level
// 3. Headings without a letter (page numbers, rules) are skipped, and so
// are running heads (runningHead); a title is cut to
// docmill.MaxBookmarkTitle characters, and the first docmill.MaxBookmarks
// headings are kept.
func findHeadings(path string) ([]heading, error) {
	chars := map[float64]int{}
	pages := 0
	err := scanLines(path, func(l textLine) {
		chars[l.size] += utf8.RuneCountInString(l.text)
		pages = max(pages, l.page)
	})
	if err != nil {
		return nil, err
	}
	body, most := 0.0, -1
	for size, n := range chars {
		if n > most || (n == most && size < body) {
			body, most = size, n
		}
	}
	var sizes []float64 // heading sizes, largest first
	for size := range chars {
		if size >= body*headingRatio && size >= body+minHeadingGap {
			sizes = append(sizes, size)
		}
	}
	slices.Sort(sizes)
	slices.Reverse(sizes)
	level := func(size float64) int {
		return min(slices.Index(sizes, size)+1, maxHeadingLevel)
	}
	var out []heading
	var last textLine
	err = scanLines(path, func(l textLine) {
		if !slices.Contains(sizes, l.size) {
			last = textLine{}
			return
		}
		n := len(out)
		// The heading goes on in the next line of its block, or on the
		// same line in another block (a section number set apart).
		goesOn := last.page == l.page && last.size == l.size && (last.block == l.block || math.Abs(last.top-l.top) < 1)
		if n > 0 && goesOn {
			out[n-1].title += " " + l.text
		} else if n < docmill.MaxBookmarks {
			out = append(out, heading{page: l.page, level: level(l.size), top: l.top, title: l.text})
		}
		last = l
	})
	if err != nil {
		return nil, err
	}
	running := runningHeads(out, pages)
	return slices.DeleteFunc(out, func(h heading) bool {
		return !strings.ContainsFunc(h.title, unicode.IsLetter) || running[h.title]
	}), nil
}

// runningHeads returns the titles of headings that recur as running
// heads do, the document's or a chapter's title in the same place on
// its pages: at the same height (within a few points) on at least 3 of
// the document's pages and more than half of them. A section title that
// merely recurs ("Summary" in every chapter) is at other heights.
func runningHeads(headings []heading, pages int) map[string]bool {
	type place struct {
		title  string
		height float64
	}
	onPages := map[place]map[int]bool{}
	for _, h := range headings {
		k := place{h.title, math.Round(h.top / 4)}
		if onPages[k] == nil {
			onPages[k] = map[int]bool{}
		}
		onPages[k][h.page] = true
	}
	running := map[string]bool{}
	for k, set := range onPages {
		if len(set) >= 3 && 2*len(set) > pages {
			running[k.title] = true
		}
	}
	return running
}

// outlineOf nests headings into bookmarks: each goes under the last
// heading of a higher level before it, or at the top.
func outlineOf(headings []heading) []docmill.Bookmark {
	type node struct {
		level    int
		mark     docmill.Bookmark
		children []*node
	}
	root := &node{level: 0}
	stack := []*node{root} // the open headings, root first
	for _, h := range headings {
		for len(stack) > 1 && stack[len(stack)-1].level >= h.level {
			stack = stack[:len(stack)-1]
		}
		n := &node{level: h.level, mark: docmill.Bookmark{Title: cutTitle(h.title), Page: h.page}}
		parent := stack[len(stack)-1]
		parent.children = append(parent.children, n)
		stack = append(stack, n)
	}
	var build func(nodes []*node) []docmill.Bookmark
	build = func(nodes []*node) []docmill.Bookmark {
		var out []docmill.Bookmark
		for _, n := range nodes {
			n.mark.Children = build(n.children)
			out = append(out, n.mark)
		}
		return out
	}
	return build(root.children)
}

// cutTitle cuts s to docmill.MaxBookmarkTitle characters.
func cutTitle(s string) string {
	if utf8.RuneCountInString(s) <= docmill.MaxBookmarkTitle {
		return s
	}
	return string([]rune(s)[:docmill.MaxBookmarkTitle-1]) + "…"
}
