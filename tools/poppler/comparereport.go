package poppler

import (
	"fmt"
	"strings"
	"unicode/utf8"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
)

// How much of the changes the report's summary lists, and how long a
// line of it may be (at 10 points on A4, about 90 characters fit).
const (
	maxListedChanges = 60
	maxQuoteRunes    = 60
	summaryLineRunes = 90
)

// wordChange is one run of differences between two runs of common
// words: indices of removed words of the original and of added words of
// the changed document.
type wordChange struct {
	removed, added []int
}

// textChanges are the word differences of two documents.
type textChanges struct {
	a, b    []pageWord
	changes []wordChange
}

// wordCounts sums the changes: in each, as many words as were both
// removed and added count as changed, the rest as removed or added.
type wordCounts struct{ added, removed, changed int }

func (t *textChanges) counts() wordCounts {
	var c wordCounts
	for _, ch := range t.changes {
		n := min(len(ch.removed), len(ch.added))
		c.changed += n
		c.removed += len(ch.removed) - n
		c.added += len(ch.added) - n
	}
	return c
}

// compareText diffs the words of a and b: the whole documents at once
// when maxEditDistance edits suffice, else page by page (page i of a
// with page i of b), a page pair whose words differ too much counting as
// all removed and all added.
func compareText(a, b []pageWord) *textChanges {
	t := &textChanges{a: a, b: b}
	if script, ok := diffWords(wordTexts(a), wordTexts(b), maxEditDistance); ok {
		t.addScript(script, 0, 0)
		return t
	}
	ra, rb := pageRanges(a), pageRanges(b)
	for p := 1; p < max(len(ra), len(rb)); p++ {
		sa, sb := rangeOf(ra, p), rangeOf(rb, p)
		script, ok := diffWords(wordTexts(a[sa[0]:sa[1]]), wordTexts(b[sb[0]:sb[1]]), maxEditDistance)
		if !ok {
			script = nil
			for i := range sa[1] - sa[0] {
				script = append(script, edit{editDelete, i, 0})
			}
			for i := range sb[1] - sb[0] {
				script = append(script, edit{editInsert, 0, i})
			}
		}
		t.addScript(script, sa[0], sb[0])
	}
	return t
}

// addScript adds the changes of an edit script whose indices start at
// offA and offB.
func (t *textChanges) addScript(script []edit, offA, offB int) {
	var cur wordChange
	flush := func() {
		if len(cur.removed)+len(cur.added) > 0 {
			t.changes = append(t.changes, cur)
		}
		cur = wordChange{}
	}
	for _, e := range script {
		switch e.kind {
		case editKeep:
			flush()
		case editDelete:
			cur.removed = append(cur.removed, offA+e.a)
		case editInsert:
			cur.added = append(cur.added, offB+e.b)
		}
	}
	flush()
}

func wordTexts(words []pageWord) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w.text
	}
	return out
}

// pageRanges returns, by page number, the [start, end) of each page's
// words (words are in page order); index 0 is unused.
func pageRanges(words []pageWord) [][2]int {
	var r [][2]int
	for i, w := range words {
		for len(r) <= w.page {
			r = append(r, [2]int{i, i})
		}
		r[w.page][1] = i + 1
	}
	return r
}

func rangeOf(r [][2]int, p int) [2]int {
	if p < len(r) {
		return r[p]
	}
	return [2]int{}
}

// reportPlan lays out the report: the summary, then for each page number
// in turn the original's page with its removed words boxed, the changed
// document's with its added words boxed, and the diff image of the page,
// each when there is one, up to pdfops.MaxCompareReportPages pages. It
// returns the plan and the diff image files, in the step's file order.
func reportPlan(inputs []docmill.LocalFile, docs [2]*compareInput, t *textChanges, v *visualDiff) (*pdfops.CompareReportPlan, []docmill.LocalFile) {
	var boxes [2]map[int][][4]float64
	boxes[0], boxes[1] = map[int][][4]float64{}, map[int][][4]float64{}
	for _, ch := range t.changes {
		for _, i := range ch.removed {
			boxes[0][t.a[i].page] = append(boxes[0][t.a[i].page], t.a[i].box)
		}
		for _, i := range ch.added {
			boxes[1][t.b[i].page] = append(boxes[1][t.b[i].page], t.b[i].box)
		}
	}
	plan := &pdfops.CompareReportPlan{}
	var files []docmill.LocalFile
	shown := 0
	for p := 1; p <= max(docs[0].pages, docs[1].pages) && len(plan.Items) < pdfops.MaxCompareReportPages-2; p++ {
		shown = p
		for d := range 2 {
			if len(boxes[d][p]) > 0 {
				plan.Items = append(plan.Items, pdfops.CompareReportItem{Doc: d, Page: p, Boxes: boxes[d][p]})
			}
		}
		if path, ok := v.images[p]; ok {
			files = append(files, docmill.LocalFile{Path: path, Filename: fmt.Sprintf("diff-%d.png", p), ContentType: "image/png"})
			plan.Items = append(plan.Items, pdfops.CompareReportItem{Image: 2 + len(files),
				Caption: fmt.Sprintf("Page %d: pixels that differ between the two documents, in red", p)})
		}
	}
	plan.Summary = summaryLines(inputs, docs, t, v, shown)
	return plan, files
}

