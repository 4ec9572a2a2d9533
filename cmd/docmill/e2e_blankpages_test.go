package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// pagesRE finds pdfinfo's page count.
var pagesRE = regexp.MustCompile(`(?m)^Pages:\s+(\d+)$`)

// checkRemoveBlankE2E: of a PDF with two blank pages among three text
// pages, remove-blank-pages leaves three pages (pdfinfo) whose text
// (pdftotext) is the text pages' in order; a PDF of blank pages only is a
// 400.
func checkRemoveBlankE2E(t *testing.T, c *client.Client) {
	in := toolstest.TextPDF("Alpha text page", "", "Bravo text page", "", "Charlie text page")
	if m := pagesRE.FindStringSubmatch(pdfinfoReport(t, in)); m == nil || m[1] != "5" {
		t.Fatalf("the input has %v pages, want 5", m)
	}
	j, data := runTool(t, c, "remove-blank-pages", []client.File{{Name: "scan.pdf", Body: bytes.NewReader(in)}}, nil)
	if j.Result.Filename != "scan-no-blank.pdf" || j.Meta["removed"] != float64(2) || j.Meta["pages"] != float64(3) {
		t.Fatalf("result %+v, meta %v", j.Result, j.Meta)
	}
	if got, ok := j.Meta["removed_pages"].([]any); !ok || len(got) != 2 || got[0] != float64(2) || got[1] != float64(4) {
		t.Fatalf("removed_pages %v", j.Meta["removed_pages"])
	}
	if m := pagesRE.FindStringSubmatch(pdfinfoReport(t, data)); m == nil || m[1] != "3" {
		t.Fatalf("pdfinfo counts %v pages, want 3", m)
	}
	for p, want := range []string{"Alpha text page", "Bravo text page", "Charlie text page"} {
		if got := strings.Join(strings.Fields(pageText(t, data, p+1)), " "); got != want {
			t.Fatalf("page %d: %q, want %q", p+1, got, want)
		}
	}
	blank := toolstest.TextPDF("", "", "")
	_, _, err := c.Process(context.Background(), "remove-blank-pages", []client.File{{Name: "blank.pdf", Body: bytes.NewReader(blank)}}, client.ProcessOptions{})
	apiErrorDetail(t, err, 400, "invalid_document", "blank")
}
