package pdfops_test

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// This file holds the helpers and tests that watermark-pdf and
// page-numbers share. Outputs are checked with poppler's pdftotext and
// pdffonts, programs independent of pdfcpu.

// needPoppler skips the test when poppler's tools are missing.
func needPoppler(t testing.TB) {
	t.Helper()
	for _, p := range []string{"pdftotext", "pdffonts", "pdfinfo"} {
		toolstest.Need(t, p)
	}
}

// pageTexts returns the text pdftotext extracts from each page, in
// content-stream order (-raw): its default layout analysis scatters the
// letters of diagonal text among the lines of the page.
func pageTexts(t testing.TB, path string) []string {
	t.Helper()
	out, err := exec.Command("pdftotext", "-raw", "-enc", "UTF-8", path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", path, err)
	}
	pages := strings.Split(string(out), "\f")
	return pages[:len(pages)-1] // the text ends with a form feed
}

// runStamp runs the stamping tool slug on the corpus PDF file with params,
// validated as the API does, and returns its output with the text of
// each page before and after.
func runStamp(t *testing.T, slug string, params map[string]string, file string) (out *docmill.RunOutput, before, after []string) {
	t.Helper()
	path := pdfCorpus(t) + file
	before = pageTexts(t, path)
	out, err := runValidated(t, slug, params, path)
	if err != nil {
		t.Fatal(err)
	}
	return out, before, pageTexts(t, out.Path)
}

// squash drops white space and bidi controls, which pdftotext inserts
// between the letters of rotated text and around text on pages it
// judges right-to-left.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.Is(unicode.Bidi_Control, r) {
			return -1
		}
		return r
	}, s)
}