// summaryLines writes the report's first page(s): what was compared, the
// counts, and the first maxListedChanges changes.
func summaryLines(inputs []docmill.LocalFile, docs [2]*compareInput, t *textChanges, v *visualDiff, shown int) []string {
	c := t.counts()
	lines := []string{
		"Comparison of two PDFs",
		"",
		fmt.Sprintf("Original: %s (%d pages)", inputs[0].Filename, docs[0].pages),
		fmt.Sprintf("Changed: %s (%d pages)", inputs[1].Filename, docs[1].pages),
		"",
	}
	if c == (wordCounts{}) && len(v.differing) == 0 && docs[0].pages == docs[1].pages {
		return append(lines, "The documents are identical: the same words, and every page looks the same.")
	}
	lines = append(lines,
		fmt.Sprintf("Words changed: %d, added: %d, removed: %d", c.changed, c.added, c.removed),
		fmt.Sprintf("Pages that look different: %d%s", len(v.differing), pageList(v.differing)),
	)
	if shown < max(docs[0].pages, docs[1].pages) {
		lines = append(lines, fmt.Sprintf("The report shows pages 1 to %d; later changes are counted, not shown.", shown))
	}
	lines = append(lines, "", "Changes (page numbers of the changed document; of the original for removals):")
	for i, ch := range t.changes {
		if i == maxListedChanges {
			lines = append(lines, fmt.Sprintf("... and %d more", len(t.changes)-i))
			break
		}
		lines = append(lines, changeLine(t, ch))
	}
	lines = append(lines, "",
		"Next: the original's pages with removed and replaced words boxed in red,",
		"the changed document's pages with added and replacing words boxed in green,",
		"and a diff image for each page that looks different.")
	var out []string
	for _, l := range lines {
		out = append(out, wrapLine(l, summaryLineRunes)...)
	}
	return out
}

// changeLine describes one change: page 2: "quick" -> "slow".
func changeLine(t *textChanges, ch wordChange) string {
	removed, added := quoteWords(t.a, ch.removed), quoteWords(t.b, ch.added)
	switch {
	case len(ch.added) == 0:
		return fmt.Sprintf("page %d: removed %s", t.a[ch.removed[0]].page, removed)
	case len(ch.removed) == 0:
		return fmt.Sprintf("page %d: added %s", t.b[ch.added[0]].page, added)
	}
	return fmt.Sprintf("page %d: %s -> %s", t.b[ch.added[0]].page, removed, added)
}

// quoteWords quotes the words at indices, cut to maxQuoteRunes.
func quoteWords(words []pageWord, indices []int) string {
	var b strings.Builder
	for i, w := range indices {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[w].text)
		if utf8.RuneCountInString(b.String()) > maxQuoteRunes {
			break
		}
	}
	s := b.String()
	if r := []rune(s); len(r) > maxQuoteRunes {
		s = string(r[:maxQuoteRunes]) + "..."
	}
	return `"` + s + `"`
}

// pageList formats up to 20 page numbers as " (pages 2, 5)".
func pageList(pages []int) string {
	if len(pages) == 0 {
		return ""
	}
	shown := pages[:min(len(pages), 20)]
	s := make([]string, len(shown))
	for i, p := range shown {
		s[i] = fmt.Sprint(p)
	}
	more := ""
	if len(pages) > len(shown) {
		more = ", ..."
	}
	return " (pages " + strings.Join(s, ", ") + more + ")"
}

// wrapLine breaks l at spaces into lines of at most n runes; a word
// longer than a line is cut.
func wrapLine(l string, n int) []string {
	var out []string
	r := []rune(l)
	for len(r) > n {
		end := n
		for i := n; i > 0; i-- {
			if r[i] == ' ' {
				end = i
				break
			}
		}
		out = append(out, string(r[:end]))
		r = []rune(strings.TrimLeft(string(r[end:]), " "))
	}
	return append(out, string(r))
}
