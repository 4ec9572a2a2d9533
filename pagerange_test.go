package docmill

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParsePageRanges(t *testing.T) {
	tests := []struct {
		in      string
		want    []PageRange
		wantErr string // substring of the error; "" for success
	}{
		{"", nil, ""},
		{"all", nil, ""},
		{"ALL", nil, ""},
		{"  all  ", nil, ""},
		{"1", []PageRange{{1, 1}}, ""},
		{"1-3", []PageRange{{1, 3}}, ""},
		{"1-3,5,8-", []PageRange{{1, 3}, {5, 5}, {8, 0}}, ""},
		{" 1 - 3 , 5 ", []PageRange{{1, 3}, {5, 5}}, ""},
		{"-3", []PageRange{{1, 3}}, ""},
		{"8-", []PageRange{{8, 0}}, ""},
		{"3-3", []PageRange{{3, 3}}, ""},
		{"5,1,5", []PageRange{{5, 5}, {1, 1}, {5, 5}}, ""},
		{"100000", []PageRange{{MaxPageNumber, MaxPageNumber}}, ""},
		{"3-1", nil, `backwards range "3-1"`},
		{"0", nil, `"0"`},
		{"1-0", nil, `"0"`},
		{"-1", []PageRange{{1, 1}}, ""},
		{"1,,2", nil, "empty item"},
		{"1,", nil, "empty item"},
		{",1", nil, "empty item"},
		{"a", nil, `"a"`},
		{"1-b", nil, `"b"`},
		{"1-3-5", nil, `"3-5"`},
		{"1.5", nil, `"1.5"`},
		{"100001", nil, "above the limit of 100000"},
		{"1-999999999", nil, "above the limit"},
		{"99999999999999999999", nil, "page number"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePageRanges(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParsePageRanges(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("ParsePageRanges(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestPages(t *testing.T) {
	tests := []struct {
		sel       string
		pageCount int
		want      []int
		wantErr   string
	}{
		{"", 3, []int{1, 2, 3}, ""},
		{"all", 1, []int{1}, ""},
		{"1-3,5,8-", 9, []int{1, 2, 3, 5, 8, 9}, ""},
		{"8-", 8, []int{8}, ""},
		{"-2", 5, []int{1, 2}, ""},
		{"2,2,1", 2, []int{2, 2, 1}, ""},
		{"4", 4, []int{4}, ""},
		{"5", 4, nil, "selects page 5, but the document has 4 page(s)"},
		{"2-6", 4, nil, "selects page 6, but the document has 4 page(s)"},
		{"9-", 4, nil, "selects page 9, but the document has 4 page(s)"},
		{"1,7-8", 4, nil, "selects page 8"},
		{"all", 0, nil, "has 0 page(s)"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s of %d", tt.sel, tt.pageCount), func(t *testing.T) {
			ranges, err := ParsePageRanges(tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Pages(ranges, tt.pageCount)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Pages = %v, %v; want error containing %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("Pages = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestFormatPages(t *testing.T) {
	for _, tt := range []struct {
		pages []int
		want  string
	}{
		{nil, ""},
		{[]int{1}, "1"},
		{[]int{1, 2, 3, 5}, "1-3,5"},
		{[]int{2, 4, 5, 6, 9, 10}, "2,4-6,9-10"},
	} {
		if got := FormatPages(tt.pages); got != tt.want {
			t.Errorf("FormatPages(%v) = %q, want %q", tt.pages, got, tt.want)
		}
	}
}
