package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
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

// pageTexts returns the text of every page as pdftotext -layout reads
// it (line by line, left to right), spaces collapsed.
func pageTexts(t testing.TB, data []byte) []string {
	t.Helper()
	out, err := exec.Command("pdftotext", "-layout", toolstest.WriteTemp(t, "texts.pdf", data), "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext: %v\n%s", err, out)
	}
	pages := strings.Split(string(out), "\f")
	pages = pages[:len(pages)-1]
	for i, p := range pages {
		pages[i] = strings.Join(strings.Fields(p), " ")
	}
	return pages
}

// numberedPages returns a PDF of n A4 pages showing "Page 1" to "Page n".
func numberedPages(n int) []byte {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("Page %d", i+1)
	}
	return toolstest.TextPDF(texts...)
}

func pdfFile(name string, b []byte) client.File {
	return client.File{Name: name, Body: bytes.NewReader(b)}
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
	t.Parallel()
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
	t.Run("nup-pdf", func(t *testing.T) {
		seven := numberedPages(7)
		j, data := runTool(t, c, "nup-pdf", []client.File{pdfFile("seven.pdf", seven)}, map[string]string{"per_sheet": "4", "border": "true"})
		if j.Result.Filename != "seven-nup.pdf" {
			t.Fatalf("result %+v", j.Result)
		}
		if got := pageSizes(t, data); !slices.Equal(got, [][2]int{{595, 842}, {595, 842}}) {
			t.Errorf("sheet sizes %v, want two portrait A4 sheets", got)
		}
		if got, want := pageTexts(t, data), []string{"Page 1 Page 2 Page 3 Page 4", "Page 5 Page 6 Page 7"}; !slices.Equal(got, want) {
			t.Errorf("sheet texts %q, want %q", got, want)
		}

		_, data = runTool(t, c, "nup-pdf", []client.File{pdfFile("seven.pdf", seven)}, map[string]string{"per_sheet": "2", "order": "across-then-down-rtl", "page_size": "a3"})
		if got := pageSizes(t, data); !slices.Equal(got, [][2]int{{1191, 842}, {1191, 842}, {1191, 842}, {1191, 842}}) {
			t.Errorf("sheet sizes %v, want four landscape A3 sheets", got)
		}
		if got, want := pageTexts(t, data), []string{"Page 2 Page 1", "Page 4 Page 3", "Page 6 Page 5", "Page 7"}; !slices.Equal(got, want) {
			t.Errorf("sheet texts %q, want %q", got, want)
		}

		code, msg := toolRefusal(t, c, "nup-pdf", []client.File{pdfFile("noise.pdf", append([]byte("%PDF-1.7\n"), toolstest.Noise(4096)...))}, nil)
		if code != "invalid_document" || strings.Contains(msg, "pdfcpu") || strings.Contains(msg, "/") {
			t.Errorf("a damaged PDF: %s %q, want invalid_document without internals", code, msg)
		}
	})
	t.Run("booklet-pdf", func(t *testing.T) {
		j, data := runTool(t, c, "booklet-pdf", []client.File{pdfFile("eight.pdf", numberedPages(8))}, nil)
		if j.Result.Filename != "eight-booklet.pdf" || len(pdfPages(t, data)) != 4 {
			t.Fatalf("result %+v, %d sides, want 4", j.Result, len(pdfPages(t, data)))
		}
		// Sheet 1: 8|1 on the front, 2|7 on the back; sheet 2: 6|3, 4|5.
		if got, want := sheetSides(t, data), [][]string{{"1", "8"}, {"2", "7"}, {"3", "6"}, {"4", "5"}}; !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("sides show pages %q, want %q", got, want)
		}

		_, data = runTool(t, c, "booklet-pdf", []client.File{pdfFile("eight.pdf", numberedPages(8))}, map[string]string{"per_sheet": "4", "page_size": "a3"})
		if got := pageSizes(t, data); !slices.Equal(got, [][2]int{{842, 1191}, {842, 1191}}) {
			t.Errorf("sides %v, want two A3 sides", got)
		}
		if got, want := sheetSides(t, data), [][]string{{"1", "3", "6", "8"}, {"2", "4", "5", "7"}}; !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("sides show pages %q, want %q", got, want)
		}
	})

	t.Run("insert-pages", func(t *testing.T) {
		orig := corpusStarts(t, fourPages, 1, 2, 3, 4)
		insert := toolstest.TextPDF("Inserted one", "Inserted two")
		j, data := runTool(t, c, "insert-pages", []client.File{file(t, "pdf", fourPages), pdfFile("insert.pdf", insert)}, map[string]string{"after": "2"})
		if j.Result.Filename != "pdflatex-4-pages-inserted.pdf" {
			t.Fatalf("result %+v", j.Result)
		}
		want := slices.Concat(orig[:2], []string{"Inserted one", "Inserted two"}, orig[2:])
		if got := pageStarts(t, data); !slices.Equal(got, want) {
			t.Errorf("page texts %q, want %q", got, want)
		}

		_, data = runTool(t, c, "insert-pages", []client.File{file(t, "pdf", fourPages)}, map[string]string{"blank": "2", "after": "0"})
		if got := pageSizes(t, data); len(got) != 6 || got[0] != [2]int{595, 842} || got[1] != [2]int{595, 842} {
			t.Errorf("page sizes %v, want six A4 pages", got)
		}
		if got, want := pageStarts(t, data), slices.Concat([]string{"", ""}, orig); !slices.Equal(got, want) {
			t.Errorf("page texts %q, want %q", got, want)
		}

		code, msg := toolRefusal(t, c, "insert-pages", []client.File{file(t, "pdf", fourPages)}, nil)
		if code != "missing_file" || !strings.Contains(msg, "blank") {
			t.Errorf("one file without blank: %s %q, want missing_file naming blank", code, msg)
		}
		code, msg = toolRefusal(t, c, "insert-pages", []client.File{file(t, "pdf", fourPages), pdfFile("noise.pdf", append([]byte("%PDF-1.7\n"), toolstest.Noise(4096)...))}, nil)
		if code != "invalid_document" || !strings.Contains(msg, "PDF to insert") {
			t.Errorf("a damaged PDF to insert: %s %q, want invalid_document naming it", code, msg)
		}
	})

	t.Run("image-watermark", func(t *testing.T) {
		logo := blackPNG(t, 40, 20)
		j, data := runTool(t, c, "image-watermark", []client.File{file(t, "pdf", fourPages), pdfFile("logo.png", logo)},
			map[string]string{"position": "top-right", "opacity": "1", "pages": "2,4"})
		if j.Result.Filename != "pdflatex-4-pages-watermarked.pdf" {
			t.Fatalf("result %+v", j.Result)
		}
		if got := imagePageList(t, data); !slices.Equal(got, []int{2, 4}) {
			t.Errorf("pdfimages lists images on pages %v, want 2 and 4", got)
		}
		// At 18 dpi an A4 page is 149 by 211 pixels; the logo, a quarter
		// of the page's width, ends 7 pixels (28 pt) from the right and
		// top edges: its middle is near (123, 16), blank on the input.
		if v := grayAt(t, data, 2, 123, 16); v > 60 {
			t.Errorf("page 2 at the logo's place is %d, want black", v)
		}
		if v := grayAt(t, toolstest.ReadCorpus(t, "pdf", fourPages), 2, 123, 16); v < 200 {
			t.Errorf("the input's page 2 at the logo's place is %d: the check needs a blank spot", v)
		}
		if v := grayAt(t, data, 1, 123, 16); v < 200 {
			t.Errorf("page 1 (not selected) at the logo's place is %d, want blank", v)
		}

		code, msg := toolRefusal(t, c, "image-watermark", []client.File{pdfFile("logo.png", logo), file(t, "pdf", fourPages)}, nil)
		if code != "unsupported_file_type" || !strings.Contains(msg, "PDF first") {
			t.Errorf("image first: %s %q, want unsupported_file_type saying the PDF goes first", code, msg)
		}
	})
}

