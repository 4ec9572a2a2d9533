package docmill

import (
	"fmt"
	"slices"
	"strings"
)

// Lane is a class of work with its own queue and its own workers, so that
// jobs of one kind never wait behind jobs of another: a minute of
// Ghostscript does not hold up a rotation, nor a LibreOffice conversion a
// screenshot. Each tool declares its lane (Tool.Lane); a worker node may
// serve only some lanes (serve --lanes), so a cluster scales each on its
// own.
type Lane string

// The lanes, cut by the engine that does the work and so by what a run
// costs and what bounds it.
const (
	// LanePDF is quick work in the jailed PDF helper (pdfcpu) and qpdf:
	// bounded by the CPU, seconds at most.
	LanePDF Lane = "pdf"
	// LaneRender is Ghostscript, poppler and libvips: rasterising and
	// rewriting whole documents, CPU-bound and possibly long.
	LaneRender Lane = "render"
	// LaneBrowser is Chromium: bounded by its tabs.
	LaneBrowser Lane = "browser"
	// LaneOffice is LibreOffice: bounded by the warm pool's processes.
	LaneOffice Lane = "office"
	// LaneOCR is tesseract and OCRmyPDF: the longest runs, every core.
	LaneOCR Lane = "ocr"
)

// Lanes are every lane, lightest first: the order of Heavier.
var Lanes = []Lane{LanePDF, LaneRender, LaneBrowser, LaneOffice, LaneOCR}

// Valid reports whether l is one of Lanes.
func (l Lane) Valid() bool { return slices.Contains(Lanes, l) }

// Weight is l's place in Lanes (lightest 0); -1 for no lane.
func (l Lane) Weight() int { return slices.Index(Lanes, l) }

// Heavier returns the heavier of l and m: a job that runs both kinds of
// work (a pipeline's steps) goes to the lane of its heaviest, whose
// workers are the scarcer and whose runs the longer.
func (l Lane) Heavier(m Lane) Lane {
	if m.Weight() > l.Weight() {
		return m
	}
	return l
}

// ParseLanes reads a comma-separated list of lanes ("office,browser");
// "all" or an empty list is every lane. An unknown name is an error that
// lists the known ones.
func ParseLanes(s string) ([]Lane, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return slices.Clone(Lanes), nil
	}
	var out []Lane
	for _, part := range strings.Split(s, ",") {
		l := Lane(strings.TrimSpace(part))
		if !l.Valid() {
			return nil, fmt.Errorf("unknown lane %q; the lanes are %s", part, LaneNames())
		}
		if !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out, nil
}

// LaneNames is every lane's name, comma-separated, for messages.
func LaneNames() string {
	names := make([]string, len(Lanes))
	for i, l := range Lanes {
		names[i] = string(l)
	}
	return strings.Join(names, ", ")
}

// LaneOf is the lane of a job of t with params p: the tool's own, or for a
// tool whose lane depends on its params (the pipeline) LaneFor's answer.
func (t *Tool) LaneOf(p Params) Lane {
	if t.LaneFor != nil {
		if l := t.LaneFor(p); l.Valid() {
			return l
		}
	}
	return t.Lane
}

// Lane is the lane of a pipeline: that of its heaviest step.
func (s Steps) Lane() Lane {
	lane := LanePDF
	for _, st := range s {
		lane = lane.Heavier(st.Tool.Lane)
	}
	return lane
}

// FairShare is how many of a lane's workers one account may hold on a
// node while other accounts wait in that lane: half, and at least one.
func FairShare(workers int) int { return max(1, workers/2) }
