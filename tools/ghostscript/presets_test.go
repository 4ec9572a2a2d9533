package ghostscript

import (
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// TestEnumsMatchTables: compress-pdf's presets and pdf-to-pdfa's
// conformance levels are looked up without a check.
func TestEnumsMatchTables(t *testing.T) {
	e := &engines{}
	toolstest.EnumMatchesTable(t, e.compressTool(), "preset", presets)
	toolstest.EnumMatchesTable(t, e.pdfaTool(), "conformance", conformances)
}
