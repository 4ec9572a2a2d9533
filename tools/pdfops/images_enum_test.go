package pdfops

import (
	"maps"
	"testing"

	"github.com/docmill/docmill/tools/toolstest"
)

// TestImageEnumsMatchTables: imageLayoutParams looks page_size and margin
// up without a check ("fit" is the page size of no table: each page is
// its image's).
func TestImageEnumsMatchTables(t *testing.T) {
	sizes := maps.Clone(imagePageSizes)
	sizes["fit"] = [2]float64{}
	toolstest.EnumMatchesTable(t, imagesToPDFTool(), "page_size", sizes)
	toolstest.EnumMatchesTable(t, imagesToPDFTool(), "margin", imageMargins)
}
