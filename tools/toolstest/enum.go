package toolstest

import (
	"maps"
	"slices"
	"testing"

	docmill "github.com/docmill/docmill"
)

// EnumMatchesTable checks that the enum param of tool declares exactly the
// keys of table, the map the tool looks the value up in, and that its
// default is one of them: a value that passed validation then always names
// an entry, and the tool need not check it again.
func EnumMatchesTable[V any](t *testing.T, tool *docmill.Tool, param string, table map[string]V) {
	t.Helper()
	p, ok := tool.Param(param)
	if !ok {
		t.Fatalf("%s has no %s param", tool.Slug, param)
	}
	keys := slices.Sorted(maps.Keys(table))
	if got := slices.Sorted(slices.Values(p.Enum)); !slices.Equal(got, keys) {
		t.Errorf("%s's %s offers %v; its table has %v", tool.Slug, param, got, keys)
	}
	if _, ok := table[p.Default]; !ok && p.Default != "" {
		t.Errorf("%s's %s defaults to %q, which is not in its table", tool.Slug, param, p.Default)
	}
}
