package pdfops_test

import (
	"slices"
	"strings"
	"testing"

	docmill "github.com/docmill/docmill"
	"github.com/docmill/docmill/tools/pdfops"
)

func TestWatermark(t *testing.T) {
	needPoppler(t)
	tests := []struct {
		name   string
		file   string
		params map[string]string
		want   []string // text expected on the marked pages (squashed)
		marked []int    // pages that must show it; nil: all
		also   string   // original text that must survive
		exact  bool     // want must come out with its spaces
	}{
		{name: "defaults", file: "pdflatex-4-pages.pdf", params: map[string]string{"text": "CONFIDENTIAL"},
			want: []string{"CONFIDENTIAL"}, also: "Hello, here is some text"},
		{name: "cyrillic on some pages", file: "pdflatex-4-pages.pdf",
			params: map[string]string{"text": "Конфиденциально", "pages": "2-3"},
			want:   []string{"Конфиденциально"}, marked: []int{2, 3}},
		{name: "cyrillic horizontal, exact", file: "pdflatex-4-pages.pdf",
			params: map[string]string{"text": "Совершенно секретно", "rotation": "0", "pages": "1"},
			want:   []string{"Совершенно секретно"}, marked: []int{1}, exact: true},
		{name: "description syntax and placeholders are literal", file: "pdflatex-4-pages.pdf",
			params: map[string]string{"text": `50% off, points:12 (a) \ %p %P %t %v %% {n}`, "rotation": "0", "pages": "4"},
			want:   []string{`50% off, points:12 (a) \ %p %P %t %v %% {n}`}, marked: []int{4}},
		{name: "greek and symbols, fixed size, under", file: "minimal-document.pdf",
			params: map[string]string{"text": "Ωμέγα € “quoted” — ok", "font_size": "30", "layer": "under", "color": "#FF0000", "opacity": "1"},
			want:   []string{"Ωμέγα € “quoted” — ok"}},
		{name: "two lines", file: "minimal-document.pdf",
			params: map[string]string{"text": `First line\nSecond line`, "rotation": "0"},
			want:   []string{"First line", "Second line"}},
		{name: "rotated pages", file: "habibi-rotated.pdf", params: map[string]string{"text": "DRAFT", "position": "bottom-right"},
			want: []string{"DRAFT"}, also: "habibi"},
		{name: "vertical", file: "pdflatex-4-pages.pdf", params: map[string]string{"text": "SIDE", "rotation": "90", "position": "center-left"},
			want: []string{"SIDE"}},
		{name: "upside down", file: "pdflatex-4-pages.pdf", params: map[string]string{"text": "UP", "rotation": "-180", "position": "top-center"},
			want: []string{"UP"}},
		{name: "pdf/a", file: "crazyones-pdfa.pdf", params: map[string]string{"text": "COPY"}, want: []string{"COPY"}},
		{name: "forms", file: "pdflatex-forms.pdf", params: map[string]string{"text": "COPY"}, want: []string{"COPY"}},
		{name: "misplaced info", file: "cmyk-image.pdf", params: map[string]string{"text": "COPY"}, want: []string{"COPY"}},
		{name: "office", file: "002-trivial-libre-office-writer.pdf", params: map[string]string{"text": "COPY"}, want: []string{"COPY"}},
		{name: "google docs", file: "google-doc-document.pdf", params: map[string]string{"text": "COPY"}, want: []string{"COPY"}},
		{name: "many pages", file: "GeoTopo-komprimiert.pdf", params: map[string]string{"text": "COPY", "pages": "117"},
			want: []string{"COPY"}, marked: []int{117}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, before, after := runStamp(t, "watermark-pdf", tt.params, tt.file)
			wantMarks(t, before, after, tt.want, tt.marked)
			if tt.exact && !strings.Contains(strings.Join(after, ""), tt.want[0]) {
				t.Errorf("pdftotext does not give %q exactly", tt.want[0])
			}
			if tt.also != "" && !strings.Contains(squash(strings.Join(after, "")), squash(tt.also)) {
				t.Errorf("original text %q is gone", tt.also)
			}
			wantFontEmbedded(t, out.Path)
			wantMarked := len(tt.marked)
			if tt.marked == nil {
				wantMarked = len(before)
			}
			if out.Meta["pages"] != len(before) || out.Meta["watermarked_pages"] != wantMarked {
				t.Errorf("meta = %v, want pages %d, watermarked_pages %d", out.Meta, len(before), wantMarked)
			}
			want := strings.TrimSuffix(tt.file, ".pdf") + "-watermarked.pdf"
			if out.Filename != want || out.ContentType != "application/pdf" {
				t.Errorf("output = %q (%s), want %q", out.Filename, out.ContentType, want)
			}
		})
	}
}

