package pdfops

import (
	"slices"
	"strconv"

	docmill "github.com/docmill/docmill"
)

// span is an inclusive range of existing pages, resolved against a
// document: 1 <= from <= to <= page count.
type span struct {
	from, to int
}

// pages returns the number of pages in s.
func (s span) pages() int { return s.to - s.from + 1 }

// label names s the way output files do: "5" or "8-12".
func (s span) label() string {
	if s.from == s.to {
		return strconv.Itoa(s.from)
	}
	return strconv.Itoa(s.from) + "-" + strconv.Itoa(s.to)
}

// resolveSpans resolves parsed page ranges against a document of
// pageCount pages, in the order given, without listing their pages, so
// that a selection repeating "1-" many times costs nothing. Nil ranges
// ("all") select every page. A page past the end is an invalid_parameter
// error naming field, worded by docmill.Pages so that every tool reports
// it the same way.
func resolveSpans(field string, ranges []docmill.PageRange, pageCount int) ([]span, error) {
	if ranges == nil {
		return []span{{1, pageCount}}, nil
	}
	out := make([]span, 0, len(ranges))
	for _, r := range ranges {
		if r.From > pageCount || r.To > pageCount {
			// docmill.Pages checks a range before listing its pages, so
			// this call costs nothing and only words the error.
			if _, err := docmill.Pages([]docmill.PageRange{r}, pageCount); err != nil {
				return nil, docmill.ParamError(field, "%s", err)
			}
		}
		s := span{from: r.From, to: r.To}
		if s.to == 0 {
			s.to = pageCount
		}
		out = append(out, s)
	}
	return out, nil
}

// totalPages returns the pages of spans counted with repeats.
func totalPages(spans []span) int {
	n := 0
	for _, s := range spans {
		n += s.pages()
	}
	return n
}

// mergeSpans returns the union of spans as sorted, disjoint spans: the
// selected pages in document order with duplicates collapsed.
func mergeSpans(spans []span) []span {
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b span) int { return a.from - b.from })
	var out []span
	for _, s := range sorted {
		if n := len(out); n > 0 && s.from <= out[n-1].to+1 {
			out[n-1].to = max(out[n-1].to, s.to)
			continue
		}
		out = append(out, s)
	}
	return out
}

// complementSpans returns the pages of a pageCount-page document that
// merged (sorted, disjoint spans) does not cover, as spans.
func complementSpans(merged []span, pageCount int) []span {
	var out []span
	next := 1
	for _, s := range merged {
		if s.from > next {
			out = append(out, span{next, s.from - 1})
		}
		next = s.to + 1
	}
	if next <= pageCount {
		out = append(out, span{next, pageCount})
	}
	return out
}

// listPages lists the pages of spans in order, repeats kept. Callers bound
// totalPages(spans) first.
func listPages(spans []span) []int {
	out := make([]int, 0, totalPages(spans))
	for _, s := range spans {
		for p := s.from; p <= s.to; p++ {
			out = append(out, p)
		}
	}
	return out
}
