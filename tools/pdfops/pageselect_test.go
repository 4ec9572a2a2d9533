package pdfops

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ziparchive"
)

func TestResolveSpans(t *testing.T) {
	tests := []struct {
		sel       string
		pageCount int
		want      []span
		wantErr   string // in the public message; "" for none
	}{
		{"all", 4, []span{{1, 4}}, ""},
		{"1-3,5,8-", 12, []span{{1, 3}, {5, 5}, {8, 12}}, ""},
		{"-2,4-", 4, []span{{1, 2}, {4, 4}}, ""},
		{"3,1,3", 3, []span{{3, 3}, {1, 1}, {3, 3}}, ""},
		{"2,5", 4, nil, `"pages" selects page 5, but the document has 4 page(s)`},
		{"9-", 4, nil, "selects page 9"},
		{"3-7", 4, nil, "selects page 7"},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			ranges, err := docmill.ParsePageRanges(tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			got, err := resolveSpans("pages", ranges, tt.pageCount)
			if tt.wantErr != "" {
				var e *docmill.Error
				if !errors.As(err, &e) || e.Code != docmill.CodeInvalidParameter || !bytes.Contains([]byte(e.Message), []byte(tt.wantErr)) {
					t.Fatalf("err = %v, want invalid_parameter with %q", err, tt.wantErr)
				}
				if len(e.Fields) != 1 || e.Fields[0].Field != "pages" {
					t.Errorf("fields = %v", e.Fields)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("resolveSpans = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestSpanSets(t *testing.T) {
	tests := []struct {
		in         []span
		pageCount  int
		merged     []span
		complement []span
	}{
		{[]span{{2, 2}}, 4, []span{{2, 2}}, []span{{1, 1}, {3, 4}}},
		{[]span{{4, 4}, {1, 1}, {1, 1}}, 4, []span{{1, 1}, {4, 4}}, []span{{2, 3}}},
		{[]span{{1, 2}, {3, 4}}, 4, []span{{1, 4}}, nil},
		{[]span{{2, 5}, {1, 3}, {9, 9}, {7, 8}}, 10, []span{{1, 5}, {7, 9}}, []span{{6, 6}, {10, 10}}},
		{[]span{{1, 10}, {2, 3}}, 10, []span{{1, 10}}, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.in), func(t *testing.T) {
			in := slices.Clone(tt.in)
			merged := mergeSpans(tt.in)
			if !slices.Equal(merged, tt.merged) {
				t.Errorf("mergeSpans = %v, want %v", merged, tt.merged)
			}
			if !slices.Equal(tt.in, in) {
				t.Errorf("mergeSpans changed its argument to %v", tt.in)
			}
			if got := complementSpans(merged, tt.pageCount); !slices.Equal(got, tt.complement) {
				t.Errorf("complementSpans = %v, want %v", got, tt.complement)
			}
		})
	}
	if got := listPages([]span{{3, 4}, {1, 1}, {3, 3}}); !slices.Equal(got, []int{3, 4, 1, 3}) {
		t.Errorf("listPages = %v", got)
	}
	if got := (span{8, 12}).label() + " " + (span{5, 5}).label(); got != "8-12 5" {
		t.Errorf("labels = %q", got)
	}
}

func TestZipError(t *testing.T) {
	e := docmill.AsError(zipError(fmt.Errorf("zip: %w", ziparchive.ErrTooLarge)))
	if e.Code != docmill.CodeFileTooLarge {
		t.Errorf("zipError code = %s", e.Code)
	}
	if code := docmill.ErrorCode(zipError(errors.New("disk full"))); code != docmill.CodeInternal {
		t.Errorf("disk failure code = %s", code)
	}
	if zipError(nil) != nil {
		t.Error("zipError(nil) is an error")
	}
}
