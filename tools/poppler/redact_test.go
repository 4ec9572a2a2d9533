package poppler

import (
	"bytes"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/sandbox"
	"github.com/docmill/docmill/tools/pdfops"
	"github.com/docmill/docmill/tools/toolstest"
)

// testRedactTool returns redact-pdf on the real engines, its step in a real
// jailed helper of this test binary, skipping t when an engine is
// missing.
func testRedactTool(t testing.TB) *docmill.Tool {
	t.Helper()
	return limitedRedactTool(t, docmill.Limits{})
}

// limitedRedactTool is testRedactTool with limits.
func limitedRedactTool(t testing.TB, limits docmill.Limits) *docmill.Tool {
	t.Helper()
	return stepsRedactTool(t, limits, nil)
}

// stepsRedactTool is limitedRedactTool with textLayer as its OCR step.
func stepsRedactTool(t testing.TB, limits docmill.Limits, textLayer docmill.RunFunc) *docmill.Tool {
	t.Helper()
	find := func(name string) *sandbox.Engine {
		e := sandbox.Find(name, []string{"-v"}, sandbox.Options{View: sandbox.View{ReadOnly: DataPaths}})
		if !e.Available() {
			toolstest.Lacking(t, "%s is not available (not installed, or the jail cannot run)", name)
		}
		return e
	}
	e := Engines{PDFToText: find("pdftotext"), PDFToPPM: find("pdftoppm"), PDFInfo: find("pdfinfo")}
	return redactTool(e, limits, Steps{RedactPages: toolstest.Helpers().Step(pdfops.RedactPagesStep()), TextLayer: textLayer})
}

func TestRedactChecksums(t *testing.T) {
	for _, c := range []struct {
		valid func(string) bool
		in    string
		want  bool
	}{
		{luhnValid, "4111111111111111", true},
		{luhnValid, "4111111111111112", false},
		{luhnValid, "411111111111", false}, // 12 digits
		{innValid, "7707083893", true},
		{innValid, "7707083894", false},
		{innValid, "500100732259", true},
		{innValid, "500100732258", false},
		{snilsValid, "11223344595", true},
		{snilsValid, "11223344596", false},
		{snilsValid, "112233445", false},
	} {
		if got := c.valid(c.in); got != c.want {
			t.Errorf("%s: %v, want %v", c.in, got, c.want)
		}
	}
}

func TestRedactMatcher(t *testing.T) {
	m := newTextMatcher(docmill.Params{"terms": "john SMITH\nacme", "presets": "emails,phones,cards,inn,snils,passports_ru"})
	for _, c := range []struct {
		line string
		want []string
	}{
		{"Dear John  Smith of ACME Corp", []string{"John  Smith", "ACME"}},
		{"mail j.doe@example.com today", []string{"j.doe@example.com"}},
		{"call +7 (916) 123-45-67 or 2024-01-15", []string{"+7 (916) 123-45-67"}},
		{"card 4111 1111 1111 1111 order 4111 1111 1111 1112", []string{"4111 1111 1111 1111"}},
		{"INN 7707083893 not 7707083894", []string{"7707083893"}},
		{"SNILS 112-233-445 95 end", []string{"112-233-445 95"}},
		{"passport 45 06 123456 issued", []string{"45 06 123456"}},
		{"nothing here 12345", nil},
	} {
		var got []string
		for _, s := range m.find(c.line) {
			got = append(got, c.line[s.start:s.end])
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %q, want %q", c.line, got, c.want)
		}
	}
}

func TestRedactParams(t *testing.T) {
	tool := testRedactTool(t)
	for name, raw := range map[string]map[string]string{
		"nothing":     {},
		"bad regex":   {"regex": "a(b"},
		"empty regex": {"regex": "x*"},
		"short term":  {"terms": "a"},
		"bad json":    {"terms": `["a`},
		"preset":      {"presets": "emails,dna"},
		"box json":    {"boxes": `{"page": 1}`},
		"box page":    {"boxes": `[{"page": 0, "x": 1, "y": 1, "width": 5, "height": 5}]`},
		"box size":    {"boxes": `[{"page": 1, "x": 1, "y": 1, "width": 0, "height": 5}]`},
		"box corner":  {"boxes": `[{"page": 1, "width": 5, "height": 5}]`},
	} {
		if _, err := tool.ParseParams(raw); err == nil {
			t.Errorf("%s: %v accepted", name, raw)
		} else {
			toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "")
		}
	}
}

