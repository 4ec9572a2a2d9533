package main

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/docmill/docmill/client"
	"github.com/docmill/docmill/tools/toolstest"
)

// redactocrLines are the sentences of the test page, each a line in
// Helvetica; "Morozov" is the term blacked out.
var redactocrLines = []string{
	"The contract was signed on Monday",
	"by Boris Morozov and two partners",
	"after a long meeting in the office.",
	"Payment follows within thirty days",
	"and the goods ship from the harbor.",
}

// redactocrTextPDF writes a PDF of one A4 page with lines of 20 point
// Helvetica, 30 points apart from the top, and a second page with just
// one line that is never redacted.
func redactocrTextPDF(lines []string) []byte {
	var content strings.Builder
	content.WriteString("BT /F1 20 Tf 72 740 Td 30 TL")
	for _, l := range lines {
		fmt.Fprintf(&content, " (%s) Tj T*", l)
	}
	content.WriteString(" ET")
	second := "BT /F1 20 Tf 72 740 Td (Nothing to hide here) Tj ET"
	return toolstest.PDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", content.Len(), content.String()),
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents 7 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(second), second),
	)
}

// redactocrWords are the words of text, their punctuation trimmed.
func redactocrWords(text string) []string {
	var words []string
	for _, w := range strings.Fields(text) {
		if w = strings.Trim(w, ".,;:!?\"'"); w != "" {
			words = append(words, w)
		}
	}
	return words
}

// redactocrFound checks that the text of page n of data holds at least
// 80% of want (case ignored) and none of gone.
func redactocrFound(t *testing.T, data []byte, n int, want, gone []string) {
	t.Helper()
	text := strings.ToLower(pageText(t, data, n))
	have := map[string]bool{}
	for _, w := range redactocrWords(text) {
		have[w] = true
	}
	found := 0
	var missing []string
	for _, w := range want {
		if have[strings.ToLower(w)] {
			found++
		} else {
			missing = append(missing, w)
		}
	}
	if found*5 < len(want)*4 {
		t.Errorf("page %d: %d of %d words found, missing %q; text %q", n, found, len(want), missing, text)
	}
	t.Logf("page %d: %d of %d words found by OCR, missing %q", n, found, len(want), missing)
	for _, g := range gone {
		if strings.Contains(text, strings.ToLower(g)) {
			t.Errorf("page %d: the text layer holds %q: %q", n, g, text)
		}
	}
}

// redactocrNoBytes checks that no byte of data, streams uncompressed,
// holds one of secrets in any encoding redactForms lists.
func redactocrNoBytes(t *testing.T, data []byte, secrets ...string) {
	t.Helper()
	qdf := bytes.ToLower(redactQDF(t, data))
	for _, secret := range secrets {
		for _, form := range redactForms(secret) {
			if bytes.Contains(qdf, bytes.ToLower(form)) {
				t.Errorf("the file holds %q as %q", secret, form)
			}
		}
	}
}

// redactocrNear checks that word is on page n of after within tolerance
// points of where it is in before: its left edge and the middle of its
// height, as pdftotext -bbox reads them. Heights differ: tesseract sizes
// its glyphless font to the line it saw, whose ascent and descent are
// not Helvetica's, so the middles are some 4 points apart.
func redactocrNear(t *testing.T, before, after []byte, n int, word string, tolerance float64) {
	t.Helper()
	a := redactWordBoxes(t, before, n, word)[0]
	b := redactWordBoxes(t, after, n, word)[0]
	dx, dy := math.Abs(a[0]-b[0]), math.Abs((a[1]+a[3])/2-(b[1]+b[3])/2)
	if dx > tolerance || dy > tolerance {
		t.Errorf("%q at %v, was at %v", word, b, a)
	}
	t.Logf("%q: %.1f, %.1f points off", word, dx, dy)
}

