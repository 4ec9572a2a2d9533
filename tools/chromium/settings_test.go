package chromium

import (
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// TestEnumsMatchTables: settingsFrom looks page_size and margin up, and
// shotSettingsFrom format, without a check.
func TestEnumsMatchTables(t *testing.T) {
	for _, tool := range (&Browser{}).Tools() {
		if _, ok := tool.Param("format"); ok {
			toolstest.EnumMatchesTable(t, tool, "format", shotFormats)
			continue
		}
		toolstest.EnumMatchesTable(t, tool, "page_size", papers)
		toolstest.EnumMatchesTable(t, tool, "margin", margins)
		toolstest.EnumMatchesTable(t, tool, "pdfa", pdfaParts)
	}
}
