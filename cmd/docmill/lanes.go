package main

import (
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/docmill/docmill"
)

// laneFlags say which lanes a worker node serves and with how many
// workers each (docmill.Lane).
type laneFlags struct {
	lanes   []docmill.Lane
	workers map[docmill.Lane]int
}

func (l *laneFlags) register(fs *flag.FlagSet) {
	l.lanes = docmill.Lanes
	fs.Func("lanes", "lanes this node works, comma-separated, of "+docmill.LaneNames()+" (default all): a cluster scales each lane's worker nodes on their own", func(v string) error {
		ls, err := docmill.ParseLanes(v)
		l.lanes = ls
		return err
	})
	l.workers = map[docmill.Lane]int{}
	fs.Var(repeatable(func(v string) error {
		for _, part := range strings.Split(v, ",") {
			name, n, ok := strings.Cut(strings.TrimSpace(part), "=")
			count, err := strconv.Atoi(n)
			lane := docmill.Lane(name)
			if !ok || err != nil || count < 1 || !lane.Valid() {
				return fmt.Errorf("want lane=count, such as office=2, of the lanes %s", docmill.LaneNames())
			}
			l.workers[lane] = count
		}
		return nil
	}), "lane-workers", "jobs of a lane worked at once, as lane=count (repeatable, or comma-separated), e.g. office=2,browser=4; default: --workers for pdf and render, --office-workers for office, the CPUs for browser (Chromium's tabs) and half of them for ocr")
}

// laneWorkers is, for each lane this node serves, how many of its jobs it
// works at once: --lane-workers, else a default from the cores and the
// engines' pools. workers is --workers, officeWorkers the LibreOffice
// pool's size, cpus the node's CPUs.
func (l *laneFlags) laneWorkers(workers, officeWorkers, cpus int) map[docmill.Lane]int {
	defaults := map[docmill.Lane]int{
		docmill.LanePDF:     workers,
		docmill.LaneRender:  workers,
		docmill.LaneOffice:  officeWorkers,
		docmill.LaneBrowser: cpus, // Chromium's tabs (chromium.Options.MaxTabs)
		docmill.LaneOCR:     max(1, cpus/2),
	}
	out := map[docmill.Lane]int{}
	for _, lane := range l.lanes {
		n := defaults[lane]
		if c, ok := l.workers[lane]; ok {
			n = c
		}
		out[lane] = max(1, n)
	}
	return out
}

// queueLanes is the lanes this node works: none on an API node.
func (f *serveFlags) queueLanes() map[docmill.Lane]int {
	if f.role == "api" {
		return nil
	}
	return f.lanes.laneWorkers(f.workers, f.engines.officeWorkers, runtime.NumCPU())
}
