package chromium

import (
	"bytes"
	"errors"
	"github.com/docmill/docmill/tools/toolstest"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
)

// TestMarkdownHostileOutOfProcess: Markdown made to cost goldmark minutes
// and gigabytes is parsed in the jailed helper, not here: 10 MB of nested
// block quotes is refused by the nesting bound, and a 10 MB table of
// 1,000 columns fails when the helper's parse runs out of time or memory,
// the helper killed. Each job ends (failed, 4xx) while this process, the
// server's side, stays under 200 MB.
func TestMarkdownHostileOutOfProcess(t *testing.T) {
	b := testBrowser(t)
	tl := tool(t, b, "markdown-to-pdf")
	maxMarkdownBytes := int(docmill.DefaultLimits().MarkdownBytes)
	table := func() []byte {
		row := strings.Repeat("| a ", 1000) + "|\n"
		var buf bytes.Buffer
		buf.WriteString(row)
		buf.WriteString(strings.Repeat("|---", 1000) + "|\n")
		for buf.Len()+len(row) <= maxMarkdownBytes {
			buf.WriteString(row)
		}
		return buf.Bytes()
	}
	cases := []struct {
		name string
		src  []byte
		want []docmill.Code
	}{
		{"deep quotes", bytes.Repeat([]byte(">"), maxMarkdownBytes), []docmill.Code{docmill.CodeInvalidDocument}},
		{"wide table", table(), []docmill.Code{docmill.CodeProcessingTimeout, docmill.CodeInvalidDocument}},
	}
	for _, tc := range cases {
		toolstest.ResetPeakRSS(t)
		_, err := run(t, tl, "x.md", "text/markdown", tc.src, nil)
		var e *docmill.Error
		if !errors.As(err, &e) || !codeIn(e.Code, tc.want) {
			t.Errorf("%s: error %v, want one of %v", tc.name, err, tc.want)
		}
		peak := toolstest.PeakRSS(t, 0)
		t.Logf("%s: %v; test process peak RSS %d MB", tc.name, err, peak>>20)
		if peak > 200<<20 {
			t.Errorf("%s: peak RSS %d MB, want under 200 MB", tc.name, peak>>20)
		}
	}
	// The helper pool still serves.
	mustRun(t, tl, "ok.md", "text/markdown", []byte("# fine\n"), nil)
}

func TestMarkdownNesting(t *testing.T) {
	for src, want := range map[string]int{
		"plain text":                  0,
		"> quote":                     1,
		"> > - 1. item":               4,
		"- - - -":                     3, // a thematic break; the last dash opens nothing
		"  >>>> x\n>\n":               4,
		"12345. x":                    1,
		"1234567890. x":               0, // more than 9 digits: not a list
		strings.Repeat("> ", 200):     200,
		strings.Repeat("* ", 50) + "": 50,
	} {
		if got := markdownNesting([]byte(src)); got != want {
			t.Errorf("markdownNesting(%.20q) = %d, want %d", src, got, want)
		}
	}
}

func codeIn(c docmill.Code, codes []docmill.Code) bool {
	for _, x := range codes {
		if c == x {
			return true
		}
	}
	return false
}
