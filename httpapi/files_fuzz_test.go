package httpapi

import (
	"fmt"
	"strings"
	"testing"
)

// FuzzParseRange checks that parseRange never panics and that what it
// returns can be served: for rangeParts, 1..maxRanges ranges, each within
// the file with first <= last, ascending and not overlapping, which read
// back as themselves; for the other results, no ranges.
//
//	go test ./httpapi -run '^$' -fuzz FuzzParseRange -fuzztime 1m
func FuzzParseRange(f *testing.F) {
	many := func(n, step int) string {
		specs := make([]string, n)
		for i := range specs {
			specs[i] = fmt.Sprintf("%d-%d", step*i, step*i+2)
		}
		return "bytes=" + strings.Join(specs, ",")
	}
	for _, h := range []string{
		"bytes=0-99", "bytes=99999-", "bytes=10-5", "bytes=-0", "bytes=-5", "bytes=-99999",
		"bytes=0-", "bytes=24000-99999", "bytes=0-9,100-109", "bytes=0-0, -3", "bytes=0-4,5-9",
		"bytes=0-10,5-20", "bytes=20-30,0-10", "bytes=0-9,99999-", "bytes=,1-2,,", "Bytes=1-2",
		"items=0-5", "bytes=", "bytes", "", "bytes=1-x", "bytes=--1", "bytes=1 - 2",
		"bytes=99999999999999999999999-", "bytes=0-99999999999999999999999",
		many(16, 1000), many(17, 1000), many(5000, 4),
	} {
		for _, size := range []int64{24578, 100, 1, 0} {
			f.Add(h, size)
		}
	}
	f.Fuzz(func(t *testing.T, header string, size int64) {
		if size < 0 {
			size = -(size + 1)
		}
		ranges, res := parseRange(header, size)
		switch res {
		case rangeWhole, rangeUnsatisfiable:
			if ranges != nil {
				t.Fatalf("parseRange(%q, %d) = %v with result %d", header, size, ranges, res)
			}
			return
		case rangeParts:
		default:
			t.Fatalf("parseRange(%q, %d): result %d", header, size, res)
		}
		if len(ranges) == 0 || len(ranges) > maxRanges {
			t.Fatalf("parseRange(%q, %d) = %d ranges", header, size, len(ranges))
		}
		specs := make([]string, len(ranges))
		for i, ra := range ranges {
			if ra.first < 0 || ra.first > ra.last || ra.last >= size {
				t.Fatalf("parseRange(%q, %d): range %d is %v", header, size, i, ra)
			}
			if i > 0 && ra.first <= ranges[i-1].last {
				t.Fatalf("parseRange(%q, %d): range %d %v overlaps or precedes %v", header, size, i, ra, ranges[i-1])
			}
			specs[i] = fmt.Sprintf("%d-%d", ra.first, ra.last)
		}
		again, res := parseRange("bytes="+strings.Join(specs, ","), size)
		if res != rangeParts || fmt.Sprint(again) != fmt.Sprint(ranges) {
			t.Fatalf("parseRange(%q, %d) = %v, which reads back as %v, %d", header, size, ranges, again, res)
		}
	})
}
