package office_test

import (
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestMain lets this test binary serve as the PDF helper that counts and
// selects the exported pages, as docmill's own binary does in the server
// (`docmill engine pdf`). It closes the shared pool once the tests ran.
func TestMain(m *testing.M) {
	toolstest.MainWith(m, func() { closeShared() }, pdfops.SelectPagesStep())
}

// selectPages is SelectPagesStep run in real jailed helpers of this test
// binary, shared by the package's tests.
func selectPages() docmill.RunFunc { return toolstest.Helpers().Step(pdfops.SelectPagesStep()) }
