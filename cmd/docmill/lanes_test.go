package main

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/docmill/docmill"
	"github.com/docmill/docmill/jobs"
)

// TestEveryToolHasALane: every tool of the registry serve builds, the
// pipeline included, declares a lane, and a pipeline takes the lane of
// its heaviest step.
func TestEveryToolHasALane(t *testing.T) {
	t.Parallel()
	tools, _ := testToolset(t)
	tools = append(tools, jobs.PipelineTool(docmill.NewRegistry(tools...), time.Minute))
	reg := docmill.NewRegistry(tools...)
	byLane := map[docmill.Lane][]string{}
	for _, tl := range reg.All() {
		if !tl.Lane.Valid() {
			t.Errorf("%s declares no lane (%q)", tl.Slug, tl.Lane)
		}
		byLane[tl.Lane] = append(byLane[tl.Lane], tl.Slug)
	}
	// docs/architecture.md's lanes table lists each tool in its lane's row.
	rows := map[docmill.Lane]string{}
	for _, line := range strings.Split(docFile(t, "docs/architecture.md"), "\n") {
		for _, l := range docmill.Lanes {
			if strings.HasPrefix(line, "| `"+string(l)+"` |") {
				rows[l] = line
			}
		}
	}
	for l, slugs := range byLane {
		for _, s := range slugs {
			if !strings.Contains(rows[l], "`"+s+"`") {
				t.Errorf("docs/architecture.md's lanes table: the row of %s lacks `%s`", l, s)
			}
		}
	}
	pipe, _ := reg.Lookup(docmill.PipelineSlug)
	steps := `[{"tool": "word-to-pdf"}, {"tool": "compress-pdf"}]`
	if got := pipe.LaneOf(docmill.Params{docmill.StepsParam: steps}); got != docmill.LaneOffice {
		t.Errorf("pipeline %s: lane %q, want office", steps, got)
	}
	steps = `[{"tool": "rotate-pdf", "params": {"angle": "90"}}]`
	if got := pipe.LaneOf(docmill.Params{docmill.StepsParam: steps}); got != docmill.LanePDF {
		t.Errorf("pipeline %s: lane %q, want pdf", steps, got)
	}
}

// TestLaneWorkers: the lanes' default worker counts come from --workers,
// the LibreOffice pool and the CPUs; --lanes and --lane-workers change
// them.
func TestLaneWorkers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want map[docmill.Lane]int
	}{
		{nil, map[docmill.Lane]int{"pdf": 3, "render": 3, "office": 2, "browser": 4, "ocr": 2}},
		{[]string{"--lanes", "office"}, map[docmill.Lane]int{"office": 2}},
		{[]string{"--lanes", "pdf,office", "--lane-workers", "office=5,pdf=1"}, map[docmill.Lane]int{"pdf": 1, "office": 5}},
	} {
		f := &serveFlags{}
		fs := newFlags("serve", "")
		f.register(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if got := f.lanes.laneWorkers(3, 2, 4); !maps.Equal(got, c.want) {
			t.Errorf("%v: lanes %v, want %v", c.args, got, c.want)
		}
	}
}