func TestRedactOCRE2E(t *testing.T) {
	t.Parallel()
	s := startServer(t, "")
	c := s.client(s.DevKey)
	src := redactocrTextPDF(redactocrLines)
	var others []string
	for _, w := range redactocrWords(strings.Join(redactocrLines, " ")) {
		if w != "Morozov" {
			others = append(others, w)
		}
	}

	t.Run("ocr", func(t *testing.T) {
		j, data := runTool(t, c, "redact-pdf", []client.File{pdfFile("contract.pdf", src)}, map[string]string{"terms": "morozov", "ocr": "true", "lang": "eng"})
		want := map[string]any{"pages": 2.0, "redactions": 1.0, "redacted_pages": []any{1.0}, "redactions_per_page": []any{1.0}, "ocr_pages": 1.0}
		for k, v := range want {
			if !reflect.DeepEqual(j.Meta[k], v) {
				t.Errorf("meta %s = %v, want %v", k, j.Meta[k], v)
			}
		}
		redactocrFound(t, data, 1, others, []string{"Morozov"})
		redactocrNoBytes(t, data, "Morozov")
		for _, w := range []string{"contract", "partners", "meeting", "Payment", "harbor"} {
			redactocrNear(t, src, data, 1, w, 6)
		}
		// The page looks as without OCR: the term black, the rest as before.
		redactCompare(t, src, data, 1, redactWordBoxes(t, src, 1, "Morozov")...)
		if got := strings.TrimSpace(pageText(t, data, 2)); got != "Nothing to hide here" {
			t.Errorf("page 2: %q", got)
		}
	})

	t.Run("no ocr", func(t *testing.T) {
		j, data := runTool(t, c, "redact-pdf", []client.File{pdfFile("contract.pdf", src)}, map[string]string{"terms": "morozov"})
		if j.Meta["ocr_pages"] != 0.0 || !reflect.DeepEqual(j.Meta["redacted_pages"], []any{1.0}) {
			t.Errorf("meta %v", j.Meta)
		}
		if text := strings.TrimSpace(pageText(t, data, 1)); text != "" {
			t.Errorf("page 1 has text %q without ocr", text)
		}
	})

	t.Run("cyrillic", func(t *testing.T) { redactocrCyrillic(t, c) })

	t.Run("too many pages", func(t *testing.T) {
		// 21 pages, each holding the term: more than ocr=true reads,
		// refused before any page is drawn.
		pages := make([]string, 21)
		for i := range pages {
			pages[i] = fmt.Sprintf("Page %d names Morozov", i+1)
		}
		many := toolstest.TextPDF(pages...)
		code, msg := toolRefusal(t, c, "redact-pdf", []client.File{pdfFile("many.pdf", many)}, map[string]string{"terms": "Morozov", "ocr": "true"})
		if code != "invalid_document" || !strings.Contains(msg, "at most 20 pages can be redacted with ocr=true") {
			t.Errorf("%s: %s", code, msg)
		}
	})
}

// redactocrCyrillic redacts a Russian name from a line of Cyrillic (drawn
// by watermark-pdf, whose font has Cyrillic) with ocr=true and lang=rus:
// the other words come back, the name does not.
func redactocrCyrillic(t *testing.T, c *client.Client) {
	line := "Договор подписал Морозов вчера вечером"
	_, src := runTool(t, c, "watermark-pdf", []client.File{pdfFile("blank.pdf", toolstest.TextPDF(" "))},
		map[string]string{"text": line, "rotation": "0", "opacity": "1", "color": "#000000", "font_size": "24", "position": "top-left"})
	if !strings.Contains(pageText(t, src, 1), "Морозов") {
		t.Fatalf("the source has no Cyrillic text: %q", pageText(t, src, 1))
	}
	j, data := runTool(t, c, "redact-pdf", []client.File{pdfFile("dogovor.pdf", src)}, map[string]string{"terms": "морозов", "ocr": "true", "lang": "rus"})
	if j.Meta["ocr_pages"] != 1.0 {
		t.Errorf("meta %v", j.Meta)
	}
	redactocrFound(t, data, 1, []string{"Договор", "подписал", "вчера", "вечером"}, []string{"Морозов"})
	redactocrNoBytes(t, data, "Морозов")
}
