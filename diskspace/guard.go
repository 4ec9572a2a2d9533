package diskspace

import (
	"fmt"

	"github.com/docmill/docmill"
)

// Area is a local directory a node writes to.
type Area struct {
	// Name is how /readyz reports the area ("files", "scratch"); the path
	// is never shown.
	Name string
	Path string
	// Uploads marks the area that request bodies are written to as they
	// arrive (the embedded file store): an upload is admitted only if it
	// fits there with the minimum to spare.
	Uploads bool
}

// Guard is a docmill.SpaceGuard over local areas. It measures on every
// call (one statfs per area, a few microseconds), so it never reports a
// stale state.
type Guard struct {
	Min   Threshold
	Areas []Area
}

var _ docmill.SpaceGuard = (*Guard)(nil)

// Check measures every area. An area that cannot be measured is not OK.
func (g *Guard) Check() []docmill.DiskSpace {
	out := make([]docmill.DiskSpace, 0, len(g.Areas))
	for _, a := range g.Areas {
		u, err := Stat(a.Path)
		if err != nil {
			out = append(out, docmill.DiskSpace{Name: a.Name})
			continue
		}
		m := g.Min.Of(u.Total)
		out = append(out, docmill.DiskSpace{Name: a.Name, FreeBytes: u.Free, TotalBytes: u.Total, MinFreeBytes: m, OK: u.Free >= m})
	}
	return out
}

// Admit refuses, with insufficient_storage, an upload of n bytes (n < 0:
// unknown) that would leave an upload area below its minimum. An area
// that cannot be measured admits: the write itself then tells, and an
// ENOSPC is answered as insufficient_storage all the same.
func (g *Guard) Admit(n int64) error {
	for _, a := range g.Areas {
		if !a.Uploads {
			continue
		}
		u, err := Stat(a.Path)
		if err != nil {
			continue
		}
		need := g.Min.Of(u.Total) + max(n, 0)
		if u.Free < need {
			return docmill.InsufficientStorage(fmt.Errorf("diskspace: %s has %d bytes free; an upload of %d bytes needs %d", a.Path, u.Free, n, need))
		}
	}
	return nil
}