// blackPNG returns a w by h black PNG.
func blackPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imagePageList returns the page of each image pdfimages -list finds.
func imagePageList(t *testing.T, data []byte) []int {
	t.Helper()
	out, err := exec.Command("pdfimages", "-list", toolstest.WriteTemp(t, "images.pdf", data)).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfimages: %v\n%s", err, out)
	}
	var pages []int
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[2] == "image" {
			n, _ := strconv.Atoi(f[0])
			pages = append(pages, n)
		}
	}
	return pages
}

// grayAt renders page n with pdftoppm at 18 dpi in gray and returns the
// pixel at x, y from the top left.
func grayAt(t *testing.T, data []byte, n, x, y int) byte {
	t.Helper()
	out, err := exec.Command("pdftoppm", "-r", "18", "-gray", "-f", strconv.Itoa(n), "-l", strconv.Itoa(n), toolstest.WriteTemp(t, "page.pdf", data)).Output()
	if err != nil {
		t.Fatalf("pdftoppm: %v", err)
	}
	// A binary PGM: "P5", width, height, maxval, one white space, pixels.
	f := strings.Fields(string(out[:min(len(out), 32)]))
	w, _ := strconv.Atoi(f[1])
	header := len(strings.Join(f[:4], " ")) + 1
	return out[header+y*w+x]
}

// sheetSides returns the page numbers ("Page N") each page of a
// booklet shows, sorted: its pages are turned, so pdftotext's reading
// order within a side is a guess, while which pages share a side is the
// imposition.
func sheetSides(t *testing.T, data []byte) [][]string {
	t.Helper()
	var sides [][]string
	for _, text := range pageTexts(t, data) {
		nums := strings.Fields(strings.ReplaceAll(text, "Page", ""))
		slices.Sort(nums)
		sides = append(sides, nums)
	}
	return sides
}
