package pdfops_test

import (
	"slices"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/toolstest"
)

// sidePages returns the page numbers each sheet side shows, sorted: a
// booklet's pages are turned, so the reading order within a side is
// pdftotext's guess, while which pages share a side is the imposition.
func sidePages(t *testing.T, path string) [][]string {
	t.Helper()
	var sides [][]string
	for _, text := range layoutTexts(t, path) {
		var nums []string
		for _, f := range strings.Fields(text) {
			if f != "Page" {
				nums = append(nums, f)
			}
		}
		slices.Sort(nums)
		sides = append(sides, nums)
	}
	return sides
}

func TestBookletPDF(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pages  int
		params map[string]string
		sides  [][]string
		size   [2]int
	}{
		// Sheet 1: 8|1 on the front, 2|7 on the back; sheet 2: 6|3, 4|5.
		{"two per side", 8, map[string]string{"per_sheet": "2"},
			[][]string{{"1", "8"}, {"2", "7"}, {"3", "6"}, {"4", "5"}}, [2]int{595, 842}},
		// Six pages padded to eight: pages 7 and 8 are blank.
		{"padded", 6, map[string]string{"per_sheet": "2", "page_size": "a3"},
			[][]string{{"1"}, {"2"}, {"3", "6"}, {"4", "5"}}, [2]int{842, 1191}},
		// One sheet folded twice: 8, 1, 3, 6 on the front; 2, 7, 5, 4 on the back.
		{"four per side", 8, map[string]string{"per_sheet": "4"},
			[][]string{{"1", "3", "6", "8"}, {"2", "4", "5", "7"}}, [2]int{595, 842}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, "booklet-pdf", tc.params, numberedPDF(t, tc.pages))
			if err != nil {
				t.Fatal(err)
			}
			if got := sidePages(t, out.Path); !slices.EqualFunc(got, tc.sides, slices.Equal) {
				t.Errorf("sides show pages %q, want %q", got, tc.sides)
			}
			for i, s := range layoutSizes(t, out.Path) {
				if s != tc.size {
					t.Errorf("side %d is %v, want %v", i+1, s, tc.size)
				}
			}
			if out.Meta["pages"] != len(tc.sides) || out.Meta["input_pages"] != tc.pages || out.Filename != "layout-booklet.pdf" {
				t.Errorf("filename %q, meta %v", out.Filename, out.Meta)
			}
		})
	}
}

func TestBookletPDFRefusals(t *testing.T) {
	if _, err := tool(t, "booklet-pdf").ParseParams(map[string]string{"per_sheet": "8"}); err == nil {
		t.Error("per_sheet 8 accepted")
	} else {
		toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "per_sheet")
	}
	wantCopyLimit(t, "booklet-pdf", nil)
}
