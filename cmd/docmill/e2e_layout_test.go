package main

import (
	"context"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// The page layout tools (resize-pdf, nup-pdf, booklet-pdf, insert-pages,
// image-watermark) through a real server; their results are read with
// poppler, not with pdfcpu, which wrote them.

var pageSizeRE = regexp.MustCompile(`(?m)^Page\s+(\d+)\s+size:\s+([\d.]+) x ([\d.]+) pts`)

// pageSizes returns each page's size in points, rounded, as pdfinfo
// reads it.
func pageSizes(t testing.TB, data []byte) [][2]int {
	t.Helper()
	out, err := exec.Command("pdfinfo", "-f", "1", "-l", "100000", toolstest.WriteTemp(t, "sizes.pdf", data)).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfinfo: %v\n%s", err, out)
	}
	var sizes [][2]int
	for _, m := range pageSizeRE.FindAllStringSubmatch(string(out), -1) {
		w, _ := strconv.ParseFloat(m[2], 64)
		h, _ := strconv.ParseFloat(m[3], 64)
		sizes = append(sizes, [2]int{int(w + 0.5), int(h + 0.5)})
	}
	return sizes
}

// toolRefusal runs tool and returns the code and message of its refusal,
// at the HTTP edge or as a failed job; a success fails t.
func toolRefusal(t *testing.T, c *client.Client, tool string, files []client.File, params map[string]string) (string, string) {
	t.Helper()
	j, _, err := c.Process(context.Background(), tool, files, client.ProcessOptions{Params: params, Prefer: "wait=60"})
	if err == nil && !j.Finished() {
		j, err = c.Wait(context.Background(), j.JobID, 0)
	}
	switch {
	case err != nil:
		e, ok := err.(*client.Problem)
		if !ok || e.StatusCode >= 500 {
			t.Fatalf("%s: %v, want a client error", tool, err)
		}
		return string(e.Code), e.Detail
	case j.Status == "failed" && j.Error != nil:
		return string(j.Error.Code), j.Error.Message
	}
	t.Fatalf("%s %v: job %s, want a refusal", tool, params, j.Status)
	return "", ""
}

func TestLayoutToolsE2E(t *testing.T) {
	s := startServer(t, "")
	c := s.client(s.DevKey)

	t.Run("resize-pdf", func(t *testing.T) {
		want := corpusStarts(t, fourPages, 1, 2, 3, 4)
		j, data := runTool(t, c, "resize-pdf", []client.File{file(t, "pdf", fourPages)}, map[string]string{"page_size": "letter", "pages": "2-3"})
		if j.Result.Filename != "pdflatex-4-pages-resized.pdf" || j.Result.ContentType != "application/pdf" {
			t.Fatalf("result %+v", j.Result)
		}
		if got := pageSizes(t, data); !slices.Equal(got, [][2]int{{595, 842}, {612, 792}, {612, 792}, {595, 842}}) {
			t.Errorf("page sizes %v, want A4, letter, letter, A4", got)
		}
		if got := pageStarts(t, data); !slices.Equal(got, want) {
			t.Errorf("page texts %q, want %q", got, want)
		}

		_, data = runTool(t, c, "resize-pdf", []client.File{file(t, "pdf", fourPages)}, map[string]string{"page_size": "148x210"})
		if got := pageSizes(t, data); !slices.Equal(got, [][2]int{{420, 595}, {420, 595}, {420, 595}, {420, 595}}) {
			t.Errorf("page sizes %v, want four 148x210 mm pages", got)
		}
		if got := pageStarts(t, data); !slices.Equal(got, want) {
			t.Errorf("page texts %q, want %q", got, want)
		}

		code, msg := toolRefusal(t, c, "resize-pdf", []client.File{file(t, "pdf", fourPages)}, map[string]string{"page_size": "b7"})
		if code != "invalid_parameter" || !strings.Contains(msg, "page_size") {
			t.Errorf("page_size b7: %s %q", code, msg)
		}
	})
}