// wantFontEmbedded checks with pdffonts that the stamp font is embedded.
func wantFontEmbedded(t testing.TB, path string) {
	t.Helper()
	out, err := exec.Command("pdffonts", path).Output()
	if err != nil {
		t.Fatalf("pdffonts %s: %v", path, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		// name type... encoding emb sub uni object ID
		if len(f) >= 7 && strings.HasSuffix(f[0], "+GoRegular") && f[len(f)-5] == "yes" {
			return
		}
	}
	t.Errorf("no embedded GoRegular font in:\n%s", out)
}

// word is one word pdftotext found, in points from the top left of the
// page as displayed (rotation applied).
type word struct {
	text                   string
	xMin, yMin, xMax, yMax float64
	pageW, pageH           float64
}

var (
	bboxPage = regexp.MustCompile(`<page width="([0-9.]+)" height="([0-9.]+)">`)
	bboxWord = regexp.MustCompile(`<word xMin="([0-9.]+)" yMin="([0-9.]+)" xMax="([0-9.]+)" yMax="([0-9.]+)">([^<]*)</word>`)
)

var infoRot = regexp.MustCompile(`(?m)^Page +\d+ rot: +(\d+)`)

// findWord returns where text is on page (1-based), by pdftotext -bbox
// on the crop box. pdftotext gives word positions as the page is shown
// but the page's size unturned, so pdfinfo supplies the rotation.
func findWord(t testing.TB, path string, page int, text string) (word, bool) {
	t.Helper()
	n := strconv.Itoa(page)
	out, err := exec.Command("pdftotext", "-cropbox", "-bbox", "-f", n, "-l", n, path, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext -bbox %s: %v", path, err)
	}
	info, err := exec.Command("pdfinfo", "-f", n, "-l", n, path).Output()
	if err != nil {
		t.Fatalf("pdfinfo %s: %v", path, err)
	}
	pm, rm := bboxPage.FindStringSubmatch(string(out)), infoRot.FindSubmatch(info)
	if pm == nil || rm == nil {
		t.Fatalf("no page size or rotation in pdftotext -bbox and pdfinfo output")
	}
	num := func(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }
	w, h := num(pm[1]), num(pm[2])
	if rot, _ := strconv.Atoi(string(rm[1])); rot%180 != 0 {
		w, h = h, w
	}
	for _, m := range bboxWord.FindAllStringSubmatch(string(out), -1) {
		if strings.TrimSpace(m[5]) == text {
			return word{text, num(m[1]), num(m[2]), num(m[3]), num(m[4]), w, h}, true
		}
	}
	return word{}, false
}

// wantPlaced checks that w is where position puts it: inside the page,
// within band (a fraction of the page's width or height) of the edges the
// position names, and centred when it names a center.
func wantPlaced(t testing.TB, w word, position string, band float64) {
	t.Helper()
	cx, cy := (w.xMin+w.xMax)/2, (w.yMin+w.yMax)/2
	vert, horiz, _ := strings.Cut(position, "-")
	if position == "center" {
		vert, horiz = "center", "center"
	}
	ok := true
	switch vert {
	case "top":
		ok = ok && w.yMin > 5 && w.yMax < band*w.pageH
	case "bottom":
		ok = ok && w.yMax < w.pageH-5 && w.yMin > (1-band)*w.pageH
	case "center":
		ok = ok && cy > 0.4*w.pageH && cy < 0.6*w.pageH
	}
	switch horiz {
	case "left":
		ok = ok && w.xMin > 5 && w.xMax < 0.5*w.pageW && w.xMin < band*w.pageW
	case "right":
		ok = ok && w.xMax < w.pageW-5 && w.xMin > 0.5*w.pageW && w.xMax > (1-band)*w.pageW
	case "center":
		ok = ok && cx > 0.45*w.pageW && cx < 0.55*w.pageW
	}
	if !ok {
		t.Errorf("%q at x %.0f-%.0f, y %.0f-%.0f on a %.0fx%.0f page is not at %s",
			w.text, w.xMin, w.xMax, w.yMin, w.yMax, w.pageW, w.pageH, position)
	}
}

// wantParamError checks that err is invalid_parameter naming field.
func wantParamError(t *testing.T, err error, field string) {
	t.Helper()
	e := wantCode(t, err, docmill.CodeInvalidParameter, field)
	if len(e.Fields) != 1 || e.Fields[0].Field != field {
		t.Errorf("fields = %v, want %s", e.Fields, field)
	}
}

// stampBadParams is a case of params a stamp tool must refuse, naming
// field.
type stampBadParams struct {
	name   string
	params map[string]string
	field  string
}

// testStampBadParams runs tool slug on file with each case's params, in
// parallel subtests, and checks that the tool refuses them naming the
// case's field alone.
func testStampBadParams(t *testing.T, slug, file string, tests []stampBadParams) {
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := runValidated(t, slug, tt.params, file)
			if err == nil {
				t.Fatalf("%s made %v, want error", slug, out)
			}
			wantParamError(t, err, tt.field)
		})
	}
}

// TestStampConcurrent runs both tools at once; under -race it checks that
// the shared font set-up and pdfcpu's font state are safe.
func TestStampConcurrent(t *testing.T) {
	needPoppler(t)
	jobs := []struct {
		slug, file, want string
		params           map[string]string
	}{
		{"watermark-pdf", "pdflatex-4-pages.pdf", "Черновик", map[string]string{"text": "Черновик"}},
		{"watermark-pdf", "minimal-document.pdf", "Draft", map[string]string{"text": "Draft", "position": "top-left"}},
		{"page-numbers", "pdflatex-4-pages.pdf", "№4/4", map[string]string{"format": "№{n}/{total}"}},
		{"page-numbers", "habibi-rotated.pdf", "x4", map[string]string{"format": "x{n}", "position": "top-right"}},
	}
	dir := pdfCorpus(t) // skips here, on the test's goroutine, without the corpus
	var wg sync.WaitGroup
	for round := range 2 {
		for i, j := range jobs {
			wg.Go(func() {
				out, err := runValidated(t, j.slug, j.params, dir+j.file)
				if err != nil {
					t.Errorf("round %d job %d: %v", round, i, err)
					return
				}
				texts := pageTexts(t, out.Path)
				if last := texts[len(texts)-1]; !strings.Contains(squash(last), squash(j.want)) {
					t.Errorf("round %d job %d: last page text %q lacks %q", round, i, last, j.want)
				}
			})
		}
	}
	wg.Wait()
}

