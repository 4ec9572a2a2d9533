package ghostscript

import (
	"maps"
	"slices"
	"testing"

	docmill "github.com/docmill/docmill"
)

// TestEnumsMatchTables: an enum param declares exactly the keys of the
// table the tool looks its value up in, so a value that passed validation
// always names an entry (the tools do not check it again) and the default
// is one.
func TestEnumsMatchTables(t *testing.T) {
	e := &engines{}
	tests := []struct {
		tool  *docmill.Tool
		param string
		keys  []string
	}{
		{e.compressTool(), "preset", slices.Collect(maps.Keys(presets))},
		{e.pdfaTool(), "conformance", slices.Collect(maps.Keys(conformances))},
	}
	for _, tt := range tests {
		t.Run(tt.tool.Slug, func(t *testing.T) {
			p, ok := tt.tool.Param(tt.param)
			if !ok {
				t.Fatalf("no %s param", tt.param)
			}
			if got, want := slices.Sorted(slices.Values(p.Enum)), slices.Sorted(slices.Values(tt.keys)); !slices.Equal(got, want) {
				t.Errorf("the enum offers %v, the table has %v", got, want)
			}
			if !slices.Contains(tt.keys, p.Default) {
				t.Errorf("the default %q is not in the table", p.Default)
			}
		})
	}
}
