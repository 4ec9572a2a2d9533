package docmill

import (
	"strings"
	"testing"
)

func TestParseBookmarks(t *testing.T) {
	deep := `{"title":"x","page":1}`
	for range MaxBookmarkDepth {
		deep = `{"title":"x","page":1,"children":[` + deep + `]}`
	}
	many := "[" + strings.Repeat(`{"title":"x","page":1},`, MaxBookmarks) + `{"title":"x","page":1}]`
	for _, tc := range []struct {
		in, problem string
		count       int
	}{
		{in: `[]`},
		{in: `[{"title": "Глава", "page": 2, "children": [{"title": "A", "page": 3}]}]`, count: 2},
		{in: `{"bookmarks": [{"title": "A", "page": 1, "children": []}]}`, count: 1},
		{in: `[{"title": "A", "page": 0}]`, problem: "without a page"},
		{in: `[{"title": " ", "page": 1}]`, problem: "empty title"},
		{in: `[{"title": "` + strings.Repeat("я", MaxBookmarkTitle+1) + `", "page": 1}]`, problem: "characters"},
		{in: `[{"title": "A", "page": 1, "kids": []}]`, problem: "unknown field"},
		{in: `[{"title": "A", "page": "1"}]`, problem: "wrong type"},
		{in: `[{"title": "A"`, problem: "ends early"},
		{in: `[] []`, problem: "after the JSON"},
		{in: `{"items": []}`, problem: "unknown field"},
		{in: `{}`, problem: "no \"bookmarks\""},
		{in: `"A"`, problem: "list of bookmarks"},
		{in: `[` + deep + `]`, problem: "deeper than 8"},
		{in: many, problem: "more than 5000"},
	} {
		got, err := ParseBookmarks(tc.in)
		switch {
		case tc.problem == "" && err != nil:
			t.Errorf("%.60s: %v", tc.in, err)
		case tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)):
			t.Errorf("%.60s: error %v, want one saying %q", tc.in, err, tc.problem)
		case err == nil && countAll(got) != tc.count:
			t.Errorf("%.60s: %d bookmarks, want %d", tc.in, countAll(got), tc.count)
		}
	}
}

func TestMarshalBookmarksRoundTrip(t *testing.T) {
	list := []Bookmark{{Title: "Глава <1> & \"2\"", Page: 1, Children: []Bookmark{{Title: "A", Page: 2}}}}
	got, err := ParseBookmarks(MarshalBookmarks(list))
	if err != nil || len(got) != 1 || got[0].Title != list[0].Title || got[0].Children[0].Page != 2 {
		t.Fatalf("%+v, %v", got, err)
	}
}

func countAll(list []Bookmark) int {
	n := len(list)
	for _, b := range list {
		n += countAll(b.Children)
	}
	return n
}
