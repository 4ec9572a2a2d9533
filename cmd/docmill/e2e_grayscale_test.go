package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// checkGrayscaleE2E: grayscale-pdf's result of a page with a colour photo
// and text renders (pdftoppm) with no pixel further from grey than
// rounding, where the input's has colour; pdfimages lists its image as
// grey, and pdftotext reads the same text.
func checkGrayscaleE2E(t *testing.T, c *client.Client) {
	const name = "pdflatex-image.pdf"
	in := toolstest.ReadCorpus(t, "pdf", name)
	if got := renderChroma(t, in); got < 40 {
		t.Fatalf("the input has no colour (chroma %d)", got)
	}
	j, data := runTool(t, c, "grayscale-pdf", []client.File{file(t, "pdf", name)}, nil)
	if j.Result.Filename != "pdflatex-image-grayscale.pdf" || j.Meta["pages"] != float64(1) {
		t.Fatalf("result %+v, meta %v", j.Result, j.Meta)
	}
	if got := renderChroma(t, data); got > 3 {
		t.Fatalf("a pixel of the result has chroma %d", got)
	}
	list, err := exec.Command("pdfimages", "-list", toolstest.WriteTemp(t, "gray.pdf", data)).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfimages -list: %v\n%s", err, list)
	}
	if lines := strings.Split(strings.TrimSpace(string(list)), "\n"); len(lines) != 3 || strings.Fields(lines[2])[5] != "gray" {
		t.Fatalf("pdfimages -list of the result:\n%s", list)
	}
	if got, want := strings.Fields(pageText(t, data, 1)), strings.Fields(corpusPageText(t, name, 1)); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("text changed: %q, want %q", firstWords(strings.Join(got, " ")), firstWords(strings.Join(want, " ")))
	}
}

// renderChroma renders page 1 of a PDF with pdftoppm in RGB and returns
// the largest difference between two channels of any of its pixels (0
// for pure grey).
func renderChroma(t *testing.T, pdf []byte) int {
	t.Helper()
	return toolstest.MaxChroma(toolstest.RenderPage(t, toolstest.WriteTemp(t, "c.pdf", pdf), 1, 40))
}
