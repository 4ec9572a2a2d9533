package ocr_test

import (
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ocr"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestMain lets this test binary serve as the PDF helper that prepares
// images and counts the output's pages, as docmill's own binary does in
// the server (`docmill engine pdf`).
func TestMain(m *testing.M) {
	toolstest.Main(m, pdfops.SelectPagesStep(), ocr.PrepareImageStep())
}

// Both steps run in real jailed helpers of this test binary, as
// cmd/docmill gives them to ocr.Tools.
var (
	selectPages  = func() docmill.RunFunc { return toolstest.Helpers().Step(pdfops.SelectPagesStep()) }
	prepareImage = func() docmill.RunFunc { return toolstest.Helpers().Step(ocr.PrepareImageStep()) }
)