func TestStampCanceled(t *testing.T) {
	params := map[string]map[string]string{
		"watermark-pdf": {"text": "x"},
		"page-numbers":  nil,
	}
	for slug, raw := range params {
		_, err := invoke(canceledContext(), t, slug, raw, "application/pdf", fourPagesPDF(t))
		if err == nil || docmill.ErrorCode(err) != docmill.CodeInternal {
			t.Errorf("%s: err = %v, want the context's error", slug, err)
		}
	}
}

// treePDF writes a PDF of n content-less pages, all kids of one page tree
// node (a flat tree) that carries rootAttrs for them to inherit.
func treePDF(t testing.TB, n int, rootAttrs string) string {
	t.Helper()
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
	var kids strings.Builder
	for i := range n {
		fmt.Fprintf(&kids, "%d 0 R ", i+3)
	}
	objects = append(objects, fmt.Sprintf("<< /Type /Pages /Count %d /Kids [%s] %s >>", n, kids.String(), rootAttrs))
	for range n {
		objects = append(objects, "<< /Type /Page /Parent 2 0 R >>")
	}
	return toolstest.WriteTemp(t, "tree.pdf", toolstest.PDF(objects...))
}

// TestStampPageTrees numbers pages of a large flat page tree, which the
// tools regroup, and of cropped pages, and checks that every page keeps
// its place, its inherited size and rotation, and gets its number at the
// visual bottom center.
func TestStampPageTrees(t *testing.T) {
	needPoppler(t)
	tests := []struct {
		name      string
		pages     int
		rootAttrs string
		check     []int
	}{
		{"flat tree, inherited rotation", 300, "/MediaBox [0 0 200 300] /Rotate 90", []int{1, 2, 64, 65, 128, 129, 200, 299, 300}},
		{"crop box off the origin", 3, "/MediaBox [0 0 600 800] /CropBox [100 150 400 550]", []int{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := runValidated(t, "page-numbers", map[string]string{"format": "n{n}"}, treePDF(t, tt.pages, tt.rootAttrs))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(pageTexts(t, out.Path)); n != tt.pages {
				t.Fatalf("output has %d pages, want %d", n, tt.pages)
			}
			for _, page := range tt.check {
				w, ok := findWord(t, out.Path, page, fmt.Sprintf("n%d", page))
				if !ok {
					t.Errorf("page %d: no number n%d", page, page)
					continue
				}
				wantPlaced(t, w, "bottom-center", 0.2)
			}
			w, _ := findWord(t, out.Path, 1, "n1")
			if strings.Contains(tt.rootAttrs, "Rotate 90") && (w.pageW != 300 || w.pageH != 200) {
				t.Errorf("page 1 is %.0fx%.0f, want the inherited 300x200 landscape", w.pageW, w.pageH)
			}
		})
	}
}

// TestStampFontReinstalled removes the installed font, as a /tmp cleaner
// might, and checks that the next run installs it again.
func TestStampFontReinstalled(t *testing.T) {
	needPoppler(t)
	if _, err := runValidated(t, "page-numbers", nil, onePagePDF(t)); err != nil {
		t.Fatal(err)
	}
	dir := pdfops.StampFontDir()
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("font directory %q: %v, %v; want a private directory", dir, st, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	out, err := runValidated(t, "page-numbers", map[string]string{"format": "Стр. {n}"}, onePagePDF(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := squash(pageTexts(t, out.Path)[0]); !strings.Contains(got, "Стр.1") {
		t.Errorf("text %q lacks the number", got)
	}
	wantFontEmbedded(t, out.Path)
	if d := pdfops.StampFontDir(); d == dir || d == "" {
		t.Errorf("font directory %q after reinstall, was %q", d, dir)
	}
}