// TestRedactPDF: the matched words are gone from the text of the result,
// their pages are images with black where they were, and a page without
// a match keeps its text.
func TestRedactPDF(t *testing.T) {
	tool := testRedactTool(t)
	src := toolstest.WriteTemp(t, "doc.pdf", toolstest.TextPDF("Mail john.doe@example.com now", "Plain words only", "INN 7707083893 ok"))
	out := mustRunTool(t, tool, src, map[string]string{"presets": "emails,inn"})
	want := map[string]any{"pages": 3, "redactions": 2, "redacted_pages": []int{1, 3}, "redactions_per_page": []int{1, 1}, "ocr_pages": 0}
	if !reflect.DeepEqual(out.Meta, want) || out.Filename != "doc-redacted.pdf" {
		t.Fatalf("meta %v, filename %q", out.Meta, out.Filename)
	}
	text, err := exec.Command("pdftotext", out.Path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(strings.Fields(string(text)), " "); got != "Plain words only" {
		t.Fatalf("text %q", got)
	}
	// The e-mail address was drawn from about (72+3, 120) to (400, 100)
	// points from the top left corner; at 50 dpi it is black there, and
	// white well below it.
	img := toolstest.RenderPage(t, out.Path, 1, 72)
	if r, g, b, _ := img.At(200, 114).RGBA(); r|g|b != 0 {
		t.Errorf("page 1 at the e-mail address: %v %v %v, want black", r, g, b)
	}
	if r, _, _, _ := img.At(200, 300).RGBA(); r < 0xf000 {
		t.Errorf("page 1 below the text: %v, want white", r)
	}

	// Nothing matches: no redaction, every page kept.
	out = mustRunTool(t, tool, src, map[string]string{"terms": "absent"})
	if out.Meta["redactions"] != 0 || !reflect.DeepEqual(out.Meta["redacted_pages"], []int{}) {
		t.Fatalf("no match: meta %v", out.Meta)
	}

	// A box past the last page.
	_, err = runTool(t, tool, src, map[string]string{"boxes": `[{"page": 4, "x": 0, "y": 0, "width": 10, "height": 10}]`})
	toolstest.WantCode(t, err, docmill.CodeInvalidParameter, "boxes")
}

// TestRedactRotatedCropped: on a page turned by /Rotate 90 and cut by a
// crop box, the match is found and blacked out where the page shows it,
// and the new page has the size the page was shown at.
func TestRedactRotatedCropped(t *testing.T) {
	tool := testRedactTool(t)
	content := "BT /F1 24 Tf 72 720 Td (Secret word) Tj ET BT /F1 24 Tf 300 720 Td (Public) Tj ET"
	src := toolstest.WriteTemp(t, "rot.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /CropBox [50 100 545 800] /Rotate 90 /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		"<< /Length "+strconv.Itoa(len(content))+" >>\nstream\n"+content+"\nendstream",
	))
	out := mustRunTool(t, tool, src, map[string]string{"terms": "secret"})
	if out.Meta["redactions"] != 1 {
		t.Fatalf("meta %v", out.Meta)
	}
	info, err := exec.Command("pdfinfo", out.Path).Output()
	if err != nil || !strings.Contains(string(info), "Page size:       700 x 495 pts") {
		t.Fatalf("pdfinfo: %v\n%s", err, info)
	}
	// Shown turned, the page has "Secret" running down from (620, 22)
	// to (637, 90), points from the top left (pdftotext -cropbox of the
	// input), and "Public" further down.
	before := toolstest.RenderPage(t, src, 1, 72, "-cropbox")
	after := toolstest.RenderPage(t, out.Path, 1, 72)
	if after.Bounds() != before.Bounds() {
		t.Fatalf("bounds %v, want %v", after.Bounds(), before.Bounds())
	}
	dark := func(x, y int) bool { r, _, _, _ := after.At(x, y).RGBA(); return r < 0x2000 }
	if !dark(628, 50) || !dark(622, 30) {
		t.Error("the secret is not black where the page shows it")
	}
	black, all := 0, 0
	for y := 255; y < 300; y++ {
		for x := 621; x < 636; x++ {
			all++
			if dark(x, y) {
				black++
			}
		}
	}
	if black == 0 || black*10 > all*8 {
		t.Errorf("the public word's area is %d%% black, want its glyphs only", black*100/all)
	}
}

// TestRedactPageLimit: more pages to redact than RenderPages is refused
// before any is drawn; as many is fine.
func TestRedactPageLimit(t *testing.T) {
	tool := limitedRedactTool(t, docmill.Limits{RenderPages: 2})
	src := toolstest.WriteTemp(t, "doc.pdf", toolstest.TextPDF("Secret one", "Secret two", "Secret three"))
	_, err := runTool(t, tool, src, map[string]string{"terms": "secret"})
	toolstest.WantCode(t, err, docmill.CodeInvalidDocument, "")
	out := mustRunTool(t, tool, src, map[string]string{"terms": "secret", "pages": "2-3"})
	if !reflect.DeepEqual(out.Meta["redacted_pages"], []int{2, 3}) {
		t.Fatalf("meta %v", out.Meta)
	}
}

// TestRedactBookmarks: a bookmark whose title holds a text blacked out
// loses its title; another keeps its own.
func TestRedactBookmarks(t *testing.T) {
	tool := testRedactTool(t)
	content := "BT /F1 24 Tf 72 720 Td (Mail ann@example.com) Tj ET"
	src := toolstest.WriteTemp(t, "marks.pdf", toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R /Outlines 6 0 R >>",
		"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		"<< /Length "+strconv.Itoa(len(content))+" >>\nstream\n"+content+"\nendstream",
		"<< /Type /Outlines /First 7 0 R /Last 8 0 R /Count 2 >>",
		"<< /Title (Letters to ANN@example.com) /Parent 6 0 R /Next 8 0 R /Dest [4 0 R /Fit] >>",
		"<< /Title (Contents) /Parent 6 0 R /Prev 7 0 R /Dest [4 0 R /Fit] >>",
	))
	out := mustRunTool(t, tool, src, map[string]string{"presets": "emails"})
	qdf, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", out.Path, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bytes.ToLower(qdf), []byte("example.com")) || !bytes.Contains(qdf, []byte("(Contents)")) || !bytes.Contains(qdf, []byte("[redacted]")) {
		t.Fatalf("outline of the result:\n%s", qdf)
	}
}
