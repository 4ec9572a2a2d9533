package docmill

import (
	"slices"
	"testing"
)

func TestLaneHeavier(t *testing.T) {
	for _, c := range []struct{ a, b, want Lane }{
		{LanePDF, LanePDF, LanePDF},
		{LanePDF, LaneRender, LaneRender},
		{LaneOCR, LanePDF, LaneOCR},
		{LaneOffice, LaneBrowser, LaneOffice},
		{"", LaneRender, LaneRender},
		{LaneRender, "nope", LaneRender},
	} {
		if got := c.a.Heavier(c.b); got != c.want {
			t.Errorf("%q.Heavier(%q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

func TestStepsLane(t *testing.T) {
	rot := &Tool{Slug: "rotate-pdf", Lane: LanePDF}
	gs := &Tool{Slug: "compress-pdf", Lane: LaneRender}
	doc := &Tool{Slug: "word-to-pdf", Lane: LaneOffice}
	for _, c := range []struct {
		steps []*Tool
		want  Lane
	}{
		{[]*Tool{rot}, LanePDF},
		{[]*Tool{rot, gs, rot}, LaneRender},
		{[]*Tool{doc, gs}, LaneOffice},
		{[]*Tool{gs, doc}, LaneOffice},
	} {
		var s Steps
		for _, tl := range c.steps {
			s = append(s, Step{Tool: tl})
		}
		if got := s.Lane(); got != c.want {
			t.Errorf("steps %v: lane %q, want %q", c.steps, got, c.want)
		}
	}
}

func TestFairShare(t *testing.T) {
	for workers, want := range map[int]int{1: 1, 2: 1, 3: 1, 4: 2, 5: 2, 8: 4} {
		if got := FairShare(workers); got != want {
			t.Errorf("FairShare(%d) = %d, want %d", workers, got, want)
		}
	}
}

func TestParseLanes(t *testing.T) {
	for in, want := range map[string][]Lane{
		"":                     Lanes,
		"all":                  Lanes,
		"office":               {LaneOffice},
		" office , pdf,office": {LaneOffice, LanePDF},
	} {
		got, err := ParseLanes(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseLanes(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseLanes("pdf,gpu"); err == nil {
		t.Error("ParseLanes(pdf,gpu): want an error")
	}
}
