package docmill

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// PageRange is an inclusive range of 1-based pages; To == 0 means "to the
// last page".
type PageRange struct {
	From, To int
}

// MaxPageNumber bounds page numbers in a selection, so that a range such as
// "1-999999999" cannot make a tool allocate a huge page list.
const MaxPageNumber = 100_000

// ParsePageRanges parses a page selection: comma-separated pages and ranges,
// such as "1-3,5,8-" ("8-" runs to the last page, "-3" is 1-3). The empty
// string and "all" select every page (nil ranges).
func ParsePageRanges(s string) ([]PageRange, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	if s == "" || strings.EqualFold(s, "all") {
		return nil, nil
	}
	var out []PageRange
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			return nil, errors.New("has an empty item")
		}
		from, to, isRange := strings.Cut(part, "-")
		var r PageRange
		var err error
		if r.From, err = pageNumber(from, 1); err != nil {
			return nil, err
		}
		switch {
		case !isRange:
			r.To = r.From
		case to == "":
			r.To = 0
		default:
			if r.To, err = pageNumber(to, 0); err != nil {
				return nil, err
			}
			if r.To < r.From {
				return nil, fmt.Errorf("has a backwards range %q", part)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

func pageNumber(s string, empty int) (int, error) {
	if s == "" && empty > 0 {
		return empty, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("has %q where a page number (1 or more) belongs", s)
	}
	if n > MaxPageNumber {
		return 0, fmt.Errorf("has page %d, above the limit of %d", n, MaxPageNumber)
	}
	return n, nil
}

// Pages resolves ranges against a document of pageCount pages and returns
// the selected page numbers in order, duplicates kept. Nil ranges select
// every page. A page past the end is an error that names the page count.
// A selection whose repeats come to more than MaxPageNumber pages (or
// pageCount, if more) is an error too, so that "1-,1-,..." cannot make a
// huge page list.
func Pages(ranges []PageRange, pageCount int) ([]int, error) {
	if ranges == nil {
		ranges = []PageRange{{From: 1, To: 0}}
	}
	limit := max(pageCount, MaxPageNumber)
	var out []int
	for _, r := range ranges {
		to := r.To
		if to == 0 {
			to = pageCount
		}
		if r.From > pageCount || to > pageCount {
			return nil, fmt.Errorf("selects page %d, but the document has %d page(s)", max(r.From, to), pageCount)
		}
		if to-r.From+1 > limit-len(out) {
			return nil, fmt.Errorf("selects more than %d pages in all", limit)
		}
		for p := r.From; p <= to; p++ {
			out = append(out, p)
		}
	}
	return out, nil
}

// FormatPages writes ascending page numbers as a page selection that
// ParsePageRanges reads back, runs of consecutive pages as ranges
// ("1-3,5"); no pages is "".
func FormatPages(pages []int) string {
	var b []byte
	for i := 0; i < len(pages); {
		j := i
		for j+1 < len(pages) && pages[j+1] == pages[j]+1 {
			j++
		}
		if len(b) > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(pages[i]), 10)
		if j > i {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(pages[j]), 10)
		}
		i = j + 1
	}
	return string(b)
}
