package poppler

import (
	"slices"
	"testing"
)

func TestSplitRuns(t *testing.T) {
	tests := []struct {
		name  string
		pages []int
		slots int
		want  []pageRun
	}{
		{"none", nil, 2, nil},
		{"one page", []int{7}, 4, []pageRun{{7, 7}}},
		{"117 pages on two slots, shrinking", seq(117), 2, []pageRun{{1, 59}, {60, 88}, {89, 103}, {104, 111}, {112, 117}}},
		{"short selection spread", seq(8), 4, []pageRun{{1, 2}, {3, 4}, {5, 6}, {7, 8}}},
		{"more slots than pages", seq(3), 8, []pageRun{{1, 1}, {2, 2}, {3, 3}}},
		{"one slot", seq(5), 1, []pageRun{{1, 5}}},
		{"zero slots as one", seq(5), 0, []pageRun{{1, 5}}},
		{"gaps cut runs", []int{1, 2, 3, 7, 8, 20}, 1, []pageRun{{1, 3}, {7, 8}, {20, 20}}},
		{"gaps and size", []int{1, 2, 3, 4, 5, 6, 10}, 2, []pageRun{{1, 4}, {5, 6}, {10, 10}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := splitRuns(tt.pages, tt.slots)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("splitRuns = %v, want %v", got, tt.want)
			}
			// Every page is in exactly one run, in order.
			var covered []int
			for _, r := range got {
				for p := r.first; p <= r.last; p++ {
					covered = append(covered, p)
				}
			}
			if !slices.Equal(covered, tt.pages) && len(tt.pages) > 0 {
				t.Errorf("runs cover %v", covered)
			}
		})
	}
}

func TestParsePageCount(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want int
		ok   bool
	}{
		{"plain", "Title: x\nPages:           117\nEncrypted: no\n", 117, true},
		{"injected by the title", "Title: a\nPages: 1\nAuthor: b\nPages:           4\nEncrypted: no\n", 4, true},
		{"missing", "Title: x\n", 0, false},
		{"garbage", "Pages: many\n", 0, false},
	}
	for _, tt := range tests {
		if got, ok := parsePageCount([]byte(tt.out)); got != tt.want || ok != tt.ok {
			t.Errorf("%s: parsePageCount = %d, %v; want %d, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParsePageSizes(t *testing.T) {
	out := "Title: Page    1 size:  1 x 1 pts\n" +
		"Pages:           3\n" +
		"Page    1 size:  595.276 x 841.89 pts (A4)\n" +
		"Page    1 rot:   90\n" +
		"Page    2 size:  612 x 792 pts (letter)\n" +
		"Page    2 rot:   -90\n" +
		"Page    3 size:  inf x 792 pts\n" +
		"Page    x size:  1 x 1 pts\n"
	got := parsePageSizes([]byte(out))
	want := map[int]pageSize{1: {595.276, 841.89, 90}, 2: {612, 792, 270}}
	if len(got) != len(want) {
		t.Fatalf("parsePageSizes = %v, want %v", got, want)
	}
	for p, s := range want {
		if got[p] != s {
			t.Errorf("page %d: %v, want %v", p, got[p], s)
		}
	}
	if w, h := got[1].pixels(150); w != 1754 || h != 1241 {
		t.Errorf("pixels of rotated A4 at 150 dpi = %d x %d", w, h)
	}
}