// wantMarks checks that each text of want appears on the pages in marked
// (all pages when nil), and on no other page that did not already have it.
func wantMarks(t *testing.T, before, after, want []string, marked []int) {
	t.Helper()
	if len(after) != len(before) {
		t.Fatalf("output has %d pages, input %d", len(after), len(before))
	}
	for i, text := range after {
		page := i + 1
		wantMark := marked == nil || slices.Contains(marked, page)
		for _, w := range want {
			had := strings.Contains(squash(before[i]), squash(w))
			if has := strings.Contains(squash(text), squash(w)); has != (wantMark || had) {
				t.Errorf("page %d: watermark %q present = %v, want %v; text:\n%s", page, w, has, wantMark, text)
			}
		}
	}
}

// TestWatermarkPosition checks with pdftotext -bbox where horizontal text
// lands, at a fixed and at the automatic size, on upright and on rotated
// (habibi-rotated.pdf: 90, 180, 270, 0) pages.
func TestWatermarkPosition(t *testing.T) {
	needPoppler(t)
	for _, file := range []string{"pdflatex-4-pages.pdf", "habibi-rotated.pdf"} {
		for _, pos := range []string{"top-left", "top-center", "top-right", "center-left", "center", "center-right", "bottom-left", "bottom-center", "bottom-right"} {
			for _, size := range []string{"24", ""} {
				t.Run(file+"/"+pos+"/"+size, func(t *testing.T) {
					t.Parallel()
					out, err := runValidated(t, "watermark-pdf", map[string]string{"text": "Zyx", "rotation": "0", "position": pos, "font_size": size}, pdfCorpus(t)+file)
					if err != nil {
						t.Fatal(err)
					}
					band := 0.1 // 28 pt margin plus 24 pt text, on A4
					if size == "" {
						band = 0.5 // up to 72 pt text: just the right half, inside the page
					}
					for page := 1; page <= 4; page++ {
						w, ok := findWord(t, out.Path, page, "Zyx")
						if !ok {
							t.Errorf("page %d: no watermark", page)
							continue
						}
						wantPlaced(t, w, pos, band)
					}
				})
			}
		}
	}
}

// TestWatermarkTwice watermarks a watermarked file: the second font
// subset must not break the first.
func TestWatermarkTwice(t *testing.T) {
	needPoppler(t)
	first, err := runValidated(t, "watermark-pdf", map[string]string{"text": "Первый"}, fourPagesPDF(t))
	if err != nil {
		t.Fatal(err)
	}
	second, err := runValidated(t, "watermark-pdf", map[string]string{"text": "Second", "position": "top-center"}, first.Path)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range pageTexts(t, second.Path) {
		if !strings.Contains(squash(text), "Первый") || !strings.Contains(squash(text), "Second") {
			t.Errorf("page %d lacks a watermark:\n%s", i+1, text)
		}
	}
}

