package docmill

import (
	"math"
	"time"
)

// WorkSize is what a job's input is, as far as it is known before the
// tool runs: the bytes of its files, and, when something counted them
// without decoding the input (a header, a page tree), its pages and
// pixels. Zero is unknown; the budget then allows nothing for it.
type WorkSize struct {
	Bytes  int64
	Pages  int
	Pixels int64
}

// WorkRates are what one run of a tool is allowed for its input: Base
// for any input, and an allowance per MiB, per page and per million
// pixels on top. They are part of the tool's declaration (Tool.Rates);
// zero rates are DefaultWorkRates.
type WorkRates struct {
	Base         time.Duration
	PerMB        time.Duration
	PerPage      time.Duration
	PerMegapixel time.Duration
}

// DefaultWorkRates are the rates of a tool that declares none: generous
// enough for any honest input of the tools that declare none (the PDF
// helper's, libvips's, Chromium's), so that only what is far off its size
// (a few KB that keep an engine busy for minutes) is cut short.
var DefaultWorkRates = WorkRates{
	Base:         60 * time.Second,
	PerMB:        30 * time.Second,
	PerPage:      2 * time.Second,
	PerMegapixel: time.Second,
}

// Unsized are the rates of a tool whose work its input's size, as known
// before the run, does not tell: its budget is its timeout, whatever
// --tool-timeout makes it.
var Unsized = WorkRates{Base: time.Duration(math.MaxInt64)}

// WorkBudget is how long one run of t may take on an input of size in:
// the base of t's rates plus their allowances for in's bytes, pages and
// pixels, never more than t.Timeout (when t sets one). It is the one rule
// that sizes a job's time; the job runner makes it the job's deadline.
func WorkBudget(t *Tool, in WorkSize) time.Duration {
	r := t.Rates
	if r == (WorkRates{}) {
		r = DefaultWorkRates
	}
	const mib, mp = 1 << 20, 1e6
	ns := float64(r.Base) +
		float64(max(in.Bytes, 0))/mib*float64(r.PerMB) +
		float64(max(in.Pages, 0))*float64(r.PerPage) +
		float64(max(in.Pixels, 0))/mp*float64(r.PerMegapixel)
	budget := time.Duration(math.MaxInt64)
	if ns < float64(math.MaxInt64) {
		budget = time.Duration(ns)
	}
	if t.Timeout > 0 {
		budget = min(budget, t.Timeout)
	}
	// Whole milliseconds: the budget is shown in a job's meta (budget_ms).
	return budget.Truncate(time.Millisecond)
}
