package docmill

import (
	"math"
	"testing"
	"time"
)

func TestWorkBudget(t *testing.T) {
	gs := &Tool{Timeout: 5 * time.Minute, Rates: WorkRates{Base: 30 * time.Second, PerMB: 150 * time.Second, PerPage: 250 * time.Millisecond}}
	images := &Tool{Timeout: 2 * time.Minute, Rates: WorkRates{Base: 10 * time.Second, PerMegapixel: 100 * time.Millisecond}}
	unsized := &Tool{Timeout: 20 * time.Minute, Rates: Unsized}
	defaults := &Tool{Timeout: time.Hour}
	noTimeout := &Tool{Rates: WorkRates{Base: time.Second, PerMB: time.Second}}
	tests := []struct {
		name string
		tool *Tool
		in   WorkSize
		want time.Duration
	}{
		{"a 2.4 KB damaged PDF: the base and 0.35 s", gs, WorkSize{Bytes: 2400}, 30*time.Second + 343*time.Millisecond},
		{"a 439 KB object-stream bomb: 94 s, not 5 min", gs, WorkSize{Bytes: 439 << 10}, 30*time.Second + 64306*time.Millisecond},
		{"pages count when known", gs, WorkSize{Bytes: 1 << 20, Pages: 100}, 30*time.Second + 150*time.Second + 25*time.Second},
		{"never past the tool's timeout", gs, WorkSize{Bytes: 100 << 20}, 5 * time.Minute},
		{"nothing known: the base", gs, WorkSize{}, 30 * time.Second},
		{"negative sizes count as nothing", gs, WorkSize{Bytes: -5, Pages: -1, Pixels: -7}, 30 * time.Second},
		{"pixels", images, WorkSize{Pixels: 50_000_000}, 15 * time.Second},
		{"an unsized tool: its timeout", unsized, WorkSize{Bytes: 1 << 30, Pages: 1 << 20}, 20 * time.Minute},
		{"zero rates are the defaults", defaults, WorkSize{Bytes: 1 << 20, Pages: 2, Pixels: 1_000_000},
			DefaultWorkRates.Base + DefaultWorkRates.PerMB + 2*DefaultWorkRates.PerPage + DefaultWorkRates.PerMegapixel},
		{"no timeout: no cap", noTimeout, WorkSize{Bytes: 10 << 20}, 11 * time.Second},
		{"no overflow", noTimeout, WorkSize{Bytes: math.MaxInt64}, time.Duration(math.MaxInt64).Truncate(time.Millisecond)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := WorkBudget(tc.tool, tc.in); got != tc.want {
				t.Errorf("WorkBudget(%+v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}
