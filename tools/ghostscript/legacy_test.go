package ghostscript_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/ghostscript"
	"github.com/docmill/docmill/tools/toolstest"
)

// TestLegacyRetryBudget: a catalog holding dictionaries nested 20,000
// deep is refused by Ghostscript 10.0's new interpreter in about two
// seconds ("No pages will be processed"), and its legacy interpreter,
// tried next, spins on it for minutes (quadratic in the depth). The
// retry has a budget of its own, so the tool answers that the file is
// damaged instead of holding a worker until the tool's timeout and
// answering processing_timeout.
func TestLegacyRetryBudget(t *testing.T) {
	defer ghostscript.SetLegacyFloor(3 * time.Second)()
	const depth = 20000
	text := "BT /F1 24 Tf 72 700 Td (Hunt) Tj ET"
	pdf := toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R /Hunt "+strings.Repeat("<< /A ", depth)+strings.Repeat(">>", depth)+" >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents 4 0 R >>",
		"<< /Length "+strconv.Itoa(len(text))+" >>\nstream\n"+text+"\nendstream")
	for _, slug := range []string{"grayscale-pdf", "compress-pdf"} {
		t.Run(slug, func(t *testing.T) {
			_, err := run(t, slug, nil, toolstest.WriteTemp(t, "nested.pdf", pdf))
			wantCode(t, err, docmill.CodeInvalidDocument)
		})
	}
}
