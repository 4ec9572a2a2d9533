package docmill

import (
	"context"
	"sync/atomic"
)

// EnginePeakMeta is the job meta figure EnginePeak fills.
const EnginePeakMeta = "engine_peak_rss_kb"

// EnginePeak collects the peak resident memory of the engine processes
// one job runs (external programs, warm engines, helper processes), as
// the engines' runners measure it: the largest figure any of them
// noted. It is safe for concurrent use.
type EnginePeak struct{ kb atomic.Int64 }

type enginePeakKey struct{}

// WithEnginePeak returns ctx carrying a new EnginePeak, which the runs
// of engines under ctx note their peaks in (NoteEnginePeak).
func WithEnginePeak(ctx context.Context) (context.Context, *EnginePeak) {
	p := &EnginePeak{}
	return context.WithValue(ctx, enginePeakKey{}, p), p
}

// NoteEnginePeak records kb, an engine run's peak resident memory in
// KiB, in ctx's EnginePeak, if ctx carries one.
func NoteEnginePeak(ctx context.Context, kb int64) {
	p, _ := ctx.Value(enginePeakKey{}).(*EnginePeak)
	if p == nil {
		return
	}
	for {
		old := p.kb.Load()
		if kb <= old || p.kb.CompareAndSwap(old, kb) {
			return
		}
	}
}

// KB is the largest peak noted, in KiB; 0 when no engine ran.
func (p *EnginePeak) KB() int64 { return p.kb.Load() }