func TestWatermarkBadParams(t *testing.T) {
	file := fourPagesPDF(t)
	testStampBadParams(t, "watermark-pdf", file, []stampBadParams{
		{"no text", nil, "text"},
		{"blank text", map[string]string{"text": "  "}, "text"},
		{"only a line break", map[string]string{"text": `\n`}, "text"},
		{"text too long", map[string]string{"text": strings.Repeat("x", 201)}, "text"},
		{"text without glyphs", map[string]string{"text": "机密"}, "text"},
		{"control character", map[string]string{"text": "a\tb"}, "text"},
		{"invalid utf-8", map[string]string{"text": "a\xffb"}, "text"},
		{"color name", map[string]string{"text": "x", "color": "red"}, "color"},
		{"short color", map[string]string{"text": "x", "color": "#12345"}, "color"},
		{"bad hex", map[string]string{"text": "x", "color": "#gg0000"}, "color"},
		{"opacity above 1", map[string]string{"text": "x", "opacity": "2"}, "opacity"},
		{"negative opacity", map[string]string{"text": "x", "opacity": "-0.1"}, "opacity"},
		{"rotation", map[string]string{"text": "x", "rotation": "181"}, "rotation"},
		{"font size", map[string]string{"text": "x", "font_size": "5"}, "font_size"},
		{"fractional font size", map[string]string{"text": "x", "font_size": "12.5"}, "font_size"},
		{"position", map[string]string{"text": "x", "position": "middle"}, "position"},
		{"layer", map[string]string{"text": "x", "layer": "behind"}, "layer"},
		{"page past the end", map[string]string{"text": "x", "pages": "2,5"}, "pages"},
		{"page zero", map[string]string{"text": "x", "pages": "0"}, "pages"},
	})
}

func TestWatermarkBadInput(t *testing.T) {
	bad := badInputs(t)
	tests := []struct {
		name     string
		file     string
		code     docmill.Code
		contains []string
	}{
		{"text", bad["text"], docmill.CodeInvalidDocument, []string{"The file", "not a PDF"}},
		{"empty", bad["empty"], docmill.CodeInvalidDocument, []string{"The file"}},
		{"truncated", bad["truncated"], docmill.CodeInvalidDocument, []string{"damaged"}},
		{"header only", bad["header-only"], docmill.CodeInvalidDocument, nil},
		{"encrypted", bad["encrypted"], docmill.CodeInvalidDocument, []string{"The file is password-protected"}},
		{"too large", sparseFile(t, pdfops.MaxInputBytes+1), docmill.CodeFileTooLarge, []string{"512 MB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			params := map[string]map[string]string{"watermark-pdf": {"text": "x"}, "page-numbers": nil}
			for slug, p := range params {
				out, err := runValidated(t, slug, p, tt.file)
				wantRefused(t, out, err, tt.code, tt.contains...)
			}
		})
	}
}

// FuzzWatermarkText checks that no text makes watermark-pdf fail with
// anything but success or invalid_parameter, and that Latin text comes
// back from pdftotext as it went in. Run `go test -fuzz FuzzWatermarkText`
// to explore beyond the seeds.
func FuzzWatermarkText(f *testing.F) {
	for _, s := range []string{"DRAFT", "%", "%%", "%p1", "50%", `a\nb`, `\`, "(", ")", "a,b:c", "Ёж", "\x00", "{total}"} {
		f.Add(s)
	}
	file := pdfCorpus(f) + "minimal-document.pdf"
	needPoppler(f)
	f.Fuzz(func(t *testing.T, s string) {
		out, err := runValidated(t, "watermark-pdf", map[string]string{"text": s, "rotation": "0"}, file)
		if code := docmill.ErrorCode(err); code != "" && code != docmill.CodeInvalidParameter {
			t.Fatalf("text %q: error %v, want none or invalid_parameter", s, err)
		}
		if err != nil || strings.ContainsAny(s, `\`) || strings.ContainsFunc(s, func(r rune) bool { return r > 0x7e || r < 0x20 }) {
			return
		}
		if got := squash(strings.Join(pageTexts(t, out.Path), "")); !strings.Contains(got, squash(s)) {
			t.Errorf("text %q: extracted %q", s, got)
		}
	})
}
