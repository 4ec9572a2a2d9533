package main

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// checkLinearizeE2E: linearize-pdf's result passes qpdf's linearization
// check, pdfinfo calls it optimized, and its text is the input's; a file
// that is only a PDF header is a 400.
func checkLinearizeE2E(t *testing.T, c *client.Client) {
	const name = "pdflatex-4-pages.pdf"
	if info := pdfinfoReport(t, toolstest.ReadCorpus(t, "pdf", name)); !optimizedRE.MatchString(info) || optimized(info) {
		t.Fatalf("the input is already linearized:\n%s", info)
	}
	j, data := runTool(t, c, "linearize-pdf", []client.File{file(t, "pdf", name)}, nil)
	if j.Result.Filename != "pdflatex-4-pages-linearized.pdf" || j.Meta["pages"] != float64(4) {
		t.Fatalf("result %+v, meta %v", j.Result, j.Meta)
	}
	path := toolstest.WriteTemp(t, "lin.pdf", data)
	out, err := exec.Command("qpdf", "--check-linearization", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "no linearization errors") {
		t.Fatalf("qpdf --check-linearization: %v\n%s", err, out)
	}
	if info := pdfinfoReport(t, data); !optimized(info) {
		t.Fatalf("pdfinfo does not call it optimized:\n%s", info)
	}
	for p := 1; p <= 4; p++ {
		if got, want := pageText(t, data, p), corpusPageText(t, name, p); got != want {
			t.Fatalf("page %d: text %q, want %q", p, firstWords(got), firstWords(want))
		}
	}
	_, _, err = c.Process(context.Background(), "linearize-pdf", []client.File{{Name: "x.pdf", Body: strings.NewReader("%PDF-1.4\nnot a pdf at all")}}, client.ProcessOptions{})
	apiError(t, err, 400, "invalid_document")
}

// optimizedRE finds pdfinfo's word on linearization ("Optimized: yes").
var optimizedRE = regexp.MustCompile(`(?m)^Optimized:\s+(yes|no)$`)

// optimized reports whether a pdfinfo report says the file is linearized.
func optimized(info string) bool {
	m := optimizedRE.FindStringSubmatch(info)
	return m != nil && m[1] == "yes"
}

// pdfinfoReport returns poppler's pdfinfo report of a PDF, with options
// args.
func pdfinfoReport(t testing.TB, data []byte, args ...string) string {
	t.Helper()
	out, err := exec.Command("pdfinfo", append(args, toolstest.WriteTemp(t, "info.pdf", data))...).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	return string(out)
}
