package poppler

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"

	docmill "github.com/docmill/docmill"
)

// maxRedactBoxes bounds the boxes of one redact-pdf run, found and given
// together: past it the job fails rather than hold an unbounded list. A
// page of dense text has about 500 words.
const maxRedactBoxes = 1_000_000

// rect is a box on a page in points, from the top left corner of the page
// as it is shown (its crop box, turned by its rotation).
type rect struct{ x0, y0, x1, y1 float64 }

// pageRedactions is what redact-pdf blacks out on one page: its boxes,
// and how many redactions they make (a match of several words is one).
type pageRedactions struct {
	boxes []rect
	count int
}

// textWord is a word of a line with its box.
type textWord struct {
	text string
	box  rect
}

// layoutScan finds the words to black out in pdftotext's -bbox-layout
// XHTML, made with -cropbox, where a word's box is in points from the top
// left corner of the page as shown.
type layoutScan struct {
	match  textMatcher
	search map[int]bool // the pages to search; nil: every page
	pages  map[int]*pageRedactions
	boxes  int             // boxes so far, all pages
	texts  map[string]bool // the texts matched, up to maxFoundTexts
}

// maxFoundTexts bounds the distinct texts redact-pdf passes to its step
// to look for in bookmark titles; longer ones than maxFoundTextLen are
// not passed (no title is that long in practice).
const (
	maxFoundTexts   = 2000
	maxFoundTextLen = 300
)

// scan finds the matches of s.match in the layout at path, whose first
// page is page first of the document, and adds the boxes of the words
// they touch to s.pages. A match spans words of one line (as pdftotext
// groups them), never two lines.
func (s *layoutScan) scan(path string, first int) error {
	page := first - 1
	var words []textWord
	var word *textWord
	return eachLayoutTokenIn(path, func(tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "page":
				page++
			case "line":
				words = words[:0]
			case "word":
				words = append(words, textWord{box: rect{attrFloat(t.Attr, "xMin"), attrFloat(t.Attr, "yMin"), attrFloat(t.Attr, "xMax"), attrFloat(t.Attr, "yMax")}})
				word = &words[len(words)-1]
			}
		case xml.CharData:
			if word != nil {
				word.text += strings.TrimSpace(string(t))
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "word":
				word = nil
			case "line":
				if s.search == nil || s.search[page] {
					return s.line(page, words)
				}
			}
		}
		return nil
	})
}

// line matches one line's words and records the boxes of the words each
// match touches.
func (s *layoutScan) line(page int, words []textWord) error {
	var b strings.Builder
	starts := make([]int, len(words))
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		starts[i] = b.Len()
		b.WriteString(w.text)
	}
	line := b.String()
	spans := s.match.find(line)
	if len(spans) == 0 {
		return nil
	}
	pr := s.pages[page]
	if pr == nil {
		pr = &pageRedactions{}
		s.pages[page] = pr
	}
	for _, sp := range spans {
		pr.count++
		if text := line[sp.start:sp.end]; len(s.texts) < maxFoundTexts && len(text) <= maxFoundTextLen {
			s.texts[text] = true
		}
		for i, w := range words {
			if starts[i] < sp.end && starts[i]+len(w.text) > sp.start {
				pr.boxes = append(pr.boxes, w.box)
				s.boxes++
			}
		}
	}
	if s.boxes > maxRedactBoxes {
		return docmill.LimitExceeded(fmt.Sprintf("The document holds more than %d words to black out", maxRedactBoxes))
	}
	return nil
}

// attrFloat returns the named attribute as a number, 0 when it is absent
// or not a finite number.
func attrFloat(attrs []xml.Attr, name string) float64 {
	for _, a := range attrs {
		if a.Name.Local == name {
			if v, err := strconv.ParseFloat(a.Value, 64); err == nil && !math.IsNaN(v) && math.Abs(v) < 1e9 {
				return v
			}
		}
	}
	return 0
}
