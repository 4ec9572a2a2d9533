package ghostscript

import (
	"slices"
	"testing"
)

// TestPresetsMatchEnum: compress-pdf's preset param declares exactly the
// presets there are, so a value that passed validation always names one.
func TestPresetsMatchEnum(t *testing.T) {
	p, ok := (&engines{}).compressTool().Param("preset")
	if !ok {
		t.Fatal("compress-pdf has no preset param")
	}
	for _, name := range p.Enum {
		if _, ok := presets[name]; !ok {
			t.Errorf("the enum offers %q, which has no preset", name)
		}
	}
	for name := range presets {
		if !slices.Contains(p.Enum, name) {
			t.Errorf("preset %q is not in the enum", name)
		}
	}
	if _, ok := presets[p.Default]; !ok {
		t.Errorf("the default %q is no preset", p.Default)
	}
}
